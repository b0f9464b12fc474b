import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './database.js';
import { KontorSqliteDialect } from './sqlite-driver.js';
import { walTable, type WalTable } from './sqlite-driver.test-support.js';

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A database in a fresh temporary folder (removed after the test): its file, dir and handle. */
function tempDatabase() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-sqlite-'));
  dirs.push(dir);
  const file = path.join(dir, 'db.sqlite');
  return { dir, file, database: openDatabase({ database: { kind: 'sqlite', file } }) };
}

describe('SQLite group commit', () => {
  it('answers a write only after a WAL flush that began after its commit, and shares flushes', async () => {
    const { dir, file, database } = tempDatabase();
    const db = database.db;
    await sql`create table t (n integer primary key)`.execute(db);
    // A second connection tells what had committed when each flush began.
    const observer = new SQLite(file, { readonly: true });
    const committed = observer.prepare('select n from t').pluck();

    const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
    const handleProto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const realDatasync = handleProto.datasync;
    const flushed = new Set<number>();
    let flushes = 0;
    vi.spyOn(handleProto, 'datasync').mockImplementation(async function (this: unknown) {
      const seen = committed.all() as number[];
      await realDatasync.call(this);
      flushes += 1;
      for (const n of seen) flushed.add(n);
    });

    const early: number[] = [];
    await Promise.all(
      Array.from({ length: 50 }, (_, n) =>
        db
          .transaction()
          .execute(async (trx) => {
            await sql`insert into t (n) values (${n})`.execute(trx);
          })
          .then(() => {
            if (!flushed.has(n)) early.push(n);
          }),
      ),
    );
    // An autocommitted write outside a transaction waits too.
    await sql`insert into t (n) values (${1000})`.execute(db);
    expect(flushed.has(1000)).toBe(true);
    // And one that answers rows (a statement better-sqlite3 runs as a reader).
    await sql`insert into t (n) values (${1001}) returning n`.execute(db);
    expect(flushed.has(1001)).toBe(true);

    expect(early).toEqual([]);
    expect(flushes).toBeGreaterThan(0);
    expect(flushes).toBeLessThan(50);
    expect(database.db).toBe(db);
    observer.close();
    await database.close();
    const pragma = new SQLite(file);
    expect(pragma.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((pragma.prepare('select count(*) from t').pluck().get() as number) === 52).toBe(true);
    pragma.close();
  });

  it('does not flush for reads when nothing was committed', async () => {
    const { dir, database } = tempDatabase();
    await sql`create table t (n integer primary key)`.execute(database.db);
    const probe = await fs.promises.open(path.join(dir, 'probe'), 'w');
    const handleProto = Object.getPrototypeOf(probe) as { datasync: () => Promise<void> };
    await probe.close();
    const spy = vi.spyOn(handleProto, 'datasync');
    await Promise.all(
      Array.from({ length: 20 }, () => sql`select count(*) from t`.execute(database.db)),
    );
    expect(spy).not.toHaveBeenCalled();
    await database.close();
  });
});

describe('SQLite checkpoints', () => {
  it('moves the WAL into the database file on a thread of its own, not in a commit', async () => {
    const { file, database } = tempDatabase();
    const db = database.db;
    // The writer's own checkpoint is off: a COMMIT never copies pages or syncs the file.
    const autocheckpoint = await sql<{
      wal_autocheckpoint: number;
    }>`pragma wal_autocheckpoint`.execute(db);
    expect(autocheckpoint.rows[0]?.wal_autocheckpoint).toBe(0);
    await sql`create table t (n integer primary key, body text not null)`.execute(db);
    const before = fs.statSync(file).size;
    // ~2 MB through the WAL, more than the 1,000 pages after which SQLite would checkpoint.
    for (let i = 0; i < 20; i++)
      await db.transaction().execute(async (trx) => {
        for (let j = 0; j < 25; j++)
          await sql`insert into t (body) values (${'x'.repeat(4000)})`.execute(trx);
      });
    // The thread's checkpoints (every 100 ms) bring the rows into the database file itself.
    const deadline = Date.now() + 5_000;
    while (fs.statSync(file).size < before + 1_500_000 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fs.statSync(file).size).toBeGreaterThan(before + 1_500_000);
    await database.close();
    // Closed: the thread made its last checkpoint and let go of the file; every row is there.
    const reader = new SQLite(file, { readonly: true });
    expect(reader.prepare('select count(*) from t').pluck().get()).toBe(500);
    reader.close();
  });

  /**
   * A database whose writes stop for the WAL to start over after `restartFrames` frames, with
   * a table of rows one page each. `wal()` is the WAL file's size and its header's checkpoint
   * sequence number, which SQLite counts up each time the WAL starts over.
   */
  async function walDatabase(restartFrames: number) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-sqlite-'));
    dirs.push(dir);
    const file = path.join(dir, 'db.sqlite');
    const db = await walTable(file, restartFrames);
    const header = Buffer.alloc(16);
    const wal = () => {
      const fd = fs.openSync(`${file}-wal`, 'r');
      try {
        const read = fs.readSync(fd, header, 0, 16, 0);
        return { size: fs.fstatSync(fd).size, starts: read === 16 ? header.readUInt32BE(12) : 0 };
      } finally {
        fs.closeSync(fd);
      }
    };
    return { db, file, wal };
  }

  /**
   * 20 writers, each inserting one page-sized row after another for `ms`: the rows written,
   * the times the WAL started over and the smallest and largest size of its file meanwhile.
   */
  async function writeWithoutPause(
    db: WalTable,
    wal: () => { size: number; starts: number },
    ms: number,
  ) {
    const until = Date.now() + ms;
    let rows = 0;
    const first = wal();
    let [smallest, largest] = [first.size, first.size];
    const watch = setInterval(() => {
      const { size } = wal();
      smallest = Math.min(smallest, size);
      largest = Math.max(largest, size);
    }, 5);
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (Date.now() < until) {
          await db
            .insertInto('t')
            .values({ body: 'x'.repeat(3500) })
            .execute();
          rows += 1;
        }
      }),
    );
    clearInterval(watch);
    return { rows, starts: wal().starts - first.starts, smallest, largest };
  }

  // Without the stop, 20 writers that never pause keep every checkpoint from finishing, and the
  // WAL starts over once or never (on this machine its file grew to 180 MB in 1.5 s). With it,
  // the WAL starts over after every few hundred frames, even on a machine busy with other work.
  it('starts the WAL over under writes that never pause', async () => {
    const { db, file, wal } = await walDatabase(128);
    const { rows, starts } = await writeWithoutPause(db, wal, 2_000);
    expect(rows).toBeGreaterThan(300);
    expect(starts).toBeGreaterThanOrEqual(4);
    await db.destroy();
    const reader = new SQLite(file, { readonly: true });
    expect(reader.prepare('select count(*) from t').pluck().get()).toBe(rows);
    reader.close();
  });

  // A stop holds the connection while it waits for the thread's checkpoint. In a process with no
  // server, every piece of work then waits on it: the thread itself must keep the process alive
  // meanwhile, or it ends with its work half done (exit code 13 with the thread unreferenced).
  it('keeps a process without a server alive through every stop', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-sqlite-'));
    dirs.push(dir);
    const file = path.join(dir, 'db.sqlite');
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'test/wal-writer-child.ts', file, '3000'],
      { encoding: 'utf8', timeout: 60_000 },
    );
    expect(child.stderr).not.toContain('unsettled');
    expect({ status: child.status, stdout: child.stdout }).toEqual({
      status: 0,
      stdout: 'wrote 3000\n',
    });
    const reader = new SQLite(file, { readonly: true });
    expect(reader.prepare('select count(*) from t').pluck().get()).toBe(3000);
    reader.close();
  });

  it('keeps writing while a reader holds the WAL, and starts it over once the reader is gone', async () => {
    const { db, file, wal } = await walDatabase(128);
    await writeWithoutPause(db, wal, 200);
    // A read transaction of another connection keeps every frame after its snapshot.
    const reader = new SQLite(file, { readonly: true });
    reader.exec('begin');
    const before = reader.prepare('select count(*) from t').pluck().get() as number;
    const during = await writeWithoutPause(db, wal, 1_000);
    expect(during.rows).toBeGreaterThan(150);
    expect(reader.prepare('select count(*) from t').pluck().get()).toBe(before);
    expect(during.starts).toBe(0);
    expect(wal().size).toBeGreaterThan(during.rows * 4096);
    reader.exec('commit');
    reader.close();
    // The first stop after the reader is gone comes a second after the last one it foiled;
    // from then on the WAL starts over, and its file is cut back from the size it had grown to.
    const after = await writeWithoutPause(db, wal, 3_000);
    expect(after.starts).toBeGreaterThanOrEqual(4);
    expect(after.smallest).toBeLessThan(during.largest / 4);
    await db.destroy();
  });
});

type BatchDb = { t: { n: number }; child: { id: number; parent_id: number } };

/** A trigger by which SQLite rolls the whole transaction back when a row over 9 is inserted. */
const OVER_NINE_ROLLS_BACK = `create trigger t_over_nine before insert on t when new.n > 9
  begin select raise(rollback, 'n over nine'); end`;

/** Inserts `n` and swallows its error, as a caller that catches it would. */
const insertCaught = (trx: Kysely<BatchDb>, n: number) =>
  trx
    .insertInto('t')
    .values({ n })
    .execute()
    .catch(() => undefined);

/**
 * Starts `start` in the event loop's next check phase (among the `setImmediate` callbacks, in
 * the order they were asked for); resolves as what it answered.
 */
const inCheckPhase = <T>(start: () => Promise<T>): Promise<T> =>
  new Promise<T>((resolve, reject) => setImmediate(() => void start().then(resolve, reject)));

describe('SQLite batches', () => {
  /**
   * A database file through Kontor's dialect without its group commit (no `file`): a batch
   * then stays open while somebody waits for the connection (up to 64 holders), and to the end
   * of the event loop's turn after while writes come back to back (`openMs`, 10 ms unless
   * given), so the transactions started together below form one. A second connection tells
   * what has been committed.
   */
  function batchDatabase(stallMs?: number, openMs?: number) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-sqlite-'));
    dirs.push(dir);
    const file = path.join(dir, 'db.sqlite');
    const handle = new SQLite(file);
    handle.pragma('journal_mode = WAL');
    handle.pragma('foreign_keys = ON');
    handle.exec(`create table t (n integer primary key);
      create table parent (id integer primary key);
      create table child (id integer primary key,
        parent_id integer references parent (id) deferrable initially deferred);`);
    const db = new Kysely<BatchDb>({
      dialect: new KontorSqliteDialect(handle, undefined, undefined, undefined, stallMs, openMs),
    });
    const observer = new SQLite(file, { readonly: true });
    const committed = () => observer.prepare('select n from t order by n').pluck().all();
    return { db, handle, committed, close: () => (observer.close(), db.destroy()) };
  }

  it('commits the transactions of waiting holders as one; one that rolls back takes only its own writes', async () => {
    const { db, committed, close } = batchDatabase();
    const seen: { inside: unknown[]; committed: unknown[] }[] = [];
    const results = await Promise.allSettled(
      [0, 1, 2, 3, 4].map((n) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ n }).execute();
          const inside = await trx.selectFrom('t').select('n').orderBy('n').execute();
          seen.push({ inside: inside.map((r) => r.n), committed: committed() });
          if (n === 2) throw new Error('two rolls back');
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    // The last transaction saw the earlier ones' writes (not the one rolled back), none of
    // them committed yet: they were one database transaction, committed when all were done.
    expect(seen[4]).toEqual({ inside: [0, 1, 3, 4], committed: [] });
    expect(committed()).toEqual([0, 1, 3, 4]);
    // One at a time, each commits on its own.
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 5 }).execute());
    expect(committed()).toEqual([0, 1, 3, 4, 5]);
    await close();
  });

  it('keeps a batch open to the end of the event loop turn while writes come back to back, though nobody waited', async () => {
    // Writes count as back to back for 10 s here: the test's own pace does not matter.
    const { db, committed, close } = batchDatabase(undefined, 10_000);
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 0 }).execute());
    // Runs in the turn's check phase, before the commit the first transaction's hand-over
    // asked for there: the connection is free, nobody waited for it.
    const second = inCheckPhase(() =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 2 }).execute();
        return committed();
      }),
    );
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    // The second saw the first uncommitted: it ran in the first one's database transaction.
    expect(await second).toEqual([0]);
    expect(committed()).toEqual([0, 1, 2]);
    await close();
  });

  it('commits a transaction that finds nobody waiting at once when writes come at rest', async () => {
    const { db, committed, close } = batchDatabase(300, 10_000);
    // Nothing was committed before: the writes are at rest. The second, begun in the same turn
    // with the connection free, may await the first, which committed as it handed it on.
    const second = inCheckPhase(() =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 2 }).execute();
        await first;
        return committed();
      }),
    );
    const first = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    const started = performance.now();
    expect(await second).toEqual([1]);
    expect(performance.now() - started).toBeLessThan(300);
    expect(committed()).toEqual([1, 2]);
    await close();
  });

  it('never cuts short a member that keeps running statements, however long its batch waits', async () => {
    const { db, committed, close } = batchDatabase(200);
    const first = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 0 }).execute());
    // Queued behind the first, it joins its batch and holds it for about 400 ms, never quiet
    // for 200 ms.
    const member = db.transaction().execute(async (trx) => {
      for (let n = 1; n <= 20; n++) {
        await trx.insertInto('t').values({ n }).execute();
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    });
    const results = await Promise.allSettled([first, member]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(committed()).toHaveLength(21);
    await close();
  });

  it('answers every holder of a batch whose commit failed with its error, and keeps none of its writes', async () => {
    const { db, committed, close } = batchDatabase();
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute()),
      // A read outside a transaction commits the open batch first: it reads only what is
      // committed, and waits for no batch.
      db.selectFrom('t').select('n').execute(),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 2 }).execute();
        // Checked only at COMMIT: the batch's commit fails.
        await trx.insertInto('child').values({ id: 1, parent_id: 99 }).execute();
      }),
      // A write outside a transaction joins the open batch.
      db.insertInto('t').values({ n: 3 }).execute(),
      db.transaction().execute((trx) => trx.insertInto('t').values({ n: 4 }).execute()),
    ]);
    expect(results[0].status).toBe('fulfilled');
    expect(results[1]).toEqual({ status: 'fulfilled', value: [{ n: 1 }] });
    for (const r of results.slice(2)) {
      expect(r.status).toBe('rejected');
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY constraint failed/);
    }
    expect(committed()).toEqual([1]);
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 5 }).execute());
    expect(committed()).toEqual([1, 5]);
    await close();
  });

  it('lets a transaction await a read it started before it: the read waits for no batch', async () => {
    const { db, committed, close } = batchDatabase();
    const first = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    const early = db.selectFrom('t').select('n').execute();
    const later = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 2 }).execute();
      return (await early).length;
    });
    await first;
    expect(await later).toBe(1);
    expect(committed()).toEqual([1, 2]);
    await close();
  });

  it('makes a member that holds up its batch give its place back: a 503 for it, the others committed', async () => {
    const { db, committed, close } = batchDatabase(50);
    const first = db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
    // A write outside a transaction joins the batch and waits for its commit, which waits for
    // the member below, which waits for the write: after 50 ms the member gives way.
    const early = db.insertInto('t').values({ n: 2 }).execute();
    const member = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 3 }).execute();
      await early;
      await trx.insertInto('t').values({ n: 4 }).execute();
    });
    const results = await Promise.allSettled([first, early, member]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((results[2] as PromiseRejectedResult).reason).toMatchObject({
      code: 'service_unavailable',
      status: 503,
    });
    expect(committed()).toEqual([1, 2]);
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 5 }).execute());
    expect(committed()).toEqual([1, 2, 5]);
    await close();
  });

  it('fails a connection() block whose earlier transaction a later one lost, though it resolved', async () => {
    const { db, handle, committed, close } = batchDatabase();
    handle.exec(OVER_NINE_ROLLS_BACK);
    const outcome = db.connection().execute(async (conn) => {
      // Resolves with its batch still open (committed when the block hands the connection on).
      await conn.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute());
      // Joins that batch, and SQLite rolls all of it back.
      await conn
        .transaction()
        .execute((trx) => trx.insertInto('t').values({ n: 10 }).execute())
        .catch(() => undefined);
      await conn.transaction().execute((trx) => trx.insertInto('t').values({ n: 2 }).execute());
    });
    await expect(outcome).rejects.toThrow(/n over nine/);
    expect(committed()).toEqual([2]);
    await close();
  });

  it('gives each holder of a batch the stall time anew: members that wait a while are not refused', async () => {
    const { db, committed, close } = batchDatabase(200);
    // Eight transactions of 60 ms each: the batch stays open for about half a second, but no
    // holder keeps it for 200 ms.
    const results = await Promise.allSettled(
      [0, 1, 2, 3, 4, 5, 6, 7].map((n) =>
        db.transaction().execute(async (trx) => {
          await trx.insertInto('t').values({ n }).execute();
          await new Promise((resolve) => setTimeout(resolve, 60));
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(8).fill('fulfilled'));
    expect(committed()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await close();
  });

  it('refuses to go on with a transaction whose batch SQLite rolled back, even if it caught the error', async () => {
    const { db, handle, committed, close } = batchDatabase();
    handle.exec(OVER_NINE_ROLLS_BACK);
    const outcome = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 1 }).execute();
      await insertCaught(trx, 10);
      await trx.insertInto('t').values({ n: 2 }).execute();
    });
    await expect(outcome).rejects.toThrow(/n over nine/);
    // Nor does it commit when it runs nothing more after catching.
    const quiet = db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({ n: 3 }).execute();
      await insertCaught(trx, 11);
    });
    await expect(quiet).rejects.toThrow(/n over nine/);
    expect(committed()).toEqual([]);
    await close();
  });

  it('answers every holder with the error when SQLite rolls the whole transaction back', async () => {
    const { db, handle, committed, close } = batchDatabase();
    handle.exec(OVER_NINE_ROLLS_BACK);
    const results = await Promise.allSettled([
      db.transaction().execute((trx) => trx.insertInto('t').values({ n: 1 }).execute()),
      db.insertInto('t').values({ n: 2 }).execute(),
      db.transaction().execute(async (trx) => {
        await trx.insertInto('t').values({ n: 3 }).execute();
        await trx.insertInto('t').values({ n: 10 }).execute();
      }),
    ]);
    for (const r of results) {
      expect(r.status).toBe('rejected');
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/n over nine/);
    }
    expect(committed()).toEqual([]);
    // The connection is clean: the next transaction opens a batch of its own.
    await db.transaction().execute((trx) => trx.insertInto('t').values({ n: 4 }).execute());
    expect(committed()).toEqual([4]);
    await close();
  });
});
