import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Executor } from './records.js';

/**
 * A record's JSON answer built by the database, one text per row, for lists: the rows never
 * become JavaScript objects only to be turned back into JSON (GET /v1/partners?limit=25: 767 →
 * 591 µs CPU per request on SQLite, 986 → 610 on PostgreSQL; docs/scaling.md, "Lists as JSON
 * from the database").
 *
 * A shape names every field of the answer and the column it comes from, as the module's
 * presenter does; a test per shape checks that both databases answer exactly what the
 * presenter gives for the same rows (nulls, defaults, flags, stored JSON, escapes).
 */
export type JsonField =
  /** A text column; `orElse` stands in for NULL (the presenter's default). */
  | { kind: 'text'; column: string; orElse?: string }
  /** An integer column. */
  | { kind: 'number'; column: string }
  /** A text column holding JSON the service wrote; passed through as JSON, NULL as null. */
  | { kind: 'json'; column: string }
  /** An integer 0/1 column as a boolean; `nullable`: NULL as null, else NULL is false. */
  | { kind: 'flag'; column: string; nullable?: boolean };

export type JsonShape = Readonly<Record<string, JsonField>>;

export const text = (column: string, orElse?: string): JsonField =>
  orElse === undefined ? { kind: 'text', column } : { kind: 'text', column, orElse };
export const number = (column: string): JsonField => ({ kind: 'number', column });
export const json = (column: string): JsonField => ({ kind: 'json', column });
export const flag = (column: string, nullable = false): JsonField => ({
  kind: 'flag',
  column,
  nullable,
});

const KEY = /^[A-Za-z][A-Za-z0-9]*$/;
const COLUMN = /^[a-z][a-z0-9_]*$/;

/**
 * SQL text of one field's JSON value. The object is concatenated, not built with
 * json_object/json_build_object: those parse every stored JSON column again, which made
 * PostgreSQL spend twice the CPU per list (294 against 144 µs for 25 partners).
 */
function valueSql(table: string, field: JsonField, postgres: boolean): string {
  if (!COLUMN.test(field.column)) throw new Error(`Not a column name: ${field.column}`);
  const ref = `"${table}"."${field.column}"`;
  switch (field.kind) {
    case 'number':
      return postgres ? `coalesce(${ref}::text, 'null')` : `coalesce(${ref}, 'null')`;
    case 'text': {
      const value = field.orElse === undefined ? ref : `coalesce(${ref}, ${literal(field.orElse)})`;
      // SQLite's json_quote(NULL) is 'null'; PostgreSQL's to_json(NULL) is NULL.
      return postgres ? `coalesce(to_json(${value})::text, 'null')` : `json_quote(${value})`;
    }
    case 'json':
      // Written by the service as JSON.stringify gave it: passed through, not parsed again.
      return `coalesce(${ref}, 'null')`;
    case 'flag':
      return `(case ${ref} when 1 then 'true' when 0 then 'false' else '${field.nullable ? 'null' : 'false'}' end)`;
  }
}

function literal(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** The shape's object as SQL text: `{"key":value,…}`, one text per row. */
function objectSql(table: string, shape: JsonShape, postgres: boolean): string {
  const parts = Object.entries(shape).flatMap(([key, field], i) => {
    if (!KEY.test(key)) throw new Error(`Not a field name: ${key}`);
    return [`'${i === 0 ? '{' : ','}"${key}":'`, valueSql(table, field, postgres)];
  });
  parts.push(`'}'`);
  // concat treats NULL as '' on both databases (hence the coalesces); PostgreSQL's takes at
  // most 100 arguments. SQLite's (3.44+, bundled with better-sqlite3) builds the text in one
  // go: 25 partners in 89–105 µs against 132–155 µs for a chain of `||`.
  if (parts.length > 100) throw new Error('A JSON shape has at most 49 fields');
  return `concat(${parts.join(', ')})`;
}

const built = new WeakMap<JsonShape, Map<string, RawBuilder<string>>>();

/**
 * `shape` over the rows of `table` as one JSON text per row, for `select(...)`. Built once per
 * shape, table and dialect; the text is fixed, so PostgreSQL prepares it once per connection.
 */
export function jsonObject(db: Executor, table: string, shape: JsonShape): RawBuilder<string> {
  const postgres = isPostgres(db);
  let byTable = built.get(shape);
  if (!byTable) {
    byTable = new Map<string, RawBuilder<string>>();
    built.set(shape, byTable);
  }
  const key = `${postgres ? 'pg' : 'sqlite'}:${table}`;
  let expression = byTable.get(key);
  if (!expression) {
    if (!COLUMN.test(table)) throw new Error(`Not a table name: ${table}`);
    expression = sql<string>`${sql.raw(objectSql(table, shape, postgres))}`;
    byTable.set(key, expression);
  }
  return expression;
}

/** A record's version (for its ETag) and its answer as the database writes it. */
export interface JsonRecord {
  version: number;
  json: string;
}

/**
 * The point read of `table` answering `shape` (see `jsonObject`): compiled once per dialect,
 * like the row read of `recordQueries`. Undefined when the account has no such record.
 */
export function jsonFinder(
  table: 'partners',
  shape: JsonShape,
): (db: Executor, accountId: string, id: string) => Promise<JsonRecord | undefined> {
  const texts = new Map<boolean, string>();
  return async (db, accountId, id) => {
    const postgres = isPostgres(db);
    let text = texts.get(postgres);
    if (text === undefined) {
      text = db
        .selectFrom(table)
        .select([`${table}.version`, jsonObject(db, table, shape).as('json')])
        .where(`${table}.account_id`, '=', accountId)
        .where(`${table}.id`, '=', id)
        .compile().sql;
      texts.set(postgres, text);
    }
    const { rows } = await db.executeQuery<JsonRecord>(CompiledQuery.raw(text, [accountId, id]));
    return rows[0];
  };
}
