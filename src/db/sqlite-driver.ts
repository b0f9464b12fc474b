import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';
import { AppError } from '../shared/errors.js';
import { FifoLock } from '../shared/fifo-lock.js';
import { withIndexedConstant } from './partial-index-constants.js';
import {
  type CompiledQuery,
  SelectQueryNode,
  SqliteAdapter,
  SqliteDialect,
  SqliteQueryCompiler,
  ValueNode,
  type BinaryOperationNode,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type LimitNode,
  type OffsetNode,
  type OperationNode,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** A row as an object, from the array of a raw statement. */
type RowBuilder = (values: unknown[]) => Record<string, unknown>;

/**
 * A builder for a statement's rows: an object literal of its columns, compiled once per
 * statement. better-sqlite3 makes row objects through V8's API, property by property; a raw
 * row (an array) turned into an object by compiled JavaScript costs a third less for a page of
 * 26 wide rows (181 → 115 µs, 26 partners). Column names come from SQLite's description of our
 * own SQL and are written in as JSON strings; a repeated name keeps its last value, as before.
 */
function rowBuilder(columns: string[]): RowBuilder {
  const fields = columns.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- compiled from column names, see above
  return new Function('v', `return { ${fields} };`) as RowBuilder;
}

interface Prepared {
  stmt: SQLite.Statement;
  /** Readers only: raw mode, with the builder of their rows. */
  build?: RowBuilder;
  /** A reader that writes (`insert … returning`). */
  writes?: boolean;
}

/** Runs statements on the one better-sqlite3 handle, prepared once per SQL text. */
class Connection implements DatabaseConnection {
  private readonly statements = new Map<string, Prepared>();
  /** Commits so far: autocommitted writes and COMMITs (see `GroupSync`). */
  commits = 0;
  /** Streams being read: the connection runs no other statement meanwhile. */
  streams = 0;

  constructor(
    private readonly db: SQLite.Database,
    /** The driver's look at each statement of a holder, before it runs and when it failed. */
    private readonly hooks: StatementHooks,
    private readonly maxStatements = 500,
  ) {}

  private prepare(sql: string): Prepared {
    let prepared = this.statements.get(sql);
    if (prepared) return prepared;
    const stmt = this.db.prepare(sql);
    prepared = stmt.reader
      ? {
          stmt: stmt.raw(true),
          build: rowBuilder(stmt.columns().map((c) => c.name)),
          writes: !stmt.readonly,
        }
      : { stmt };
    if (this.statements.size >= this.maxStatements)
      this.statements.delete(this.statements.keys().next().value!);
    this.statements.set(sql, prepared);
    return prepared;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const prepared = this.prepare(query.sql);
    this.hooks.before(prepared.stmt.readonly);
    try {
      return this.runPrepared<R>(prepared, query.parameters as unknown[]);
    } catch (err) {
      this.hooks.failed(err);
      throw err;
    }
  }

  /**
   * Runs a statement at once (better-sqlite3 is synchronous) without the hooks: the driver's
   * own transaction statements. Throws what SQLite throws.
   */
  run(sql: string): void {
    void this.runPrepared(this.prepare(sql), []);
  }

  private runPrepared<R>(prepared: Prepared, params: unknown[]): Promise<QueryResult<R>> {
    const { stmt, build, writes } = prepared;
    if (build) {
      const rows = (stmt.all(params) as unknown[][]).map(build) as R[];
      // An autocommitted write that answers rows is a commit as any other (`GroupSync`).
      if (writes && !this.db.inTransaction) this.commits += 1;
      return Promise.resolve({ rows });
    }
    const { changes, lastInsertRowid } = stmt.run(params);
    if (!this.db.inTransaction) this.commits += 1;
    return Promise.resolve({
      rows: [],
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
    });
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams SELECT queries only');
    const { stmt, build } = this.prepare(query.sql);
    const hooks = this.hooks;
    hooks.before(true);
    const rows = stmt.iterate(query.parameters) as Iterable<unknown[]>;
    this.streams += 1;
    const ended = () => (this.streams -= 1);
    return (async function* () {
      try {
        for (const row of rows) yield await Promise.resolve({ rows: [build!(row) as R] });
      } catch (err) {
        hooks.failed(err);
        throw err;
      } finally {
        ended();
      }
    })();
  }
}

/** What the driver does around each statement a holder of the connection runs. */
interface StatementHooks {
  /** Before the statement (`readonly`: it changes nothing); throws to refuse it. */
  before(readonly: boolean): void;
  /** The statement failed, with `err`; the error goes on to the holder after this. */
  failed(err: unknown): void;
}

/**
 * Group commit with the durability of `synchronous=FULL`. The connection runs WAL with
 * `synchronous=NORMAL`: a COMMIT appends its frames to the WAL without waiting for the disk.
 * Before a caller that committed — or read after a commit — gets its answer, the WAL file is
 * flushed to the disk (`fdatasync`, on libuv's thread pool, not on the event loop), and one
 * flush covers every commit made before it started. So an answered write survives power loss
 * as before, while the event loop keeps serving during the flush and a burst of writes shares
 * one flush instead of paying one each. SQLite recovers the WAL's committed frames at the next
 * open; checkpoints flush the WAL and the database themselves.
 */
class GroupSync {
  private synced = 0;
  private flushing: Promise<void> | undefined;
  private handle: fs.promises.FileHandle | undefined;

  constructor(
    private readonly walFile: string,
    /** Commits made so far: a flush covers all that were made when it began. */
    private readonly commits: () => number,
  ) {}

  /** A flush is under way: a commit made now waits for the next one anyway. */
  get busy(): boolean {
    return this.flushing !== undefined;
  }

  /** Resolves once every commit made so far is on the disk. */
  async durable(): Promise<void> {
    const target = this.commits();
    while (this.synced < target) {
      if (!this.flushing) {
        const upTo = this.commits();
        this.flushing = this.flush()
          .then(() => {
            this.synced = Math.max(this.synced, upTo);
          })
          .finally(() => {
            this.flushing = undefined;
          });
      }
      await this.flushing;
    }
  }

  private async flush(): Promise<void> {
    // The WAL file lives as long as a connection is open (this process holds one).
    this.handle ??= await fs.promises.open(this.walFile, 'r+');
    await this.handle.datasync();
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.handle?.close();
  }
}

/** How often the checkpoint thread moves the WAL into the database file. */
const CHECKPOINT_MS = 100;

/**
 * WAL frames (pages of 4 KiB) after which the writes stop for a moment so that the WAL can
 * start over (`Checkpointer`, "Starting the WAL over"): 64 MiB.
 */
const WAL_RESTART_FRAMES = 16_384;

/** After a stop that could not bring the whole WAL in (a reader held it), none for this long. */
const RESTART_RETRY_MS = 1_000;

/**
 * The most frames a checkpoint may have left behind for a stop to follow it (16 MiB): a stop
 * copies that rest and what came since, while requests wait. A checkpoint leaves more when a
 * reader holds frames back; those are left to the next checkpoints, which stop nothing.
 */
const RESTART_MAX_LEFT = 4_096;

/**
 * A checkpoint of a large WAL that took longer than this (it copied a backlog, or the disk was
 * slow) had as long for new frames to come in behind it: the thread runs the next one at once,
 * up to 5 times while they stay slow, before it asks for the stop, so that the stop copies less.
 */
const QUICK_CHECKPOINT_MS = 20;

/**
 * The checkpoint thread's script: its own connection to the database file, a PASSIVE
 * checkpoint every `intervalMs`, one more when asked (`now`, answered with the frames it could
 * not bring in, -1 when it could not run), and a last one when told to stop. A checkpoint of a
 * WAL of `restartFrames` or more that left at most `maxLeft` behind asks for a stop (`full`).
 * Inline, so it runs the same from the sources (tests) and from `dist/`.
 */
const CHECKPOINT_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
const checkpoint = () => {
  try {
    const done = db.pragma('wal_checkpoint(PASSIVE)')[0];
    // busy: another connection was checkpointing, and nothing was done.
    return done.busy || done.log < 0 ? undefined : done;
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
    return undefined;
  }
};
const timed = () => {
  const started = performance.now();
  const done = checkpoint();
  return done && { done, quick: performance.now() - started <= workerData.quickMs };
};
const timer = setInterval(() => {
  let run = timed();
  if (!run || run.done.log < workerData.restartFrames) return;
  for (let i = 0; run && !run.quick && i < 5; i++) run = timed();
  if (run && run.done.log - run.done.checkpointed <= workerData.maxLeft)
    parentPort.postMessage({ full: run.done.log });
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message === 'now') {
    const done = checkpoint();
    parentPort.postMessage({ left: done ? done.log - done.checkpointed : -1 });
    return;
  }
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** What the checkpoint thread tells the writer. */
type CheckpointMessage = { error: string } | { full: number } | { left: number };

/**
 * Checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that
 * takes the WAL past 1,000 pages: it copies the pages into the database file and (with
 * `synchronous=NORMAL`) syncs the WAL before and the database after, two `fsync`s on the event
 * loop every few hundred writes, during which no request moves. The connection's automatic
 * checkpoint is off instead, and a worker thread with a connection of its own runs a PASSIVE
 * checkpoint every CHECKPOINT_MS: it copies what no reader still needs and never waits for or
 * blocks the writer.
 *
 * Starting the WAL over. The writer starts the WAL from its beginning only when a checkpoint
 * has brought all of it into the database file; under writes that never pause, every PASSIVE
 * checkpoint ends with newer frames behind it, and the WAL grew without end (1.2 GB in 16 s of
 * partner creates), each commit's flush growing the file and each read searching a larger WAL
 * index. So once a checkpoint of WAL_RESTART_FRAMES or more leaves a little behind (`onFull`),
 * the driver takes the connection in its turn, asks for one more checkpoint (`now`), which then
 * brings in everything, and hands the connection on: the next write starts the WAL over.
 * Requests wait for that checkpoint, which copies what the last one left (at most
 * RESTART_MAX_LEFT frames) and what came since, and the first commit after it for SQLite's sync
 * of the new WAL header, on the event loop as every such start was before.
 */
class Checkpointer {
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private closing = false;
  /** The thread ended (closed, or died). */
  private ended = false;
  private asked: ((left: number) => void) | undefined;

  constructor(
    db: SQLite.Database,
    file: string,
    onError: (message: string) => void,
    onFull: () => void,
    restartFrames: number,
  ) {
    db.pragma('wal_autocheckpoint = 0');
    // A WAL grown past twice the restart point (a reader kept it from starting over) is cut
    // back to that when it does.
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`journal_size_limit = ${2 * restartFrames * pageSize}`);
    this.worker = new Worker(CHECKPOINT_SCRIPT, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        file,
        intervalMs: CHECKPOINT_MS,
        restartFrames,
        maxLeft: RESTART_MAX_LEFT,
        quickMs: QUICK_CHECKPOINT_MS,
      },
    });
    this.worker.on('message', (message: CheckpointMessage) => {
      if ('error' in message) onError(message.error);
      else if ('full' in message) onFull();
      else this.answer(message.left);
    });
    this.worker.on('error', (err: Error) => onError(err.message));
    this.exited = new Promise((resolve) =>
      this.worker.once('exit', () => {
        resolve();
        this.ended = true;
        this.answer(-1);
        if (this.closing) return;
        // A thread that died (it could not open the file) checkpoints no more: the writer
        // takes the checkpoints back, as SQLite does by default, rather than grow the WAL.
        db.pragma('wal_autocheckpoint = 1000');
        onError('the checkpoint thread ended; the writer checkpoints again');
      }),
    );
    // The thread does not keep the process alive; `close` ends it with a last checkpoint.
    this.worker.unref();
  }

  /** A checkpoint now; resolves with the frames it could not bring in (-1: it failed). */
  now(): Promise<number> {
    if (this.closing || this.ended) return Promise.resolve(-1);
    // Referenced while the answer is awaited: the connection is held meanwhile, so a process
    // whose work all waits for it (a command without a server) would otherwise end here.
    this.worker.ref();
    return new Promise((resolve) => {
      this.asked = resolve;
      this.worker.postMessage('now');
    });
  }

  private answer(left: number): void {
    const asked = this.asked;
    this.asked = undefined;
    if (asked && !this.closing && !this.ended) this.worker.unref();
    asked?.(left);
  }

  async close(): Promise<void> {
    // Referenced again: a process with nothing else to do must not end while it waits here.
    this.closing = true;
    this.worker.ref();
    this.worker.postMessage('close');
    await this.exited;
  }
}

/** Holders after which an open batch commits even with others waiting (see `Batch`). */
const BATCH_MAX_HOLDERS = 64;

/**
 * When nobody waits for the connection, a batch stays open for more holders up to the end of
 * the event loop's turn only while writes come back to back: the last batch committed less
 * than this long ago, and this one has not been open for longer (see `Batch`).
 */
const BATCH_OPEN_MS = 10;

/**
 * How long the holder of the connection may run no statement while a batch's earlier holders
 * wait for it, before a member is made to give its place back (see `Batch`).
 */
const BATCH_STALL_MS = 5_000;

/** The savepoint of a transaction that joins an open batch. */
const MEMBER_SAVEPOINT = 'kontor_batch_member';

/**
 * Transactions of several holders of the connection committed as one (group commit on the
 * CPU's side, beside `GroupSync` on the disk's). A commit writes every page its transaction
 * changed to the WAL; consecutive partner creates change the same dozen and a half pages (the
 * table's and its indexes' last leaves, the audit chain's head, the number sequence), so each
 * paid for writing them all again. Under load the queue for the connection is rarely empty:
 * the first transaction of a batch opens the database transaction (`BEGIN IMMEDIATE`) and
 * leaves it open when others wait; each later one runs in a savepoint of it, released on its
 * commit and rolled back on its rollback, so each stays all-or-nothing on its own. A write
 * outside a transaction joins the batch as it is; a read outside a transaction commits the
 * batch first, so it reads only what is committed and waits for no batch. When a holder hands
 * the connection on to one that waits, the batch commits if no WAL flush is under way (while
 * one is, its members would wait for the next flush anyway, so it stays open). When nobody
 * waits while writes come back to back (the last batch committed less than BATCH_OPEN_MS ago),
 * it stays open until the end of the event loop's turn (its next check phase), for the
 * transactions that the requests read meanwhile begin: a transaction that awaits nothing slower
 * than SQLite runs from its begin to its commit without letting another request in, so under
 * load the next one rarely waits for the connection. It commits at a hand-over once it has been
 * open for BATCH_OPEN_MS, and at once after BATCH_MAX_HOLDERS holders. At rest, a holder that
 * finds nobody waiting commits as it hands the connection on.
 *
 * No holder of the connection while a batch was open gets its answer (its query or its
 * transaction resolving) before the batch is committed and flushed; members read the earlier
 * holders' rows inside their transactions, as any transaction reads its own. When the commit
 * fails (disk full), or SQLite rolls the whole transaction back after an error (SQLITE_FULL,
 * SQLITE_IOERR), every such holder gets that error, nothing of the batch is left behind, and
 * the transaction whose statement it was can neither run more statements nor commit. A member
 * that keeps its savepoint open while it waits for something else holds up the batch's earlier
 * holders; should it wait for one of them (a promise it started before its transaction), neither
 * could go on. A member that has run no statement for BATCH_STALL_MS (since its last one, or since
 * it took the connection) while others wait on its batch is rolled back to its savepoint, the batch
 * commits without it, and its transaction fails with a 503 (try again): a transaction that joins a
 * batch may wait that long between two statements, not more; one that keeps running statements is
 * never cut short, nor is one reading a stream (the connection can run nothing else meanwhile, so
 * it is left to end). Under load any transaction may find a batch open and join it, also one that
 * found the connection free, so none should await work begun before it on this database. In a
 * `connection()` block, a transaction is committed by the time the block ends, not when the
 * transaction's `execute` resolves.
 */
class Batch {
  /** Holders that had the connection while it was open. */
  holders = 0;
  /** When it was opened (`performance.now()`). */
  readonly opened = performance.now();
  /** A commit at the end of the event loop's turn is asked for (`commitSoon`). */
  soon = false;
  /** Resolves once the batch is committed; rejects with what made it fail. */
  readonly done: Promise<void>;
  private settle!: (err?: Error) => void;
  private stall: NodeJS.Timeout | undefined;

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (err) => (err === undefined ? resolve() : reject(err));
    });
    // A batch that fails while no holder awaits it yet is no unhandled rejection.
    this.done.catch(() => undefined);
  }

  /**
   * Calls `stalled` after `ms` unless the batch has ended or been watched anew by then (at each
   * hand-over, and while its holder keeps running statements: see `unstall`). Kept referenced:
   * a process with nothing else to do must still see a stall broken.
   */
  watch(ms: number, stalled: () => void): void {
    clearTimeout(this.stall);
    this.stall = setTimeout(stalled, ms);
  }

  committed(): void {
    clearTimeout(this.stall);
    this.settle();
  }

  failed(err: unknown): void {
    clearTimeout(this.stall);
    this.settle(asError(err));
  }
}

const asError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));

/** `run`'s outcome as a promise: resolved, or rejected with what it threw. */
function settled(run: () => void): Promise<void> {
  try {
    run();
    return Promise.resolve();
  } catch (err) {
    return Promise.reject(asError(err));
  }
}

/**
 * This process's batches that wait for the end of the event loop's turn to commit
 * (`commitSoon`), by driver, each with its commit. Two connections to one file in one process
 * (tests: a second app stands in for the CLI, which runs as a process of its own) would
 * otherwise hold each other up: SQLite's wait for the write lock (busy timeout) is synchronous,
 * so while the second waits, the turn never ends and the first's commit never comes. Before a
 * driver takes the write lock, it commits the others' waiting batches.
 */
const waitingCommits = new Map<KontorSqliteDriver, () => void>();

class KontorSqliteDriver implements Driver {
  /**
   * The single connection, handed from one holder straight to the next in arrival order
   * (Kysely's own mutex wakes every waiter on each release and lets them race, so a long queue
   * is served in no particular order).
   */
  private readonly lock = new FifoLock();
  private readonly connection: Connection;
  private readonly sync: GroupSync | undefined;
  private readonly checkpointer: Checkpointer | undefined;
  /** A stop to start the WAL over is under way, or none is tried before this time. */
  private restartBlockedUntil = 0;
  /** Commits made when the last stop brought the whole WAL in: none since, no stop needed. */
  private restartedAt = -1;
  /** The database transaction open across holders (see `Batch`). */
  private batch: Batch | undefined;
  /**
   * What the holder of the connection runs: statements, the batch's first transaction, or a
   * savepoint of it.
   */
  private holding: 'statements' | 'opener' | 'member' = 'statements';
  /** The holder's transaction can go on no more: its statements and its commit throw this. */
  private refused: Error | undefined;
  /**
   * The batches the holder wrote into (more than one only in a `connection()` block): it waits
   * for their outcome when it hands the connection on, also for those that ended meanwhile.
   */
  private joined: Batch[] = [];
  /**
   * A rollback of the driver's own could not run: the transaction it meant to end may still be
   * open, and is rolled back before anything else runs (see `recover`).
   */
  private stranded = false;
  /** When the holder last ran a statement, or took the connection (`performance.now()`). */
  private active = 0;
  /** When the last batch committed (`performance.now()`): writes come back to back. */
  private committedAt = -Infinity;

  constructor(
    private readonly db: SQLite.Database,
    file: string | undefined,
    onCheckpointError: (message: string) => void,
    restartFrames: number,
    private readonly batchStallMs: number,
    private readonly batchOpenMs: number,
  ) {
    this.connection = new Connection(db, {
      before: (readonly) => this.beforeStatement(readonly),
      failed: (err) => this.statementFailed(err),
    });
    if (file === undefined) return;
    this.sync = new GroupSync(`${file}-wal`, () => this.connection.commits);
    this.checkpointer = new Checkpointer(
      db,
      file,
      onCheckpointError,
      () => void this.restartWal().catch((err: unknown) => onCheckpointError(String(err))),
      restartFrames,
    );
  }

  /**
   * Holds the connection (reads and writes wait in line) while the checkpoint thread brings
   * the whole WAL into the database file, so that the next write starts the WAL over (see
   * `Checkpointer`). A reader of another connection can keep frames from being brought in:
   * then the next try waits RESTART_RETRY_MS.
   */
  private async restartWal(): Promise<void> {
    if (Date.now() < this.restartBlockedUntil || !this.checkpointer) return;
    // Nothing written since the last stop brought everything in: the WAL starts over with the
    // next write (the checkpoints report its size until then).
    if (this.connection.commits === this.restartedAt) return;
    this.restartBlockedUntil = Infinity;
    const wait = this.lock.acquire();
    if (wait) await wait;
    let left = -1;
    try {
      // The checkpoint brings in committed frames only.
      if (this.batch) this.commitBatch(this.batch);
      left = await this.checkpointer.now();
    } finally {
      if (left === 0) this.restartedAt = this.connection.commits;
      this.lock.release();
      this.restartBlockedUntil = left === 0 ? 0 : Date.now() + RESTART_RETRY_MS;
    }
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const wait = this.lock.acquire();
    if (wait) await wait;
    return this.connection;
  }

  /**
   * `BEGIN IMMEDIATE`: the write lock is taken up front, so a transaction that reads first
   * and writes later waits (busy timeout) for another process's write instead of failing
   * with SQLITE_BUSY when it upgrades. A transaction that finds a batch open joins it in a
   * savepoint (see `Batch`).
   */
  beginTransaction(_connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    return settled(() => this.begin());
  }

  private begin(): void {
    this.refused = undefined;
    this.recover();
    // A batch whose transaction SQLite ended by itself unseen is lost, not joined.
    if (this.batch && !this.db.inTransaction)
      this.loseBatch(this.batch, new Error('SQLite ended the transaction of the open batch'));
    if (this.batch) {
      this.control(`savepoint ${MEMBER_SAVEPOINT}`);
      this.holding = 'member';
      this.join(this.batch);
      return;
    }
    this.commitOthers();
    this.control('begin immediate');
    this.batch = new Batch();
    this.holding = 'opener';
    this.join(this.batch);
  }

  private join(batch: Batch): void {
    if (this.joined[this.joined.length - 1] !== batch) this.joined.push(batch);
  }

  /**
   * After a rollback of the driver's own that could not run: rolls back what may still be open
   * before anything else runs; while that fails, nothing runs on the connection.
   */
  private recover(): void {
    if (!this.stranded) return;
    try {
      if (this.db.inTransaction) this.db.exec('rollback');
      this.stranded = false;
    } catch (err) {
      throw new Error(
        `The SQLite connection is left in a transaction it cannot roll back: ${asError(err).message}`,
        { cause: err },
      );
    }
  }

  /** Releases a member's savepoint; the batch commits when the connection is handed on. */
  commitTransaction(_connection: DatabaseConnection): Promise<void> {
    return settled(() => this.commit());
  }

  private commit(): void {
    if (this.refused) throw this.refused;
    if (this.holding === 'member') this.control(`release ${MEMBER_SAVEPOINT}`);
    this.holding = 'statements';
  }

  /**
   * A member rolls back to its savepoint. The batch's first transaction is its only member
   * until it hands the connection on, so it rolls the whole transaction back. SQLite rolls a
   * transaction back by itself after some errors (SQLITE_FULL, SQLITE_IOERR, an interrupted
   * commit); a second `rollback` would then fail with "no transaction is active" and hide the
   * original error, which decides the answer (507, not 500): such a batch is already lost.
   */
  rollbackTransaction(_connection: DatabaseConnection): Promise<void> {
    return settled(() => this.rollback());
  }

  private rollback(): void {
    const holding = this.holding;
    const refused = this.refused;
    this.holding = 'statements';
    // The transaction ends here: what refused it refuses nothing after it.
    this.refused = undefined;
    if (refused || holding === 'statements' || !this.db.inTransaction) return;
    const batch = this.batch;
    try {
      if (holding === 'member') {
        this.rollbackMember();
        return;
      }
      this.control('rollback');
      this.batch = undefined;
      batch?.committed();
    } catch (err) {
      // A rollback that failed leaves the batch in no known state: all of it is given up.
      if (this.batch) this.loseBatch(this.batch, err);
      throw err;
    }
  }

  /**
   * Commits an open batch, or leaves it open for the next holders (see `Batch`); hands the
   * connection on; then waits until what this holder may have seen is committed and durable.
   */
  async releaseConnection(): Promise<void> {
    const batch = this.batch;
    const joined = this.joined;
    this.holding = 'statements';
    this.refused = undefined;
    if (joined.length > 0) this.joined = [];
    try {
      if (batch !== undefined) {
        batch.holders += 1;
        const now = performance.now();
        const keep = this.lock.queued
          ? this.sync === undefined || this.sync.busy
          : now - batch.opened < this.batchOpenMs && now - this.committedAt < this.batchOpenMs;
        if (!keep || batch.holders >= BATCH_MAX_HOLDERS) this.commitBatch(batch);
        else {
          if (!this.lock.queued) this.commitSoon(batch);
          this.watchStall(batch);
        }
      }
    } finally {
      this.lock.release();
    }
    if (joined.length === 1) await joined[0]!.done;
    else if (joined.length > 1) {
      // Every one settled before the answer, so that none commits after it; the first loss wins.
      const lost = (await Promise.allSettled(joined.map((each) => each.done))).find(
        (outcome) => outcome.status === 'rejected',
      );
      if (lost) throw lost.reason;
    }
    if (this.sync) await this.sync.durable();
  }

  /**
   * Commits `batch` at the end of the event loop's turn if nobody holds the connection then;
   * a holder that does hands it on through `releaseConnection`, which decides again.
   */
  private commitSoon(batch: Batch): void {
    if (batch.soon) return;
    batch.soon = true;
    const commit = () => {
      if (this.batch !== batch || !this.lock.idle) return;
      waitingCommits.delete(this);
      void this.lock.acquire();
      try {
        this.commitBatch(batch);
      } finally {
        this.lock.release();
      }
    };
    waitingCommits.set(this, commit);
    setImmediate(() => {
      batch.soon = false;
      if (waitingCommits.get(this) === commit) waitingCommits.delete(this);
      commit();
    });
  }

  /** Commits the batches other drivers of this process keep open for the turn's end. */
  private commitOthers(): void {
    if (waitingCommits.size === 0) return;
    for (const [driver, commit] of waitingCommits) if (driver !== this) commit();
  }

  /** A statement of the holder is about to run. */
  private beforeStatement(readonly: boolean): void {
    if (this.refused) throw this.refused;
    if (this.batch) this.active = performance.now();
    if (this.holding !== 'statements') return;
    this.recover();
    // A read outside a transaction reads what is committed and waits for no batch; a write
    // joins the open batch.
    if (this.batch && readonly) {
      this.commitBatch(this.batch);
      this.recover();
    } else if (this.batch) this.join(this.batch);
    else if (!readonly && !this.db.inTransaction) this.commitOthers();
  }

  /** A statement failed: if SQLite rolled the whole transaction back, the batch is lost. */
  private statementFailed(err: unknown): void {
    if (this.batch !== undefined && !this.db.inTransaction) this.loseBatch(this.batch, err);
  }

  /** One of the driver's own transaction statements; a failure is seen as any other. */
  private control(sql: string): void {
    try {
      this.connection.run(sql);
    } catch (err) {
      this.statementFailed(err);
      throw err;
    }
  }

  /** Commits the open batch (the connection is held); its holders learn how it went. */
  private commitBatch(batch: Batch): void {
    this.batch = undefined;
    this.committedAt = performance.now();
    try {
      this.connection.run('commit');
    } catch (err) {
      // A commit that failed may leave the transaction open (SQLITE_BUSY, SQLITE_FULL).
      this.rollbackQuietly();
      batch.failed(err);
      return;
    }
    batch.committed();
  }

  /**
   * Gives the batch up: its transaction rolled back (if SQLite has not), its holders told
   * `err`, and the holder's own transaction, if it was in it, refused from now on.
   */
  private loseBatch(batch: Batch, err: unknown): void {
    this.batch = undefined;
    this.rollbackQuietly();
    batch.failed(err);
    if (this.holding !== 'statements') this.refused = asError(err);
  }

  /**
   * Rolls back what is open; the error that led here is the one that counts. A rollback that
   * cannot run (a stream still being read) is tried again before the next statement.
   */
  private rollbackQuietly(): void {
    try {
      if (this.db.inTransaction) this.db.exec('rollback');
    } catch {
      this.stranded = true;
    }
  }

  /** A member's transaction undone: its savepoint rolled back and released. */
  private rollbackMember(): void {
    this.control(`rollback to ${MEMBER_SAVEPOINT}`);
    this.control(`release ${MEMBER_SAVEPOINT}`);
  }

  /**
   * Breaks a stall of `batch` if the holder that takes it now runs no statement for
   * BATCH_STALL_MS.
   */
  private watchStall(batch: Batch): void {
    this.active = performance.now();
    this.unstallIn(batch, this.batchStallMs);
  }

  /** Looks at `batch` for a stall again in `ms`. */
  private unstallIn(batch: Batch, ms: number): void {
    batch.watch(ms, () => this.unstall(batch));
  }

  /**
   * The batch's holders have waited BATCH_STALL_MS for the holder now in it, which ran no
   * statement meanwhile: a member keeping its savepoint open gives its place back (rolled back,
   * its transaction refused with a 503), and the batch commits without it.
   */
  private unstall(batch: Batch): void {
    if (this.batch !== batch) return;
    // A stream being read keeps the connection busy: look again later.
    if (this.connection.streams > 0) {
      this.unstallIn(batch, this.batchStallMs);
      return;
    }
    // A holder that ran a statement since: look again when it has been quiet for long enough.
    const quiet = performance.now() - this.active;
    if (quiet < this.batchStallMs) {
      this.unstallIn(batch, this.batchStallMs - quiet);
      return;
    }
    if (this.holding === 'member') {
      try {
        this.rollbackMember();
      } catch (err) {
        if (this.batch) this.loseBatch(this.batch, err);
        return;
      }
      this.refused = new AppError(
        'service_unavailable',
        'The database was held up by this request for too long; try again.',
        { headers: { 'retry-after': '1' } },
      );
    }
    this.commitBatch(batch);
  }

  async destroy(): Promise<void> {
    // In its turn: an open batch is committed between two holders, not inside one's savepoint.
    const wait = this.lock.acquire();
    if (wait) await wait;
    try {
      if (this.batch) this.commitBatch(this.batch);
      await this.checkpointer?.close();
      await this.sync?.close();
      this.db.close();
    } finally {
      // Whoever still waits finds the connection closed.
      this.lock.release();
    }
  }
}

/**
 * Kysely's SQLite adapter assumes one process: its migration lock is a no-op and migrations
 * run outside a transaction. Two processes starting on one file (a server and the CLI after
 * an upgrade; test/two-process.test.ts) then both ran the pending migrations ("table accounts
 * already exists", or half a migration applied). SQLite's DDL is transactional, so migrations
 * run in one transaction, which this driver starts with `BEGIN IMMEDIATE`: the second process
 * waits for the first (busy timeout), then finds nothing left to do, and a migration that
 * fails leaves nothing behind.
 */
class TransactionalDdlAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  /**
   * Kysely (0.29+) serialises the connections of a dialect that says it has one, and frees the
   * next only when `releaseConnection` has returned — here, after the group commit's flush, so
   * every write would wait for the one before it to reach the disk (one flush each, no
   * sharing). This driver has its own FIFO lock, handed on before the flush: Kysely need not
   * add one.
   */
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/**
 * Kysely's SQLite compiler, shaped so that a statement is compiled once, not on every run.
 *
 * SQLite's planner marks a statement to be prepared again when a parameter it looked at is
 * bound anew: a bound LIMIT, the right side of `col = ?` in its row estimates (only when the
 * value moves to or from 0 or 1), a LIKE pattern, a value a partial index's condition names.
 * better-sqlite3 clears every binding after each run, and clearing expires such a statement
 * whatever the values, so nearly every statement with a filter was compiled again before each
 * run: an invoice read by id paid 55 µs for it, a list of 25 invoices 40 µs, a page of
 * contracts 15 µs of its 20 (docs/benchmarks.md, "Statements compiled again on every run").
 *
 * - A parameter is written `+?`: unary plus changes no value (not even its affinity) and the
 *   planner does not look into it, while an index still takes it as a constant.
 * - LIMIT and OFFSET are written as numbers, so the planner still knows a page's size (it
 *   prefers index order over a sort for a small one); a page size takes a handful of values,
 *   and the statement cache holds a text for each.
 * - `col = 'WORD'` on a column a partial index's condition names is written out
 *   (src/db/partial-index-constants.ts), so the planner can still match the index's condition —
 *   it could before only by compiling again with the bound value.
 */
class KontorSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?';
  }

  protected override visitLimit(node: LimitNode): void {
    this.append('limit ');
    this.appendCount(node.limit);
  }

  protected override visitOffset(node: OffsetNode): void {
    this.append('offset ');
    this.appendCount(node.offset);
  }

  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    super.visitBinaryOperation(withIndexedConstant(node));
  }

  private appendCount(node: OperationNode): void {
    if (ValueNode.is(node) && Number.isSafeInteger(node.value)) this.append(String(node.value));
    else this.visitNode(node);
  }
}

/**
 * Kysely's SQLite dialect with Kontor's driver: statements prepared once per SQL text
 * (preparing costs more than running a point read), a FIFO lock, immediate transactions and
 * group commit.
 */
export class KontorSqliteDialect extends SqliteDialect {
  /**
   * `file`: the database file, whose WAL gets group commit (the connection runs
   * `synchronous=NORMAL`) and checkpoints off the event loop; undefined for `:memory:`.
   */
  constructor(
    private readonly handle: SQLite.Database,
    private readonly file?: string,
    private readonly onCheckpointError: (message: string) => void = () => undefined,
    /** WAL frames after which the writes stop for the WAL to start over (tests lower it). */
    private readonly restartFrames = WAL_RESTART_FRAMES,
    /** How long a batch waits for a member that holds it up (see `Batch`; tests lower it). */
    private readonly batchStallMs = BATCH_STALL_MS,
    /** How long writes count as back to back (see `Batch`; tests raise it). */
    private readonly batchOpenMs = BATCH_OPEN_MS,
  ) {
    super({ database: handle });
  }

  override createDriver(): Driver {
    return new KontorSqliteDriver(
      this.handle,
      this.file,
      this.onCheckpointError,
      this.restartFrames,
      this.batchStallMs,
      this.batchOpenMs,
    );
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlAdapter();
  }

  override createQueryCompiler(): QueryCompiler {
    return new KontorSqliteQueryCompiler();
  }
}
