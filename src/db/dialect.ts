import { sql, type RawBuilder } from 'kysely';

/**
 * The few places where SQLite and PostgreSQL differ, kept in one file. Driver errors are
 * recognised by their codes (SQLite `SQLITE_*`, PostgreSQL SQLSTATE), never by message text.
 */
export type DialectKind = 'sqlite' | 'postgres';

function errorCode(err: unknown): string | undefined {
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

/** A foreign-key constraint was violated. */
export function isForeignKeyViolation(err: unknown): boolean {
  const code = errorCode(err);
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * The database is unreachable or momentarily unable to serve: connection refused or lost,
 * server shutting down, too many clients, SQLite busy or locked. Answered with 503.
 */
export function isUnavailable(err: unknown): boolean {
  const code = errorCode(err);
  if (code === undefined) {
    return err instanceof Error &&
      /Connection terminated|timeout exceeded when trying to connect/i.test(err.message)
      ? true
      : false;
  }
  return (
    code.startsWith('08') || // connection exceptions
    code === '57P01' || // admin shutdown
    code === '57P02' ||
    code === '57P03' || // cannot connect now
    code === '53300' || // too many connections
    code === 'ECONNREFUSED' ||
    code === 'ECONNRESET' ||
    code === 'ETIMEDOUT' ||
    code === 'EPIPE' ||
    code.startsWith('SQLITE_BUSY') ||
    code.startsWith('SQLITE_LOCKED')
  );
}

/**
 * `column LIKE '%text%'` with `%`, `_` and `\` in the text taken literally. The explicit
 * ESCAPE clause matters: SQLite has no default escape character, PostgreSQL uses `\`.
 */
export function containsText(column: string, text: string): RawBuilder<boolean> {
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`${sql.ref(column)} like ${pattern} escape '\\'`;
}
