import { errorCode, isUnavailable } from './dialect.js';
import { withIndexedConstant } from './partial-index-constants.js';
import {
  CompiledQuery,
  InsertQueryNode,
  PostgresDialect,
  PostgresQueryCompiler,
  ValuesNode,
  type BinaryOperationNode,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import { createRequire } from 'node:module';
import pg from 'pg';

/** Prepared statements kept per connection (see `LazyConnection.step`). */
const MAX_PREPARED = 200;
/** Texts remembered as seen once per connection (see `LazyConnection.step`). */
const MAX_SEEN = 1000;
/**
 * Reads and updates with more parameters than this (the IN lists of a batch: 500 invoices of a
 * bank statement) are never prepared: after five runs PostgreSQL may switch a prepared
 * statement to its generic plan, which cannot hash an IN list of parameters and compares every
 * row with each of them (measured: 250 ms instead of 5 ms for the settled sums of 500 invoices
 * among 4,000 payments). Planned for their values each time, they cost a few ms of planning.
 */
const MAX_PREPARED_PARAMETERS = 100;

/** Statements marked by `deferStatement` (src/db/transactions.ts). */
export const deferredStatements = new WeakSet<CompiledQuery>();

/** Statements marked by `plannedEachRun` (src/db/transactions.ts): never prepared. */
export const unpreparedStatements = new WeakSet<CompiledQuery>();

/** Where a read marked by `deferRead` (src/db/transactions.ts) learns its rows. */
export interface ReadSlot {
  /** Set by the driver when it holds the read back for the next round trip. */
  deferred: boolean;
  /** Set when the read has gone out and settled. */
  sent: boolean;
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
}

/** Reads marked by `deferRead`, with the slot their rows go to. */
export const deferredReads = new WeakMap<CompiledQuery, ReadSlot>();

/** Sends what a transaction holds back and nothing else (how a deferred read is asked for). */
export const FLUSH = CompiledQuery.raw('select 1');

/**
 * Marks a connection outside a transaction as reading ahead (`readAhead` of
 * src/db/transactions.ts): deferred reads wait and go out together, without BEGIN, as one
 * implicit transaction, when one of them is asked for, with the next other statement, or at
 * `AHEAD_DONE`.
 */
export const AHEAD = CompiledQuery.raw('select 1');
/** Ends reading ahead: what is still held back goes out now. */
export const AHEAD_DONE = CompiledQuery.raw('select 1');
/** Ends reading ahead after a failure: what is still held back is dropped, never sent. */
export const AHEAD_DROP = CompiledQuery.raw('select 1');

/** Settles the deferred reads among `batch` from `raw`, its results in order. */
function settle(batch: CompiledQuery[], raw: pg.QueryResult | pg.QueryResult[]) {
  const results = Array.isArray(raw) ? raw : [raw];
  batch.forEach((query, i) => {
    const slot = deferredReads.get(query);
    if (!slot) return;
    slot.sent = true;
    slot.resolve(results[i]?.rows ?? []);
  });
}

/** Fails the deferred reads among `batch` (their round trip failed or was rolled back). */
function fail(batch: CompiledQuery[], err: unknown) {
  for (const query of batch) {
    const slot = deferredReads.get(query);
    if (!slot || slot.sent) continue;
    slot.sent = true;
    slot.reject(err);
  }
}

function rowsOf(query: CompiledQuery): number {
  const node = query.query;
  return InsertQueryNode.is(node) && node.values && ValuesNode.is(node.values)
    ? node.values.values.length
    : 0;
}

/** `pg`'s own conversion of a parameter to its text (the one `client.query` applies). */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as {
  prepareValue(this: void, value: unknown): unknown;
};

/** The protocol calls a `Round` makes on `pg`'s connection (its `Submittable` interface). */
interface Wire {
  stream: { cork?(): void; uncork?(): void };
  parse(msg: { text: string; name: string; types: number[] }): void;
  bind(msg: { portal: string; statement: string; values: unknown[] }): void;
  describe(msg: { type: 'P'; name: string }): void;
  execute(msg: { portal: string; rows: number }): void;
  sync(): void;
  on(event: 'parseComplete', listener: () => void): void;
}

/**
 * What a prepared statement answers, learnt from its first Describe on a connection: its row
 * description with `pg`'s parsers built for it (as `Result.addFields` builds them), or null for
 * a statement that answers no rows.
 */
interface Shape {
  fields: unknown[];
  parsers: unknown[];
  empty: object;
}

/** A statement of a round: its text, parameters, and the server-side statement it runs as. */
interface Step {
  text: string;
  values: unknown[];
  /** The prepared statement's name; '' for the unnamed one. */
  name: string;
  /** Whether this round parses it (first use of a name, or an unnamed statement). */
  parse: boolean;
  /** Known from an earlier round on this connection (no Describe); undefined: describe it. */
  shape?: Shape | null;
  /** Told the shape when this round describes a named statement. */
  learn?: (shape: Shape | null) => void;
}

/** The parts of `pg`'s Query and Result a round fills in itself (pg 8's own names). */
interface QueryInternals {
  _result: { fields: unknown[]; _parsers: unknown[]; _prebuiltEmptyResultObject: object };
  _accumulateRows: boolean;
  _checkForMultirow(): void;
}

/** `pg`'s Query with the handlers its client calls (pg 8; not in its type declarations). */
interface QueryHandlers {
  handleRowDescription(msg: { fields: unknown[] }): void;
  handleDataRow(msg: unknown): void;
  handleCommandComplete(msg: unknown, connection: pg.Connection): void;
}
const PgQuery = pg.Query as unknown as new (
  text: string,
  values: undefined,
  callback: unknown,
) => pg.Query & QueryHandlers;

/**
 * Several statements in one round trip over the extended protocol: Parse (where needed), Bind,
 * Describe (the first time a connection runs a prepared statement) and Execute for each, then
 * one Sync. The server runs them in order and answers once; without an explicit BEGIN they
 * form one implicit transaction, and after a failure it skips the rest up to the Sync (as a
 * simple query of several statements would, but with parameters instead of literals, and with
 * plans prepared once per connection). Results gather as `pg` gathers a multi-statement simple
 * query's: one result per statement. A prepared statement's row description is not asked for
 * again: the round gives its result the fields and parsers learnt the first time.
 */
class Round extends PgQuery {
  /** The step whose answers are arriving. */
  private index = 0;
  /** Whether the current step's result has its fields. */
  private described = false;

  constructor(
    private readonly steps: Step[],
    callback: (err: Error | null, result: pg.QueryResult | pg.QueryResult[]) => void,
  ) {
    // A text rather than a config object: pg copies a config object property by property
    // (`cloneQueryConfig`, 1.9 % of a PostgreSQL GET's CPU), a text it wraps. The round sends
    // its own texts (`submit`); this one is never sent.
    super('', undefined, callback);
  }

  override submit = (connection: pg.Connection): void => {
    const wire = connection as unknown as Wire;
    wire.stream.cork?.();
    try {
      for (const step of this.steps) {
        if (step.parse) wire.parse({ text: step.text, name: step.name, types: [] });
        wire.bind({ portal: '', statement: step.name, values: step.values });
        if (step.shape === undefined) wire.describe({ type: 'P', name: '' });
        wire.execute({ portal: '', rows: 0 });
      }
      wire.sync();
    } finally {
      wire.stream.uncork?.();
    }
  };

  override handleRowDescription(msg: { fields: unknown[] }): void {
    super.handleRowDescription(msg);
    this.described = true;
    const { fields, _parsers, _prebuiltEmptyResultObject } = (this as unknown as QueryInternals)
      ._result;
    this.steps[this.index]?.learn?.({
      fields,
      parsers: _parsers,
      empty: _prebuiltEmptyResultObject,
    });
  }

  override handleDataRow(msg: unknown): void {
    this.enter();
    super.handleDataRow(msg);
  }

  override handleCommandComplete(msg: unknown, connection: pg.Connection): void {
    this.enter();
    const step = this.steps[this.index];
    if (step?.shape === undefined && !this.described) step?.learn?.(null);
    super.handleCommandComplete(msg, connection);
    this.index += 1;
    this.described = false;
  }

  /** Before a step's first answer: its known fields, as a RowDescription would have set them. */
  private enter(): void {
    if (this.described) return;
    const shape = this.steps[this.index]?.shape;
    if (!shape) return;
    this.described = true;
    const query = this as unknown as QueryInternals;
    query._checkForMultirow();
    query._result.fields = shape.fields;
    query._result._parsers = shape.parsers;
    query._result._prebuiltEmptyResultObject = shape.empty;
    // As `handleRowDescription`: rows are kept (a round has a callback and no row listeners).
    query._accumulateRows = true;
  }
}

function toResult<R>(raw: pg.QueryResult | pg.QueryResult[]): QueryResult<R> {
  // A round of several statements answers one result each: the last one is asked for.
  const result = Array.isArray(raw) ? raw.at(-1)! : raw;
  const { command, rowCount, rows } = result;
  return {
    rows: (rows ?? []) as R[],
    numAffectedRows:
      command === 'INSERT' || command === 'UPDATE' || command === 'DELETE' || command === 'MERGE'
        ? BigInt(rowCount ?? 0)
        : undefined,
  };
}

/** PostgreSQL's refusal to run a prepared statement whose result columns changed. */
function isStalePlan(err: unknown): boolean {
  return (
    // 0A000 (feature_not_supported) is broad; the message names this case.
    errorCode(err) === '0A000' &&
    /cached plan must not change result type/.test((err as Error).message)
  );
}

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');

/**
 * A PostgreSQL connection whose transactions cost as few round trips as they can:
 * - `BEGIN` goes out with the transaction's first statement, in one round (`Round`);
 * - deferred statements (inserts and locks whose answer the caller does not need) and
 *   deferred reads wait and go out together with the next statement or with the `COMMIT`;
 * - a transaction made of deferred statements only is one round trip, atomic on its own (a
 *   create with its tags and its audit event: one round trip instead of five).
 * Read-your-writes holds: deferred statements are sent before any later statement.
 *
 * Outside a transaction a connection may read ahead (`AHEAD` … `AHEAD_DONE`, `readAhead` of
 * src/db/transactions.ts): its deferred reads go out together without BEGIN, one implicit
 * transaction, before any other statement it runs and at the latest when the mode ends.
 *
 * Every statement a connection sees a second time becomes a named prepared statement on it,
 * so PostgreSQL parses and plans it once per connection instead of once per request; not a
 * batch's long IN list, nor a statement marked by `plannedEachRun` (`step`).
 */
class LazyConnection implements DatabaseConnection {
  private state: 'none' | 'lazy' | 'open' = 'none';
  private deferred: CompiledQuery[] = [];
  /** Reading ahead outside a transaction (`AHEAD`): deferred reads wait, without BEGIN. */
  private ahead = false;
  /** Statements this connection has prepared on the server: SQL text → name. */
  private readonly prepared = new Map<string, string>();
  /** What the prepared statements answer, by name (see `Shape`). */
  private readonly shapes = new Map<string, Shape | null>();
  /** Texts seen once (a second sighting prepares them); bounded, cleared when full. */
  private readonly seen = new Set<string>();
  private names = 0;
  /** ParseComplete messages so far: which parses of a failed round took. */
  private parses = 0;
  /** A prepared statement was refused as stale: forget them all before the next round. */
  private stale = false;

  constructor(readonly client: pg.PoolClient) {
    (client as unknown as { connection: Wire }).connection.on('parseComplete', () => {
      this.parses += 1;
    });
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === AHEAD || query === AHEAD_DONE || query === AHEAD_DROP) {
      // Out of the mode before anything is sent: a failing last round must not leave a
      // connection that holds reads back in the pool.
      const held = this.deferred;
      this.deferred = [];
      this.ahead = query === AHEAD;
      if (query === AHEAD_DROP) fail(held, new Error('the read ahead was not needed'));
      else if (query === AHEAD_DONE) await this.sendAhead(held);
      return { rows: [] };
    }
    if (query === FLUSH) {
      if (this.state !== 'none') await this.send([]);
      else if (this.ahead) await this.sendAhead(this.taken());
      return { rows: [] };
    }
    if (this.state === 'none' && this.ahead) {
      const slot = deferredReads.get(query);
      if (slot) {
        slot.deferred = true;
        this.deferred.push(query);
        return { rows: [] };
      }
      if (this.deferred.length > 0) return toResult(await this.sendAhead([...this.taken(), query]));
    }
    if (this.state === 'none') {
      try {
        return toResult(await this.run([query]));
      } catch (err) {
        // Outside a transaction nothing else was at stake: the statement is prepared anew
        // (see `forgetPlans`) and runs once more.
        if (!isStalePlan(err)) throw err;
        return toResult(await this.run([query]));
      }
    }
    const slot = deferredReads.get(query);
    if (slot || deferredStatements.has(query)) {
      if (slot) slot.deferred = true;
      this.deferred.push(query);
      return { rows: [], numAffectedRows: BigInt(rowsOf(query)) };
    }
    // BEGIN, what was deferred and this statement, in one round trip.
    return toResult(await this.send([query]));
  }

  /** What was deferred, taken off the connection to be sent. */
  private taken(): CompiledQuery[] {
    const held = this.deferred;
    this.deferred = [];
    return held;
  }

  /**
   * Reading ahead: `batch` in one round trip without BEGIN (one implicit transaction). A
   * statement prepared before a migration changed its columns is prepared anew and the round
   * sent once more, as a single statement outside a transaction is.
   */
  private async sendAhead(batch: CompiledQuery[]) {
    if (batch.length === 0) return [];
    try {
      return await this.run(batch, true);
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      return this.run(batch);
    }
  }

  /** Starts the transaction on the server if it has not, with what was deferred and `more`. */
  private async send(more: CompiledQuery[]) {
    const batch = [...(this.state === 'lazy' ? [BEGIN] : []), ...this.deferred, ...more];
    this.deferred = [];
    // Open from here on even if a statement fails: BEGIN has run, and the rollback must go.
    this.state = 'open';
    return this.run(batch);
  }

  /**
   * Sends `batch` in one round trip; the deferred reads among it get their rows, or its error
   * (with `retryStale`, not a stale plan's: the caller sends the batch again).
   */
  private async run(
    batch: CompiledQuery[],
    retryStale = false,
  ): Promise<pg.QueryResult | pg.QueryResult[]> {
    // Forgotten between transactions: outside one, or in the round that starts it.
    if (this.stale && (this.state !== 'open' || batch[0] === BEGIN)) await this.forgetPlans();
    if (batch.length === 0) return [];
    // Without parameters: one simple query (it may hold several statements, as migrations do).
    if (batch.every((query) => query.parameters.length === 0))
      return this.settled(batch, () => this.client.query(batch.map((q) => q.sql).join('; ')));
    // A text of several statements cannot be prepared: each goes on its own (never the case
    // for the deferred statements of a write, which all have parameters).
    if (batch.some((query) => query.parameters.length === 0 && query.sql.includes(';'))) {
      const results: pg.QueryResult[] = [];
      for (const query of batch) {
        const raw = await this.run([query], retryStale);
        results.push(Array.isArray(raw) ? raw.at(-1)! : raw);
      }
      return results;
    }
    const steps = batch.map((query) => this.step(query));
    const before = this.parses;
    return this.settled(
      batch,
      () =>
        new Promise((resolve, reject) => {
          // Converted before anything is written: a value that cannot be sent (a circular
          // object) fails the round, and its deferred reads, without half of it on the wire.
          for (const step of steps) step.values = step.values.map((value) => prepareValue(value));
          void this.client.query(
            new Round(steps, (err, result) => (err ? reject(err) : resolve(result))),
          );
        }),
      (err) => {
        this.forgetUnparsed(steps, this.parses - before);
        if (isStalePlan(err)) this.stale = true;
        return retryStale && isStalePlan(err);
      },
    );
  }

  /**
   * Drops every statement this connection prepared. After a migration changed the columns a
   * prepared statement answers (`select *` of a table that gained one), PostgreSQL refuses to
   * run it ('cached plan must not change result type') rather than re-plan it; a replica that
   * kept running across the migration prepares its statements anew instead of failing on
   * them until it restarts.
   */
  private async forgetPlans(): Promise<void> {
    this.stale = false;
    this.prepared.clear();
    this.shapes.clear();
    this.seen.clear();
    await this.client.query('deallocate all');
  }

  /**
   * Runs `send`; the deferred reads among `batch` get their rows from it, or its error (unless
   * `onError` answers true: the batch goes out once more).
   */
  private async settled(
    batch: CompiledQuery[],
    send: () => Promise<pg.QueryResult | pg.QueryResult[]>,
    onError?: (err: unknown) => boolean,
  ): Promise<pg.QueryResult | pg.QueryResult[]> {
    let raw: pg.QueryResult | pg.QueryResult[];
    try {
      raw = await send();
    } catch (err) {
      if (onError?.(err) !== true) fail(batch, err);
      throw err;
    }
    settle(batch, raw);
    return raw;
  }

  /**
   * How `query` runs: as the prepared statement of its text if there is one (or if this is
   * the second time it is seen, and fewer than MAX_PREPARED are prepared: a stream of one-off
   * texts such as IN lists of every length cannot fill the server's memory), else unnamed; a
   * batch's long IN list and a statement marked by `plannedEachRun` always unnamed.
   */
  private step(query: CompiledQuery): Step {
    const text = query.sql;
    const values = [...query.parameters];
    if (unpreparedStatements.has(query)) return { text, values, name: '', parse: true };
    const name = this.prepared.get(text);
    if (name !== undefined) {
      const shape = this.shapes.get(name);
      return shape === undefined
        ? { text, values, name, parse: false, learn: (learnt) => this.shapes.set(name, learnt) }
        : { text, values, name, parse: false, shape };
    }
    const batch = values.length > MAX_PREPARED_PARAMETERS && !InsertQueryNode.is(query.query);
    if (values.length > 0 && !batch && this.prepared.size < MAX_PREPARED && this.seen.has(text)) {
      const fresh = `k${this.names++}`;
      this.prepared.set(text, fresh);
      return {
        text,
        values,
        name: fresh,
        parse: true,
        learn: (learnt) => this.shapes.set(fresh, learnt),
      };
    }
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(text);
    return { text, values, name: '', parse: true };
  }

  /**
   * After a failed round: of the statements it was to prepare, the first `parsed` were (the
   * server handles messages in order and skips the rest after an error); the others are
   * forgotten, and their names never used again.
   */
  private forgetUnparsed(steps: Step[], parsed: number) {
    let left = parsed;
    for (const step of steps) {
      if (!step.parse) continue;
      if (left > 0) {
        left -= 1;
        continue;
      }
      if (step.name !== '' && this.prepared.get(step.text) === step.name) {
        this.prepared.delete(step.text);
        this.shapes.delete(step.name);
      }
    }
  }

  streamQuery(): AsyncIterableIterator<QueryResult<never>> {
    throw new Error('Kontor does not stream PostgreSQL queries');
  }

  begin(): void {
    this.state = 'lazy';
    this.deferred = [];
  }

  /** A transaction started as asked (isolation level, access mode), on the server at once. */
  opened(): void {
    this.state = 'open';
    this.deferred = [];
  }

  async commit(): Promise<void> {
    // A failure leaves the state as it is for the rollback Kysely sends next.
    if (this.state === 'lazy') {
      // Nothing has reached the server: one round is one transaction by itself.
      if (this.deferred.length > 0) await this.run(this.deferred);
    } else {
      // After a failed statement the server skips the rest of the round, COMMIT included; the
      // transaction stays open for the rollback Kysely sends next.
      const batch = [...this.deferred, COMMIT];
      this.deferred = [];
      await this.run(batch);
    }
    this.state = 'none';
    this.deferred = [];
  }

  /**
   * A rollback on a connection that is gone succeeds silently: the server ended the
   * transaction with the connection, the pool drops the client on release, and the error
   * that made Kysely roll back (a lost connection, answered with 503) is the one to report.
   */
  async rollback(): Promise<void> {
    fail(this.deferred, new Error('the transaction rolled back before this read was sent'));
    this.deferred = [];
    const open = this.state === 'open';
    this.state = 'none';
    if (!open) return;
    try {
      await this.client.query('rollback');
    } catch (err) {
      if (!isUnavailable(err)) throw err;
    }
  }
}

class KontorPgDriver implements Driver {
  private readonly connections = new WeakMap<pg.PoolClient, LazyConnection>();

  constructor(private readonly pool: pg.Pool) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    let connection = this.connections.get(client);
    if (!connection) {
      connection = new LazyConnection(client);
      this.connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(
    connection: DatabaseConnection,
    settings: TransactionSettings,
  ): Promise<void> {
    const lazy = connection as LazyConnection;
    // A transaction with an isolation level or access mode starts as asked, at once.
    if (settings.isolationLevel || settings.accessMode) {
      const parts = ['start transaction'];
      if (settings.isolationLevel) parts.push(`isolation level ${settings.isolationLevel}`);
      if (settings.accessMode) parts.push(settings.accessMode);
      await lazy.client.query(parts.join(' '));
      lazy.opened();
      return;
    }
    lazy.begin();
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as LazyConnection).commit();
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return (connection as LazyConnection).rollback();
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as LazyConnection).client.release();
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    return this.pool.end();
  }
}

/**
 * Kysely's PostgreSQL compiler, writing out the constants a partial index's condition names
 * (src/db/partial-index-constants.ts): the driver prepares a statement it runs again, and
 * PostgreSQL's generic plan of it could not use such an index with the constant as a parameter.
 */
class KontorPostgresQueryCompiler extends PostgresQueryCompiler {
  protected override visitBinaryOperation(node: BinaryOperationNode): void {
    super.visitBinaryOperation(withIndexedConstant(node));
  }
}

/**
 * Kysely's PostgreSQL dialect (its adapter, Kontor's compiler) on Kontor's driver: lazy BEGIN
 * and deferred statements (`LazyConnection`).
 */
export class KontorPostgresDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new KontorPgDriver(this.pool);
  }

  override createQueryCompiler(): QueryCompiler {
    return new KontorPostgresQueryCompiler();
  }
}
