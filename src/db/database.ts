import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { KontorKysely } from './transactions.js';
import pg from 'pg';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from '../config.js';
import { DatabaseNotReady, isStorageFull, type DialectKind } from './dialect.js';
import { migrations } from './migrations/index.js';
import type { DB } from './schema.js';
import { KontorSqliteDialect } from './sqlite-driver.js';
import { KontorPostgresDialect } from './pg-driver.js';

export interface Database {
  db: Kysely<DB>;
  kind: DialectKind;
  /**
   * Embedded only: SQLite's `data_version`, which changes when another process (the CLI)
   * has written to the file. The auth cache uses it to drop entries another process revoked.
   */
  externalChangeCounter?: () => number;
  /**
   * The readiness check: a cheap round trip, and a check that writes can succeed. Throws when
   * the database is unreachable, and `DatabaseNotReady` while its storage is full (see
   * `reportStorageFull`).
   */
  ping(): Promise<void>;
  /**
   * Called when a write failed because storage is full. SQLite: `ping` then probes the disk of
   * the database file until a probe write fits. PostgreSQL, whose disk this process cannot
   * probe: `ping` fails for `STORAGE_FULL_HOLD_MS` after the last such failure.
   */
  reportStorageFull(): void;
  close(): Promise<void>;
}

/** How long a PostgreSQL disk-full error keeps the readiness check failing. */
export const STORAGE_FULL_HOLD_MS = 30_000;

/** Bytes the SQLite readiness probe writes next to the database file: a few WAL frames. */
const PROBE_BYTES = 64 * 1024;

/**
 * Writes and removes a small file in `dir`: fails with `ENOSPC` when the disk of the database
 * file is full, before (and after) SQLite's own writes do.
 */
async function probeDisk(dir: string): Promise<void> {
  const file = path.join(dir, `.kontor-ready-${process.pid}`);
  try {
    const handle = await fs.promises.open(file, 'w');
    try {
      await handle.write(Buffer.alloc(PROBE_BYTES));
      await handle.sync();
    } finally {
      await handle.close();
    }
  } finally {
    await fs.promises.rm(file, { force: true });
  }
}

/** The storage part of readiness, shared by both databases. */
function storageState(probe: (() => Promise<void>) | undefined) {
  let fullAt: number | undefined;
  return {
    report: () => {
      fullAt = Date.now();
    },
    check: async () => {
      if (probe) {
        try {
          await probe();
        } catch (err) {
          if (isStorageFull(err)) throw new DatabaseNotReady('Storage is full.', { cause: err });
          throw err;
        }
        fullAt = undefined;
        return;
      }
      if (fullAt !== undefined && Date.now() - fullAt < STORAGE_FULL_HOLD_MS)
        throw new DatabaseNotReady('Storage was full moments ago.');
    },
  };
}

// int8 (COUNT(*), SUM of minor units) as a JS number: values stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number(value));

/**
 * Opens the database selected by the configuration. SQLite runs in WAL mode with group commit
 * (an answered write survives power loss; see `GroupSync`) and a busy timeout; PostgreSQL
 * runs on a pool (`DATABASE_POOL_SIZE`) with error listeners on the pool and on every client, so a lost connection
 * becomes a failed query (503) instead of an uncaught error that kills the process.
 */
export function openDatabase(
  config: Pick<Config, 'database'> & Partial<Pick<Config, 'databasePoolSize'>>,
  logger?: Logger,
): Database {
  if (config.database.kind === 'sqlite') {
    const file = config.database.file;
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    const sqlite = new SQLite(file);
    sqlite.pragma('journal_mode = WAL');
    // FULL's durability through group commit: the driver flushes the WAL before answering.
    const memory = file === ':memory:';
    sqlite.pragma(memory ? 'synchronous = FULL' : 'synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    const dataVersion = sqlite.prepare('PRAGMA data_version').pluck();
    const db = new KontorKysely<DB>({
      dialect: new KontorSqliteDialect(sqlite, memory ? undefined : file, checkpointFailed(logger)),
    });
    // Read at most once per event-loop turn: every request of a turn sees the same state,
    // and the pragma stops costing a read transaction per credential lookup.
    let version: number | undefined;
    const externalChangeCounter = () => {
      if (version === undefined) {
        version = dataVersion.get() as number;
        setImmediate(() => (version = undefined));
      }
      return version;
    };
    const dir = path.dirname(file);
    const storage = storageState(file === ':memory:' ? undefined : () => probeDisk(dir));
    return {
      db,
      kind: 'sqlite',
      externalChangeCounter,
      ping: async () => {
        await sql`select 1`.execute(db);
        await storage.check();
      },
      reportStorageFull: storage.report,
      close: () => db.destroy(),
    };
  }
  const pool = new pg.Pool({
    connectionString: config.database.url,
    max: config.databasePoolSize ?? 20,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => logger?.error({ err }, 'idle PostgreSQL client failed'));
  pool.on('connect', (client) => {
    client.on('error', (err) => logger?.error({ err }, 'PostgreSQL client failed'));
  });
  const db = new KontorKysely<DB>({ dialect: new KontorPostgresDialect(pool) });
  const storage = storageState(undefined);
  return {
    db,
    kind: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
      await storage.check();
    },
    reportStorageFull: storage.report,
    close: () => db.destroy(),
  };
}

/** Logs a failed background checkpoint, at most once a minute (a full disk fails every one). */
function checkpointFailed(logger: Logger | undefined): (message: string) => void {
  let last = 0;
  return (message) => {
    if (Date.now() - last < 60_000) return;
    last = Date.now();
    logger?.warn(
      { checkpointError: message },
      'SQLite checkpoint failed; the WAL grows until one succeeds',
    );
  };
}

/**
 * The migrations the database has recorded, or undefined when it has no record yet. Read
 * directly: Kysely's migrator first introspects every table and column of the database to
 * learn whether its own table exists, which costs a catalog scan on every start and fails when
 * another session drops a table meanwhile.
 */
async function recorded(db: Kysely<DB>): Promise<Set<string> | undefined> {
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    return new Set(rows.rows.map((r) => r.name));
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL: whether the server gathers no statistics of its own (`autovacuum` or
 * `track_counts` off). Its planner then knows a table's size but nothing of its columns, and a
 * prepared statement's plan made while a table was small is kept until an ANALYZE, which then
 * never comes: such a plan may read every row of an account where an index gives one
 * (docs/operations.md, "Statistics"). False on SQLite.
 */
export async function statisticsOff(db: Kysely<DB>, kind: DialectKind): Promise<boolean> {
  if (kind !== 'postgres') return false;
  const { rows } = await sql<{ off: boolean }>`select
    current_setting('autovacuum') = 'off' or current_setting('track_counts') = 'off' as off`.execute(
    db,
  );
  return rows[0]?.off === true;
}

/** Applies pending migrations; the same migrations serve both databases. */
export async function migrate(db: Kysely<DB>): Promise<string[]> {
  // Up to date (every migration recorded, none unknown): nothing to lock or apply.
  const done = await recorded(db);
  const names = Object.keys(migrations);
  if (done?.size === names.length && names.every((name) => done.has(name))) return [];
  const migrator = new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(migrations) },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
