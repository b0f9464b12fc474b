import { isUnavailable } from './dialect.js';
import {
  CompiledQuery,
  InsertQueryNode,
  PostgresDialect,
  RawNode,
  SelectQueryNode,
  ValuesNode,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';

/** Prepared statements kept per connection (see `LazyConnection.statement`). */
const MAX_PREPARED = 100;

/** Statements marked by `deferStatement` (src/db/transactions.ts). */
export const deferredStatements = new WeakSet<CompiledQuery>();

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

/** Settles the deferred reads among `batch`, whose results start at `offset` of `raw`. */
function settle(batch: CompiledQuery[], raw: pg.QueryResult | pg.QueryResult[], offset: number) {
  const results = Array.isArray(raw) ? raw : [raw];
  batch.forEach((query, i) => {
    const slot = deferredReads.get(query);
    if (!slot) return;
    slot.sent = true;
    slot.resolve(results[offset + i]?.rows ?? []);
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

/**
 * The statement with its parameters written in as literals, for a multi-statement simple query
 * (one round trip for several statements; the extended protocol takes one per statement).
 * Strings and finite numbers become quoted literals (`pg.escapeLiteral`), which PostgreSQL
 * types from their context as it types parameters; null stays null. Anything else answers
 * undefined and the statement keeps its parameters. Kysely writes every value as a parameter,
 * so a `$` followed by digits in its SQL is always a placeholder.
 */
function inline(query: CompiledQuery): string | undefined {
  const literals: string[] = [];
  for (const value of query.parameters) {
    if (value === null) literals.push('null');
    else if (typeof value === 'string') literals.push(pg.escapeLiteral(value));
    else if (typeof value === 'number' && Number.isFinite(value))
      literals.push(`'${String(value)}'`);
    else return undefined;
  }
  return query.sql.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1]!);
}

function inlineAll(queries: CompiledQuery[]): string[] | undefined {
  const out: string[] = [];
  for (const query of queries) {
    const text = inline(query);
    if (text === undefined) return undefined;
    out.push(text);
  }
  return out;
}

/** A query that only reads: a Kysely select, or raw SQL that is one SELECT statement. */
function isRead(query: CompiledQuery): boolean {
  if (SelectQueryNode.is(query.query)) return true;
  return RawNode.is(query.query) && /^\s*select\b[^;]*$/i.test(query.sql);
}

function toResult<R>(raw: pg.QueryResult | pg.QueryResult[]): QueryResult<R> {
  // A simple query of several statements answers one result each: the last one is asked for.
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

/**
 * A PostgreSQL connection whose transactions cost as few round trips as they can:
 * - `BEGIN` goes out with the transaction's first statement, in one simple query;
 * - deferred statements (inserts and locks whose answer the caller does not need) wait and go
 *   out together with the next statement or with the `COMMIT`;
 * - a transaction made of deferred statements only is one round trip, atomic on its own (a
 *   create with its tags and its audit event: one round trip instead of five).
 * What cannot be written as literals (see `inline`) goes out on its own, with parameters.
 * Read-your-writes holds: deferred statements are sent before any later statement.
 */
class LazyConnection implements DatabaseConnection {
  private state: 'none' | 'lazy' | 'open' = 'none';
  private deferred: CompiledQuery[] = [];
  /** Names of the statements this connection has prepared on the server, by SQL text. */
  private readonly prepared = new Map<string, string>();

  constructor(readonly client: pg.PoolClient) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (query === FLUSH) {
      if (this.state !== 'none') await this.send();
      return { rows: [] };
    }
    if (this.state === 'none') return toResult(await this.client.query(this.statement(query)));
    const slot = deferredReads.get(query);
    if (slot || deferredStatements.has(query)) {
      if (slot) slot.deferred = true;
      this.deferred.push(query);
      return { rows: [], numAffectedRows: BigInt(rowsOf(query)) };
    }
    // BEGIN, what was deferred and this statement, in one round trip when they can be inlined.
    const ahead = this.state === 'lazy' ? ['begin'] : [];
    const batch = [...this.deferred, query];
    const inlined = inlineAll(batch);
    if (inlined) {
      // Open from here on even if a statement fails: BEGIN has run, and the rollback must go.
      this.deferred = [];
      this.state = 'open';
      return toResult(await this.run([...ahead, ...inlined].join('; '), batch, ahead.length));
    }
    await this.send();
    return toResult(await this.client.query(query.sql, [...query.parameters]));
  }

  /**
   * Sends `batch` (whose results start at `offset`: after a BEGIN) as one simple query of
   * several statements, or one statement with its parameters; the deferred reads among it get
   * their rows, or its error.
   */
  private async run(text: string | pg.QueryConfig, batch: CompiledQuery[], offset = 0) {
    let raw: pg.QueryResult | pg.QueryResult[];
    try {
      raw = await this.client.query(text);
    } catch (err) {
      fail(batch, err);
      throw err;
    }
    settle(batch, raw, offset);
    return raw;
  }

  /** One deferred statement on its own, with its parameters. */
  private runOne(query: CompiledQuery) {
    return this.run({ text: query.sql, values: [...query.parameters] }, [query]);
  }

  /**
   * A read outside a transaction runs as a named prepared statement: PostgreSQL parses and
   * plans it once per connection instead of once per request (the point reads and credential
   * lookups every request makes). Bounded per connection, so a stream of one-off texts (IN
   * lists of every length) cannot fill the server's memory; those run unnamed. A raw query
   * counts as a read when its text is one SELECT (the point read by id of `recordQueries`).
   */
  private statement(query: CompiledQuery): pg.QueryConfig {
    const values = [...query.parameters];
    if (!isRead(query)) return { text: query.sql, values };
    let name = this.prepared.get(query.sql);
    if (name === undefined && this.prepared.size < MAX_PREPARED) {
      name = `k${this.prepared.size}`;
      this.prepared.set(query.sql, name);
    }
    return name === undefined ? { text: query.sql, values } : { name, text: query.sql, values };
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

  /** Starts the transaction on the server if it has not, and sends what was deferred. */
  private async send(): Promise<void> {
    const deferred = this.deferred;
    this.deferred = [];
    const inlined = inlineAll(deferred);
    const ahead = this.state === 'lazy' ? ['begin'] : [];
    this.state = 'open';
    if (inlined) {
      if (ahead.length + inlined.length > 0)
        await this.run([...ahead, ...inlined].join('; '), deferred, ahead.length);
      return;
    }
    if (ahead.length > 0) await this.client.query(ahead.join('; '));
    for (const query of deferred) await this.runOne(query);
  }

  async commit(): Promise<void> {
    // A failure leaves the state as it is for the rollback Kysely sends next.
    const inlined = inlineAll(this.deferred);
    if (this.state === 'lazy' && inlined) {
      // Nothing has reached the server: a simple query of several statements is one
      // transaction by itself.
      if (inlined.length > 0) await this.run(inlined.join('; '), this.deferred);
    } else if (this.state === 'lazy' && this.deferred.length === 1) {
      await this.runOne(this.deferred[0]!);
    } else if (this.state === 'open' && inlined) {
      await this.run([...inlined, 'commit'].join('; '), this.deferred);
    } else {
      await this.send();
      await this.client.query('commit');
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
 * Kysely's PostgreSQL dialect (its query compiler and adapter) on Kontor's driver: lazy BEGIN
 * and deferred statements (`LazyConnection`).
 */
export class KontorPostgresDialect extends PostgresDialect {
  constructor(private readonly pool: pg.Pool) {
    super({ pool });
  }

  override createDriver(): Driver {
    return new KontorPgDriver(this.pool);
  }
}
