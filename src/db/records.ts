import { isDeepStrictEqual } from 'node:util';
import {
  CompiledQuery,
  type Compilable,
  type Insertable,
  type Kysely,
  type Selectable,
  type Transaction,
} from 'kysely';
import { isPostgres } from './dialect.js';
import type { DB } from './schema.js';
import { deferFirst, deferInsert, deferRead, type Later } from './transactions.js';

export type Executor = Kysely<DB> | Transaction<DB>;

/** Tables of account-owned records with an optimistic-locking `version` (STYLE rules 3 and 7). */
export type RecordTable =
  | 'partners'
  | 'products'
  | 'contracts'
  | 'tax_rates'
  | 'notes'
  | 'budget_categories'
  | 'budget_entries'
  | 'documents'
  | 'payments'
  | 'bank_imports'
  | 'webhook_endpoints';

/** Join tables holding a record's tags, with the column naming the record. */
export type TagTable =
  | { table: 'partner_tags'; owner: 'partner_id' }
  | { table: 'product_tags'; owner: 'product_id' }
  | { table: 'contract_tags'; owner: 'contract_id' };

/** Extra equality conditions of a compare-and-set, e.g. `{ status: 'DRAFT' }`. */
export type Guard = Record<string, string | number>;

interface RecordShape {
  id: string;
  account_id: string;
  version: number;
}

/**
 * The generic queries every record table needs, written once: Kysely's types cannot follow a
 * table name chosen at run time, so they are built on a loosely typed view of the executor and
 * typed again at the edge. Every one is scoped by account.
 */
function loose(db: Executor): Kysely<Record<string, RecordShape>> {
  return db as unknown as Kysely<Record<string, RecordShape>>;
}

/** The columns a compare-and-set writes, in a stable order; undefined values are not written. */
function assigned(values: object): [string, unknown][] {
  return Object.entries(values).filter(([, v]) => v !== undefined);
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `*`, or the given columns (qualified by `alias`). */
const selectList = (columns: readonly string[] | undefined, alias?: string) =>
  columns
    ? columns.map((c) => (alias ? `${alias}.${ident(c)}` : ident(c))).join(', ')
    : alias
      ? `${alias}.*`
      : '*';

/**
 * Update statements by table and columns, written once: an update is the hottest write, and
 * building it through the query builder on every call cost more than the database's work.
 * Column names come from the code, never from a request; the set of combinations is small.
 */
const statementTexts = new Map<string, string>();
function cachedText(key: string, build: () => string): string {
  let text = statementTexts.get(key);
  if (text === undefined) {
    if (statementTexts.size >= 2_000) statementTexts.clear();
    text = build();
    statementTexts.set(key, text);
  }
  return text;
}

/** The placeholders of one statement in turn: `$1`, `$2`, … on PostgreSQL, `?` on SQLite. */
function placeholders(pg: boolean): () => string {
  let n = 0;
  return () => (pg ? `$${++n}` : '?');
}

/** `update … set <sets>, version + 1 where account_id, id, version and guards … returning <read>`. */
function updateText(
  pg: boolean,
  table: string,
  read: readonly string[] | undefined,
  sets: string[],
  guards: string[],
): string {
  return cachedText(`u|${pg ? 'p' : 's'}|${table}|${sets.join()}|${guards.join()}`, () => {
    const next = placeholders(pg);
    const assignments = sets.map((c) => `${ident(c)} = ${next()}`);
    const where = ['account_id', 'id', 'version', ...guards].map((c) => `${ident(c)} = ${next()}`);
    return `update ${ident(table)} set ${[...assignments, '"version" = "version" + 1'].join(', ')} where ${where.join(' and ')} returning ${selectList(read)}`;
  });
}

/**
 * PostgreSQL: the compare-and-set update that joins the row it replaces in as `old` (`UPDATE …
 * FROM`; when the compare-and-set matched, no one changed the row between the two, or its
 * version would differ). `old` selects `oldColumns`; `extra` is a further condition, numbered
 * from `$n + 5`. Parameters: the columns' values, then those of `fromOldParameters`.
 */
function updateFromOld(
  table: string,
  sets: string[],
  oldColumns: string,
  extra: (first: number) => string,
  returning: string,
): string {
  const n = sets.length;
  const assignments = sets.map((c, i) => `${ident(c)} = $${i + 1}`);
  return `update ${ident(table)} as t set ${[...assignments, 'version = t.version + 1'].join(', ')}
      from (select ${oldColumns} from ${ident(table)} where account_id = $${n + 1} and id = $${n + 2}) as old
      where t.id = old.id and t.account_id = $${n + 3} and t.version = $${n + 4}${extra(n + 5)}
      returning ${returning}`;
}

/** `updateFromOld`'s parameters: the columns' values, then account, id, account, version. */
function fromOldParameters(
  sets: [string, unknown][],
  key: { accountId: string; id: string; version: number },
): unknown[] {
  return [...sets.map(([, v]) => v), key.accountId, key.id, key.accountId, key.version];
}

/** PostgreSQL: the update that also answers the replaced row (`updateFromOld`). */
function updateWithBeforeText(
  table: string,
  read: readonly string[] | undefined,
  sets: string[],
): string {
  return cachedText(`b|${table}|${sets.join()}`, () =>
    updateFromOld(
      table,
      sets,
      selectList(read),
      () => '',
      `${selectList(read, 't')}, to_json(old) as before_row`,
    ),
  );
}

/**
 * The compare-and-set update: applied only when the stored version equals `version` and every
 * `guard` column holds its value (a state transition's `status = 'DRAFT'`); answers the row
 * after it (`read` columns), or undefined.
 */
async function casUpdate(
  db: Executor,
  table: string,
  read: readonly string[] | undefined,
  key: { accountId: string; id: string; version: number },
  values: object,
  guard: Guard,
): Promise<unknown> {
  const sets = assigned(values);
  const guards = Object.entries(guard);
  const text = updateText(
    isPostgres(db),
    table,
    read,
    sets.map(([c]) => c),
    guards.map(([c]) => c),
  );
  const parameters = [
    ...sets.map(([, v]) => v),
    key.accountId,
    key.id,
    key.version,
    ...guards.map(([, v]) => v),
  ];
  const { rows } = await db.executeQuery(CompiledQuery.raw(text, parameters));
  return rows[0];
}

/** PostgreSQL's `casUpdate` that answers the replaced row too, in one statement. */
async function casUpdateWithBefore(
  db: Executor,
  table: string,
  read: readonly string[] | undefined,
  key: { accountId: string; id: string; version: number },
  values: object,
): Promise<{ before: unknown; after: unknown } | undefined> {
  const sets = assigned(values);
  const text = updateWithBeforeText(
    table,
    read,
    sets.map(([c]) => c),
  );
  const { rows } = await db.executeQuery<{ before_row: unknown }>(
    CompiledQuery.raw(text, fromOldParameters(sets, key)),
  );
  const row = rows[0];
  if (!row) return undefined;
  const { before_row: before, ...after } = row;
  return { before, after };
}

/**
 * A condition another module owns, for a statement's WHERE: its text with its parameters
 * numbered from `$first` (`updateAudited`).
 */
export interface SqlCondition {
  /** Names the text, for the cache of statement texts (one per writer of it). */
  readonly key: string;
  sql(first: number): string;
  readonly parameters: readonly unknown[];
}

/**
 * The audit event of a change the database diffs itself (`updateAudited`; written by
 * `src/shared/audit.ts`, the one writer of the audit tables).
 */
export interface ChangeAudit {
  /** Names the statement text, for the cache of texts (one per writer of it). */
  readonly key: string;
  /** Whether a presented field's change belongs in the event (secrets and bookkeeping do not). */
  includes(field: string): boolean;
  /**
   * `insert … select … from <cte>`: the event for each row of `cte`, its changes the JSON
   * text in the column `changes`; its parameters numbered from `$first`.
   */
  sql(cte: string, changes: string, first: number): string;
  readonly parameters: readonly unknown[];
}

/** What every write in one round trip carries: its condition and its audit event. */
export interface AuditedWrite {
  /** A further condition of the write (another module's; nothing is written without it). */
  guard: SqlCondition;
  /** The event of the write. */
  audit: ChangeAudit;
}

/** What `updateAudited` writes besides the values, and on which condition. */
export interface AuditedUpdate extends AuditedWrite {
  /**
   * SQL of the event's changes, a JSON text: the presented fields over `columns` (those the
   * update sets, those `includes` admits) that differ between the rows `before` and `after`
   * (`changedFieldsSql` of src/db/json-object.ts, with the record's shape).
   */
  changes: (
    columns: readonly string[],
    rows: { before: string; after: string },
    includes: (field: string) => boolean,
  ) => string;
}

/**
 * PostgreSQL: `casUpdateWithBefore` with a further condition (`guard`) that writes the audit
 * event of the change itself (the presented fields over the columns it sets that differ from
 * the row before), and answers the row after; parameters: `fromOldParameters`, then the
 * guard's, then the event's.
 */
function updateAuditedText(
  table: string,
  read: readonly string[] | undefined,
  sets: string[],
  { changes, guard, audit }: AuditedUpdate,
): string {
  return cachedText(`a|${table}|${guard.key}|${audit.key}|${sets.join()}`, () => {
    const changed = changes(sets, { before: 'old', after: 't' }, (field) => audit.includes(field));
    const update = updateFromOld(
      table,
      sets,
      ['id', ...sets].map(ident).join(', '),
      (first) => ` and ${guard.sql(first)}`,
      `${selectList(read, 't')}, ${changed} as audit_changes`,
    );
    const first = sets.length + 5 + guard.parameters.length;
    return `with changed as (${update}),
      audited as (${audit.sql('changed', 'audit_changes', first)})
      select ${selectList(read)} from changed`;
  });
}

/**
 * PostgreSQL, for a write in one round trip: the compare-and-set update with its audit event in
 * the same statement, the event's changes diffed by the database (`AuditedUpdate.changes`).
 * Deferred (`deferRead`): it goes out with the transaction's next statement or its COMMIT.
 * Answers a function giving the row after (`read` columns), or undefined when the version,
 * the record or the guard did not match — then nothing was written, the event neither.
 */
export async function updateAudited(
  db: Transaction<DB>,
  table: RecordTable,
  read: readonly string[] | undefined,
  key: { accountId: string; id: string; version: number },
  values: object,
  write: AuditedUpdate,
): Promise<() => Promise<unknown>> {
  const sets = assigned(values);
  const text = updateAuditedText(
    table,
    read,
    sets.map(([c]) => c),
    write,
  );
  const parameters = [
    ...fromOldParameters(sets, key),
    ...write.guard.parameters,
    ...write.audit.parameters,
  ];
  const rows = await deferRead(db, CompiledQuery.raw(text, parameters));
  return async () => (await rows())[0];
}

/** What `insertAudited` writes besides the row, and on which condition. */
export interface AuditedInsert extends AuditedWrite {
  /**
   * The record's tags, into its tag table (the same statement whether there are any or not);
   * absent for a table without tags.
   */
  tags?: { of: TagTable; values: readonly string[] };
  /** The event's changes, a JSON text (`auditedValues` of src/shared/audit.ts). */
  changes: string;
}

/**
 * PostgreSQL: the insert of one row (`columns`), its tags and its audit event as one statement,
 * on the guard's condition; parameters: the row's values, the guard's, the event's changes, the
 * tags (an array; none without a tag table), the event's. An `insert … select $1, …` takes its parameters' types from the
 * columns they go into, as `insert … values` does.
 */
function insertAuditedText(
  table: string,
  columns: readonly string[],
  { tags, guard, audit }: AuditedInsert,
): string {
  const key = `c|${table}|${tags?.of.table ?? ''}|${guard.key}|${audit.key}|${columns.join()}`;
  return cachedText(key, () => {
    const n = columns.length;
    const changes = n + 1 + guard.parameters.length;
    const tagged = tags
      ? `, tagged as (
        insert into ${ident(tags.of.table)} (account_id, ${ident(tags.of.owner)}, tag)
        select created.account_id, created.id, t.tag
        from created cross join unnest($${changes + 1}::text[]) with ordinality as t(tag, n)
        order by t.n
      )`
      : '';
    return `with created as (
        insert into ${ident(table)} (${columns.map(ident).join(', ')})
        select ${columns.map((_, i) => `$${i + 1}`).join(', ')} where ${guard.sql(n + 1)}
        returning id, account_id, $${changes}::text as audit_changes
      )${tagged}, audited as (${audit.sql('created', 'audit_changes', changes + (tags ? 2 : 1))})
      select count(*)::int as created from created`;
  });
}

/**
 * PostgreSQL, for a create in one round trip: the row, its tags and its audit event in one
 * statement, written only where the guard holds. Deferred (`deferRead`): it goes out with the
 * transaction's next statement or its COMMIT. Answers a function telling whether it wrote
 * (false: the guard did not hold, and nothing was written).
 */
export async function insertAudited<T extends RecordTable>(
  db: Transaction<DB>,
  table: T,
  row: Insertable<DB[T]>,
  write: AuditedInsert,
): Promise<() => Promise<boolean>> {
  const values = assigned(row);
  const text = insertAuditedText(
    table,
    values.map(([c]) => c),
    write,
  );
  const parameters = [
    ...values.map(([, v]) => v),
    ...write.guard.parameters,
    write.changes,
    ...(write.tags ? [write.tags.values] : []),
    ...write.audit.parameters,
  ];
  const rows = await deferRead<{ created: number }>(db, CompiledQuery.raw(text, parameters));
  return async () => (await rows())[0]?.created === 1;
}

/**
 * A statement built through the query builder once per dialect, then run as that text with new
 * parameters: for the hottest statements, where building and compiling cost more than the
 * database's own work. `build` gets the parameters the statement runs with, and must put them
 * into it in that order and nothing else (a constant goes in with `sql.lit`); the first build
 * checks that it did.
 */
export function compiledOnce<P extends unknown[], R>(
  build: (db: Executor, ...parameters: P) => Compilable<R>,
): (db: Executor, ...parameters: P) => CompiledQuery<R> {
  const texts = new Map<boolean, string>();
  return (db, ...parameters) => {
    const pg = isPostgres(db);
    let text = texts.get(pg);
    if (text === undefined) {
      const compiled = build(db, ...parameters).compile();
      if (!isDeepStrictEqual(compiled.parameters, parameters))
        throw new Error(`compiledOnce: parameters out of order in ${compiled.sql}`);
      text = compiled.sql;
      texts.set(pg, text);
    }
    return CompiledQuery.raw(text, parameters);
  };
}

/**
 * The point read of `table` (`read` columns, Kysely select strings such as `col as alias`;
 * every column when undefined): the hottest query of all, compiled once (`compiledOnce`;
 * building and compiling cost more than SQLite's read itself).
 */
export function pointRead(table: string, read: readonly string[] | undefined) {
  const query = compiledOnce((db: Executor, accountId: string, id: string) => {
    const from = loose(db).selectFrom(table);
    return (read ? from.select(read as unknown as 'id'[]) : from.selectAll())
      .where('account_id', '=', accountId)
      .where('id', '=', id);
  });
  const find = async (db: Executor, accountId: string, id: string): Promise<unknown> =>
    (await db.executeQuery(query(db, accountId, id))).rows[0];
  /** The same read started now, answered later (`deferFirst`). */
  const later = (db: Executor, accountId: string, id: string): Promise<Later<unknown>> =>
    deferFirst(db, query(db, accountId, id));
  return Object.assign(find, { later });
}

/**
 * `columns`: the row as the table's record queries read it, when that is not every column (a
 * column the database derives, like `partners.answer_json`, is not read back by every write).
 */
export function recordQueries<
  T extends RecordTable,
  C extends keyof Selectable<DB[T]> & string = keyof Selectable<DB[T]> & string,
>(name: T, columns?: readonly C[]) {
  type Row = Pick<Selectable<DB[T]>, C>;
  const table: string = name;
  const read = pointRead(table, columns);
  const find = (db: Executor, accountId: string, id: string) =>
    read(db, accountId, id) as Promise<Row | undefined>;
  /** `find` started now and answered later (`deferFirst`: deferred where PostgreSQL can). */
  const findLater = (db: Executor, accountId: string, id: string) =>
    read.later(db, accountId, id) as Promise<Later<Row | undefined>>;
  /** `casUpdate` of this table. */
  const update = (
    db: Executor,
    accountId: string,
    id: string,
    version: number,
    values: Partial<Row>,
    guard: Guard = {},
  ) =>
    casUpdate(db, table, columns, { accountId, id, version }, values, guard) as Promise<
      Row | undefined
    >;

  return {
    find,

    findLater,

    version: async (db: Executor, accountId: string, id: string): Promise<number | undefined> =>
      (
        await loose(db)
          .selectFrom(table)
          .select('version')
          .where('account_id', '=', accountId)
          .where('id', '=', id)
          .executeTakeFirst()
      )?.version,

    update,

    /**
     * `update`, answering the row as it was before as well (for the audit diff). PostgreSQL:
     * one statement — the old row joined in by `UPDATE … FROM`; when the compare-and-set
     * matched, no one changed the row between the two (its version would differ), so the
     * joined row is exactly what was replaced. SQLite (no round trips to save): a read first.
     */
    updateWithBefore: async (
      db: Executor,
      accountId: string,
      id: string,
      version: number,
      values: Partial<Row>,
    ): Promise<{ before: Row; after: Row } | undefined> => {
      if (isPostgres(db))
        return casUpdateWithBefore(
          db,
          table,
          columns,
          { accountId, id, version },
          values,
        ) as Promise<{ before: Row; after: Row } | undefined>;
      const before = await find(db, accountId, id);
      if (!before) return undefined;
      const after = await update(db, accountId, id, version, values);
      return after && { before, after };
    },

    /** Deletes when the version matches (any when undefined) and every `guard` column holds its value. */
    remove: async (
      db: Executor,
      accountId: string,
      id: string,
      version: number | undefined,
      guard: Guard = {},
    ): Promise<Row | undefined> => {
      let query = loose(db)
        .deleteFrom(table)
        .where('account_id', '=', accountId)
        .where('id', '=', id);
      if (version !== undefined) query = query.where('version', '=', version);
      for (const [column, value] of Object.entries(guard))
        query = query.where(column as 'id', '=', value as string);
      const deleted = columns
        ? query.returning(columns as unknown as 'id'[])
        : query.returningAll();
      return (await deleted.executeTakeFirst()) as Row | undefined;
    },
  };
}

/**
 * `insert into <table> (<columns>) values (…), …` for rows of one shape (the columns the first
 * row defines, in its order): its text is written once per table, shape and row count, as the
 * updates' are, instead of being built through the query builder on every create.
 */
function insertQuery<T extends keyof DB>(
  db: Executor,
  table: T,
  rows: readonly Insertable<DB[T]>[],
): CompiledQuery {
  const first = rows[0] as Record<string, unknown>;
  const columns = Object.keys(first).filter((c) => first[c] !== undefined);
  const pg = isPostgres(db);
  const text = cachedText(`i|${pg ? 'p' : 's'}|${table}|${rows.length}|${columns.join()}`, () => {
    const next = placeholders(pg);
    const tuple = () => `(${columns.map(next).join(', ')})`;
    return `insert into ${ident(table)} (${columns.map(ident).join(', ')}) values ${rows.map(tuple).join(', ')}`;
  });
  return CompiledQuery.raw(
    text,
    rows.flatMap((row) => columns.map((c) => (row as Record<string, unknown>)[c] ?? null)),
  );
}

/** Inserts rows of one shape (`insertQuery`), deferred (`deferInsert`); none: nothing. */
export async function deferInsertRows<T extends keyof DB>(
  db: Executor,
  table: T,
  rows: readonly Insertable<DB[T]>[],
): Promise<void> {
  if (rows.length > 0) await deferInsert(db, insertQuery(db, table, rows));
}

/** Adds tags to a record's join table (a new record: nothing to replace); deferred (`deferInsert`). */
export async function insertTags(
  db: Executor,
  tags: TagTable,
  accountId: string,
  ownerId: string,
  values: string[],
): Promise<void> {
  await deferInsertRows(
    db,
    tags.table,
    // The owner's column is chosen at run time; the types cannot follow it (see `loose`).
    values.map((tag) => ({ account_id: accountId, [tags.owner]: ownerId, tag }) as never),
  );
}

/**
 * Replaces a record's tags in its join table. The delete finds the rows by the primary key
 * `(owner, tag)`; the tag index leads with `tag`, so the planner cannot pick it and scan every
 * tag of the account instead (migration 0015).
 */
export async function replaceTags(
  db: Executor,
  tags: TagTable,
  accountId: string,
  ownerId: string,
  values: string[],
): Promise<void> {
  const ldb = db as unknown as Kysely<Record<string, Record<string, string>>>;
  await ldb
    .deleteFrom(tags.table)
    .where(tags.owner, '=', ownerId)
    .where('account_id', '=', accountId)
    .execute();
  await insertTags(db, tags, accountId, ownerId, values);
}

/** Rows per multi-row INSERT: well inside SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

/** Inserts `rows` as multi-row INSERTs of at most ~10,000 parameters (`columns` per row). */
export async function insertChunked<T extends keyof DB>(
  trx: Executor,
  table: T,
  rows: readonly Insertable<DB[T]>[],
  columns: number,
): Promise<void> {
  const size = Math.max(1, Math.floor((CHUNK * 20) / columns));
  for (let i = 0; i < rows.length; i += size)
    await trx
      .insertInto(table)
      .values(rows.slice(i, i + size))
      .execute();
}
