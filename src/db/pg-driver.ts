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

/** Inserts marked by `deferInsert` (src/db/transactions.ts). */
export const deferredInserts = new WeakSet<CompiledQuery>();

function rowsOf(query: CompiledQuery): number {
  const node = query.query;
  return InsertQueryNode.is(node) && node.values && ValuesNode.is(node.values)
    ? node.values.values.length
    : 0;
}

/**
 * One statement running `queries` (inserts without RETURNING) as data-modifying CTEs, their
 * `$n` placeholders renumbered. Kysely writes every value as a parameter, so a `$` followed by
 * digits in the text of an insert is always a placeholder.
 */
function combine(queries: CompiledQuery[]): CompiledQuery {
  if (queries.length === 1) return queries[0]!;
  const parameters: unknown[] = [];
  const parts = queries.map((q, i) => {
    const offset = parameters.length;
    parameters.push(...q.parameters);
    const text = q.sql.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
    return i < queries.length - 1 ? `w${i} as (${text})` : text;
  });
  const last = parts.pop()!;
  return CompiledQuery.raw(`with ${parts.join(', ')} ${last}`, parameters);
}

/**
 * A PostgreSQL connection whose transactions cost as few round trips as they can:
 * - `BEGIN` is sent with the transaction's first statement, not on its own;
 * - inserts marked deferred wait and go out together, as one statement, before the next
 *   statement or the COMMIT;
 * - a transaction made of deferred inserts only is that one statement, which PostgreSQL runs
 *   atomically on its own: no BEGIN and no COMMIT at all (a create with its tags and its audit
 *   event: one round trip instead of five).
 * Read-your-writes holds: deferred inserts are sent before any later statement.
 */
class LazyConnection implements DatabaseConnection {
  private state: 'none' | 'lazy' | 'open' = 'none';
  private deferred: CompiledQuery[] = [];

  constructor(readonly inner: DatabaseConnection) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    if (this.state !== 'none' && deferredInserts.has(query)) {
      this.deferred.push(query);
      return { rows: [], numAffectedRows: BigInt(rowsOf(query)) };
    }
    await this.open();
    return this.inner.executeQuery<R>(query);
  }

  async *streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
    await this.open();
    yield* this.inner.streamQuery<R>(query, chunkSize);
  }

  begin(): void {
    this.state = 'lazy';
    this.deferred = [];
  }

  /** Starts the transaction on the server if it has not, and sends what was deferred. */
  private async open(): Promise<void> {
    if (this.state === 'lazy') {
      await this.inner.executeQuery(CompiledQuery.raw('begin'));
      this.state = 'open';
    }
    await this.flush();
  }

  private async flush(): Promise<void> {
    if (this.deferred.length === 0) return;
    const batch = combine(this.deferred);
    this.deferred = [];
    await this.inner.executeQuery(batch);
  }

  /** A transaction started as asked (isolation level, access mode), on the server at once. */
  opened(): void {
    this.state = 'open';
    this.deferred = [];
  }

  async commit(): Promise<void> {
    // 'lazy': nothing has reached the server; the deferred inserts are one atomic statement.
    // A failure leaves the state for the rollback Kysely sends next.
    await this.flush();
    if (this.state === 'open') await this.inner.executeQuery(CompiledQuery.raw('commit'));
    this.state = 'none';
  }

  async rollback(): Promise<void> {
    this.deferred = [];
    const open = this.state === 'open';
    this.state = 'none';
    if (open) await this.inner.executeQuery(CompiledQuery.raw('rollback'));
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

/** Kysely's PostgreSQL dialect with lazy BEGIN and deferred inserts (`LazyConnection`). */
export class KontorPostgresDialect extends PostgresDialect {
  override createDriver(): Driver {
    return new KontorPgDriver(super.createDriver() as PostgresDriver);
  }
}
