import { sql, type Insertable, type Kysely, type Transaction } from 'kysely';
import { isPostgres } from './dialect.js';
import {
  insertAudited,
  pointRead,
  updateAudited,
  type AuditedWrite,
  type Executor,
  type RecordTable,
  type TagTable,
} from './records.js';
import type { DB } from './schema.js';

/**
 * A record's JSON answer kept by the database in a column of its row: a trigger writes it on
 * every insert and update, whoever writes the row, so reads hand out the stored text and
 * neither the database nor Node builds the answer per request (GET /v1/partners?limit=25 on
 * PostgreSQL: the backend's CPU per page 173–213 → 80–83 µs; docs/scaling.md, "Lists as JSON
 * from the database").
 *
 * A shape names every field of the answer and the column it comes from, as the module's
 * presenter does. Migrations hold their shape as it was when they ran (a new field is a new
 * migration: `storeJsonAnswer` again, with the new shape); a test per table checks that both
 * databases answer exactly what the presenter gives for the same rows, after inserts and after
 * updates (nulls, defaults, flags, stored JSON, escapes).
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
const NAME = /^[a-z][a-z0-9_]*$/;

function name(value: string): string {
  if (!NAME.test(value)) throw new Error(`Not a table or column name: ${value}`);
  return `"${value}"`;
}

/**
 * SQL text of one field's JSON value; `row` qualifies the column (`"partners"`, or `new` in a
 * PostgreSQL trigger). The object is concatenated, not built with json_object /
 * json_build_object: those parse every stored JSON column again, which made PostgreSQL spend
 * twice the CPU (294 against 144 µs for 25 partners).
 */
function valueSql(row: string, field: JsonField, postgres: boolean): string {
  const ref = `${row}.${name(field.column)}`;
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

/**
 * PostgreSQL: the JSON text `{"key":{"from":…,"to":…},…}` of the shape's fields over `columns`
 * (those `includes` admits) whose value differs between the rows `before` and `after`, in the
 * shape's order; `{}` when none. Each value is the text the stored answer holds for it, so
 * this is `diff` (src/shared/audit.ts) of the records as presented, without parsing JSON: an
 * update's audit event in the update's own statement (`updateAudited`, src/db/records.ts).
 */
export function changedFieldsSql(
  shape: JsonShape,
  columns: readonly string[],
  rows: { before: string; after: string },
  includes: (key: string) => boolean,
): string {
  const parts = Object.entries(shape)
    .filter(([key, field]) => columns.includes(field.column) && includes(key))
    .map(([key, field]) => {
      if (!KEY.test(key)) throw new Error(`Not a field name: ${key}`);
      const [from, to] = [valueSql(rows.before, field, true), valueSql(rows.after, field, true)];
      return `case when ${from} is distinct from ${to} then '"${key}":{"from":' || ${from} || ',"to":' || ${to} || '}' end`;
    });
  // concat_ws leaves out the NULLs (the fields that did not change); at most 100 arguments.
  if (parts.length > 99) throw new Error('A JSON shape has at most 49 fields');
  return parts.length === 0 ? `'{}'` : `'{' || concat_ws(',', ${parts.join(', ')}) || '}'`;
}

/** The shape's object as SQL text: `{"key":value,…}` over the columns of `row`. */
function objectSql(row: string, shape: JsonShape, postgres: boolean): string {
  const parts = Object.entries(shape).flatMap(([key, field], i) => {
    if (!KEY.test(key)) throw new Error(`Not a field name: ${key}`);
    return [`'${i === 0 ? '{' : ','}"${key}":'`, valueSql(row, field, postgres)];
  });
  parts.push(`'}'`);
  // concat treats NULL as '' on both databases (hence the coalesces); PostgreSQL's takes at
  // most 100 arguments. SQLite's (3.44+, bundled with better-sqlite3) builds the text in one
  // go: 25 partners in 89–105 µs against 132–155 µs for a chain of `||`.
  if (parts.length > 100) throw new Error('A JSON shape has at most 49 fields');
  return `concat(${parts.join(', ')})`;
}

/**
 * For a migration: `table.column` (added, text) holds every row's `shape` from now on. Existing
 * rows are filled in; then a trigger keeps the column up to date on every insert and every
 * update — on PostgreSQL a BEFORE trigger sets it in the written row itself (so RETURNING sees
 * it), on SQLite AFTER triggers write it into the row just written, in the same statement.
 * A later shape is a later migration that replaces the triggers and refills the column
 * (`columnExists`: the statements below without adding the column).
 */
export async function storeJsonAnswer(
  db: Kysely<unknown>,
  table: string,
  column: string,
  shape: JsonShape,
  options: { columnExists?: boolean } = {},
): Promise<void> {
  const postgres = isPostgres(db);
  const [t, c] = [name(table), name(column)];
  const trigger = name(`${table}_${column}`);
  const [onInsert, onUpdate] = [
    name(`${table}_${column}_insert`),
    name(`${table}_${column}_update`),
  ];
  if (!options.columnExists) await db.schema.alterTable(table).addColumn(column, 'text').execute();
  const statements = postgres
    ? [
        `create or replace function ${trigger}() returns trigger language plpgsql as $$
          begin
            new.${c} := ${objectSql('new', shape, true)};
            return new;
          end $$`,
        `drop trigger if exists ${trigger} on ${t}`,
        `create trigger ${trigger} before insert or update on ${t}
          for each row execute function ${trigger}()`,
        // Fires the trigger on every row.
        `update ${t} set ${c} = null`,
      ]
    : [
        `drop trigger if exists ${onInsert}`,
        `drop trigger if exists ${onUpdate}`,
        `update ${t} set ${c} = ${objectSql(t, shape, false)}`,
        // Runs after the row is written, in the same statement: the update below reads the
        // row's new values. It changes only `column`, so it fires neither trigger again.
        `create trigger ${onInsert} after insert on ${t} begin
          update ${t} set ${c} = ${objectSql(t, shape, false)} where rowid = new.rowid;
        end`,
        `create trigger ${onUpdate} after update of ${columnsOf(shape)} on ${t} begin
          update ${t} set ${c} = ${objectSql(t, shape, false)} where rowid = new.rowid;
        end`,
      ];
  for (const statement of statements) await sql.raw(statement).execute(db);
}

function columnsOf(shape: JsonShape): string {
  return [...new Set(Object.values(shape).map((field) => name(field.column)))].join(', ');
}

/** A record's version (for its ETag) and its answer as the database keeps it. */
export interface JsonRecord {
  version: number;
  json: string;
}

/**
 * The point read of `table` answering its stored JSON `column` (see `storeJsonAnswer`):
 * `recordQueries`' point read of the version and that column. Undefined when the account has
 * no such record.
 */
export function jsonFinder(
  table: RecordTable,
  column: 'answer_json',
): (db: Executor, accountId: string, id: string) => Promise<JsonRecord | undefined> {
  const read = pointRead(table, ['version', `${column} as json`]);
  return (db, accountId, id) => read(db, accountId, id) as Promise<JsonRecord | undefined>;
}

/** A record table whose answer is its own row: how its answer is kept and how it is written. */
export interface AnswerTable<T extends RecordTable> {
  table: T;
  /** The answer's shape as the latest migration gave it to `storeJsonAnswer`. */
  shape: JsonShape;
  /** The columns its writes read back (every one but the stored answer). */
  read: readonly string[];
  /** Its tag table, when it has tags. */
  tags?: TagTable;
}

/**
 * The writes in one round trip of a table whose answer is its own row (PostgreSQL; used through
 * `createInOneRound`/`updateInOneRound` of src/shared/one-round.ts), and the point read of its
 * stored answer: for the table's repository, its one writer.
 *
 * - `insert`: the row, its tags and its audit event as one deferred statement where the guard
 *   holds (`insertAudited`); answers a function telling whether it wrote.
 * - `update`: the compare-and-set update with its audit event, its changes diffed by the
 *   database over the shape (`updateAudited`, `changedFieldsSql`), as one deferred statement;
 *   answers a function giving the row after (`read`), or undefined when nothing was written.
 */
export function answerWrites<T extends RecordTable, Row>(spec: AnswerTable<T>) {
  const { table, shape, read, tags } = spec;
  return {
    insert: (
      trx: Transaction<DB>,
      row: Insertable<DB[T]>,
      tagValues: readonly string[],
      write: AuditedWrite & { changes: string },
    ) =>
      insertAudited(trx, table, row, {
        ...write,
        ...(tags ? { tags: { of: tags, values: tagValues } } : {}),
      }),
    update: (
      trx: Transaction<DB>,
      key: { accountId: string; id: string; version: number },
      values: Partial<Row>,
      write: AuditedWrite,
    ) =>
      updateAudited(trx, table, read, key, values, {
        ...write,
        changes: (columns, rows, includes) => changedFieldsSql(shape, columns, rows, includes),
      }) as Promise<() => Promise<Row | undefined>>,
    find: jsonFinder(table, 'answer_json'),
  };
}
