import pg from 'pg';
import {
  CompiledQuery,
  InsertQueryNode,
  PostgresDialect,
  type PostgresDriver,
  ValuesNode,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/** Statements marked by `deferInsert` / `deferStatement` (src/db/transactions.ts). */
export const deferredStatements = new WeakSet<CompiledQuery>();

function rowsOf(query: CompiledQuery): number {
  const node = query.query;
  return InsertQueryNode.is(node) && node.values && ValuesNode.is(node.values)
    ? node.values.values.length
    : 0;
}

/**
 * The statement with its parameters written in as literals, for a multi-statement simple query
 * (one round trip for several statements; the extended protocol takes one per message). Only
 * strings (quoted by `pg.escapeLiteral`), finite numbers and null are written in; anything
 * else answers undefined and the statement keeps its parameters. Kysely writes every value as
 * a parameter, so a `$` followed by digits in its SQL is always a placeholder.
 */
function inline(query: CompiledQuery): string | undefined {
  const literals: string[] = [];
  for (const value of query.parameters) {
    if (value === null) literals.push('null');
    else if (typeof value === 'string') literals.push(pg.escapeLiteral(value));
    else if (typeof value === 'number' && Number.isFinite(value)) literals.push(String(value));
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

/**
 * A PostgreSQL connection whose transactions cost as few round trips as they can:
 * - `BEGIN` goes out with the transaction's first statement that needs an answer, together
 *   with what was deferred before it;
 * - deferred statements (inserts and locks whose answer the caller does not need) wait and go
 *   out together, in one simple query, before the next statement or with the `COMMIT`;
 * - a transaction made of deferred statements only is one round trip, atomic on its own (a
 *   create with its tags and its audit event: one round trip instead of five).
 * Read-your-writes holds: deferred statements are sent before any later statement.
 */
class LazyConnection implements DatabaseConnection {
  private state: 'none' | 'lazy' | 'open' = 'none';
  private deferred: CompiledQuery[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.state !== 'none' && deferredStatements.has(query)) {
      this.deferred.push(query);
      return { rows: [], numAffectedRows: BigInt(rowsOf(query)) };
    }
    await this.send();
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
    await this.send();
    yield* this.inner.streamQuery<R>(query, chunkSize);
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

  private raw(statements: string[]): Promise<QueryResult<unknown>> {
    return this.inner.executeQuery(CompiledQuery.raw(statements.join('; ')));
  }

  /** Starts the transaction on the server if it has not, with what was deferred. */
  private async send(): Promise<void> {
    if (this.state === 'none') return;
    const deferred = this.deferred;
    this.deferred = [];
    const inlined = inlineAll(deferred);
    if (inlined) {
      const statements = this.state === 'lazy' ? ['begin', ...inlined] : inlined;
      if (statements.length > 0) await this.raw(statements);
    } else {
      if (this.state === 'lazy') await this.raw(['begin']);
      for (const query of deferred) await this.inner.executeQuery(query);
    }
    this.state = 'open';
  }

  async commit(): Promise<void> {
    // A failure leaves the state as it is for the rollback Kysely sends next.
    const inlined = inlineAll(this.deferred);
    if (this.state === 'lazy' && this.deferred.length === 1 && !inlined) {
      // Nothing has reached the server: one statement commits on its own.
      await this.inner.executeQuery(this.deferred[0]!);
    } else if (this.state === 'lazy' && inlined) {
      // A simple query of several statements runs as one transaction.
      if (inlined.length > 0) await this.raw(inlined);
    } else if (inlined) {
      await this.raw([...inlined, 'commit']);
    } else {
      await this.send();
      await this.raw(['commit']);
    }
    this.state = 'none';
    this.deferred = [];
  }

  async rollback(): Promise<void> {
    this.deferred = [];
    const open = this.state === 'open';
    this.state = 'none';
    if (open) await this.raw(['rollback']);
  }
}

class KontorPgDriver implements Driver {
  private readonly connections = new WeakMap<DatabaseConnection, LazyConnection>();

  constructor(private readonly inner: PostgresDriver) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const raw = await this.inner.acquireConnection();
    let connection = this.connections.get(raw);
    if (!connection) {
      connection = new LazyConnection(raw);
      this.connections.set(raw, connection);
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
      await this.inner.beginTransaction(lazy.inner, settings);
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
    const raw = (connection as LazyConnection).inner;
    return this.inner.releaseConnection(raw as Parameters<PostgresDriver['releaseConnection']>[0]);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** Kysely's PostgreSQL dialect with lazy BEGIN and deferred statements (`LazyConnection`). */
export class KontorPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new KontorPgDriver(super.createDriver() as PostgresDriver);
  }
}
