/**
 * SQL pieces the migrations' PostgreSQL statement triggers share (migrations 0039–0041): the
 * rows of an UPDATE that changed what a trigger keeps, and the row a session writes its part of
 * a kept sum into. Text for `sql.raw` inside trigger functions; no values are interpolated.
 */

/**
 * The rows of an UPDATE's transition tables (`o` old, `n` new, joined by `id`) where one of
 * `columns` changed: a FROM clause ending in its WHERE, to which a caller may add `and …`.
 */
export function changedRows(columns: readonly string[]): string {
  const list = (r: string) => columns.map((c) => `${r}.${c}`).join(', ');
  return `o join n on n.id = o.id where row(${list('o')}) is distinct from row(${list('n')})`;
}

/**
 * Which of 16 rows of a kept sum a PostgreSQL session writes its part into; reads add the rows
 * up. Two transactions at once run on two sessions, so they mostly write different rows and do
 * not wait for each other's commit on one hot row (50 payments at once through the API went at
 * half the rate otherwise). SQLite has one writer at a time and keeps one row (slot 0).
 */
export const SESSION_SLOT = 'pg_backend_pid() % 16';
