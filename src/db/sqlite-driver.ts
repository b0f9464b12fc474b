import type SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  SelectQueryNode,
  SqliteDialect,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';

/**
 * A FIFO lock handed from one holder straight to the next: queries and transactions get the
 * single connection in arrival order (Kysely's own mutex wakes every waiter on each release
 * and lets them race, so a long queue is served in no particular order).
 */
class FifoLock {
  private held = false;
  private readonly waiters: (() => void)[] = [];

  acquire(): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }
}

/** Runs statements on the one better-sqlite3 handle, prepared once per SQL text. */
class Connection implements DatabaseConnection {
  private readonly statements = new Map<string, SQLite.Statement>();

  constructor(
    private readonly db: SQLite.Database,
    private readonly maxStatements = 500,
  ) {}

  private prepare(sql: string): SQLite.Statement {
    let stmt = this.statements.get(sql);
    if (stmt) return stmt;
    stmt = this.db.prepare(sql);
    if (this.statements.size >= this.maxStatements)
      this.statements.delete(this.statements.keys().next().value!);
    this.statements.set(sql, stmt);
    return stmt;
  }

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.prepare(query.sql);
    const params = query.parameters as unknown[];
    if (stmt.reader) return Promise.resolve({ rows: stmt.all(params) as R[] });
    const { changes, lastInsertRowid } = stmt.run(params);
    return Promise.resolve({
      rows: [],
      numAffectedRows: BigInt(changes),
      insertId: BigInt(lastInsertRowid),
    });
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    if (!SelectQueryNode.is(query.query)) throw new Error('SQLite streams SELECT queries only');
    const rows = this.prepare(query.sql).iterate(query.parameters);
    return (async function* () {
      for (const row of rows) yield await Promise.resolve({ rows: [row as R] });
    })();
  }
}

class KontorSqliteDriver implements Driver {
  private readonly lock = new FifoLock();
  private readonly connection: Connection;

  constructor(private readonly db: SQLite.Database) {
    this.connection = new Connection(db);
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
   * with SQLITE_BUSY when it upgrades.
   */
  async beginTransaction(
    connection: DatabaseConnection,
    _settings: TransactionSettings,
  ): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  /**
   * SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, SQLITE_IOERR,
   * an interrupted commit); a second `rollback` would then fail with "no transaction is
   * active" and hide the original error, which decides the answer (507, not 500).
   */
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (!this.db.inTransaction) return;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  releaseConnection(): Promise<void> {
    this.lock.release();
    return Promise.resolve();
  }

  destroy(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }
}

/**
 * Kysely's SQLite dialect with Kontor's driver: statements prepared once per SQL text
 * (preparing costs more than running a point read), a FIFO lock, and immediate transactions.
 */
export class KontorSqliteDialect extends SqliteDialect {
  constructor(private readonly handle: SQLite.Database) {
    super({ database: handle });
  }

  override createDriver(): Driver {
    return new KontorSqliteDriver(this.handle);
  }
}
