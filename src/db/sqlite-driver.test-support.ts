import SQLite from 'better-sqlite3';
import { Kysely, sql, type Generated } from 'kysely';
import { KontorSqliteDialect } from './sqlite-driver.js';

/** The table of the WAL tests: rows of one page each. */
export type WalTable = Kysely<{ t: { n: Generated<number>; body: string } }>;

/**
 * The database at `file` in WAL mode through Kontor's dialect, whose writes stop for the WAL
 * to start over after `restartFrames` frames, with the table `t` created. Used by the WAL
 * tests of `sqlite-driver.test.ts` and by their child process (`test/wal-writer-child.ts`).
 */
export async function walTable(file: string, restartFrames: number): Promise<WalTable> {
  const handle = new SQLite(file);
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = NORMAL');
  const db: WalTable = new Kysely({
    dialect: new KontorSqliteDialect(handle, file, () => undefined, restartFrames),
  });
  await sql`create table t (n integer primary key, body text not null)`.execute(db);
  return db;
}
