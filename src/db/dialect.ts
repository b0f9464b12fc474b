import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/**
 * The few places where SQLite and PostgreSQL differ, kept in one file. Driver errors are
 * recognised by their codes (SQLite `SQLITE_*`, PostgreSQL SQLSTATE), never by message text.
 */
export type DialectKind = 'sqlite' | 'postgres';

/** Whether `db` (a Kysely instance or transaction) runs on PostgreSQL. */
export function isPostgres(db: Pick<Kysely<unknown>, 'getExecutor'>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** The driver's error code (SQLite `SQLITE_*`, PostgreSQL SQLSTATE), if the error has one. */
export function errorCode(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const code = err.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/** A unique or primary-key constraint was violated. */
export function isUniqueViolation(err: unknown): boolean {
  const code = errorCode(err);
  return (
    code === '23505' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/**
 * A unique violation of one index: PostgreSQL names the index (`constraint`), SQLite the
 * columns in its message (`UNIQUE constraint failed: partners.account_id, partners.partner_number`).
 */
export function isUniqueViolationOf(err: unknown, index: string, column: string): boolean {
  if (!isUniqueViolation(err)) return false;
  const { constraint, message } = err as { constraint?: unknown; message?: unknown };
  if (typeof constraint === 'string') return constraint === index;
  return typeof message === 'string' && message.includes(column);
}

/** PostgreSQL chose this transaction to give way in a deadlock (it was rolled back whole). */
export function isDeadlock(err: unknown): boolean {
  return errorCode(err) === '40P01';
}

/** A foreign-key constraint was violated. */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = errorCode(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * The database is unreachable or momentarily unable to serve: connection refused or lost,
 * server shutting down, too many clients, a transaction that lost a deadlock or a
 * serialization conflict (it rolled back whole; the request can be repeated), SQLite busy or
 * locked. Answered with 503 and `Retry-After`. The
 * `pg` client's own errors carry no code and are recognised by their text: a connection that
 * ended or broke ("not queryable"), a pool that timed out connecting.
 */
export function isUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseNotReady) return true;
  const code = errorCode(err);
  if (code === undefined) {
    return err instanceof Error &&
      /Connection terminated|timeout exceeded when trying to connect|not queryable/i.test(
        err.message,
      )
      ? true
      : false;
  }
  return (
    code.startsWith('08') || // connection exceptions
    code === '57P01' || // admin shutdown
    code === '57P02' ||
    code === '57P03' || // cannot connect now
    code === '53300' || // too many connections
    code === '40001' || // serialization failure: retrying the request succeeds
    isDeadlock(err) || // this transaction was chosen to give way
    code === '55P03' || // lock not available (lock_timeout)
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'EPIPE' ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED')
  );
}

/**
 * Storage is full: the disk (`ENOSPC`, `EDQUOT`), SQLite's database file (`SQLITE_FULL`) or
 * PostgreSQL's (`53100` disk_full). Answered with 507; the failed statement changed nothing.
 */
export function isStorageFull(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || code === '53100';
}

/**
 * The database refused a value it cannot hold, which request validation should have caught:
 * PostgreSQL's untranslatable or NUL character (`22P05`, `22021`), number out of range
 * (`22003`), invalid text for a typed column (`22P02`), bad or overflowing datetime (`22007`,
 * `22008`), a value or nesting too big (`54000`, `54001`); SQLite's `SQLITE_TOOBIG`.
 * Answered with 400 rather than 500: the value came from the request.
 */
export function isUnstorableValue(err: unknown): boolean {
  const code = errorCode(err);
  return (
    code === '22P05' ||
    code === '22021' ||
    code === '22003' ||
    code === '22P02' ||
    code === '22007' ||
    code === '22008' ||
    code === '54000' ||
    code === '54001' ||
    code === 'SQLITE_TOOBIG'
  );
}

/** Thrown by the readiness check when the database answers but cannot take writes (storage full). */
export class DatabaseNotReady extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseNotReady';
  }
}

/**
 * `column LIKE '%text%'` with `%`, `_` and `\` in the text taken literally. The explicit
 * ESCAPE clause matters: SQLite has no default escape character, PostgreSQL uses `\`.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}

/**
 * `column` starts with `text`, wildcards in it taken literally. Letters compare as stored on
 * PostgreSQL and without regard to ASCII case on SQLite (its `like`): for codes and numbers.
 */
export function startsWithText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
