import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, NotesTable } from '../../db/schema.js';

export type NoteRow = Selectable<NotesTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** Note queries; every one is scoped by account (STYLE rule 3). */

export async function insertNote(trx: Executor, row: NoteRow): Promise<void> {
  await trx.insertInto('notes').values(row).execute();
}

export async function findNote(
  db: Executor,
  accountId: string,
  id: string,
): Promise<NoteRow | undefined> {
  return db
    .selectFrom('notes')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function noteVersion(
  db: Executor,
  accountId: string,
  id: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('notes')
    .select('version')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.version;
}

/** Whether `id` is a record of `table` in the account: the parent check of a new note. */
export async function parentExists(
  db: Executor,
  accountId: string,
  table: 'partners' | 'contracts',
  id: string,
): Promise<boolean> {
  const row = await db
    .selectFrom(table)
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row !== undefined;
}

export interface NoteFilter {
  limit: number;
  afterId?: string;
  parentType?: string;
  parentId?: string;
  type?: string;
  done?: boolean;
  dueBefore?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listNotes(
  db: Executor,
  accountId: string,
  f: NoteFilter,
): Promise<NoteRow[]> {
  let query = db.selectFrom('notes').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.parentType !== undefined) query = query.where('parent_type', '=', f.parentType);
  if (f.parentId !== undefined) query = query.where('parent_id', '=', f.parentId);
  if (f.type !== undefined) query = query.where('type', '=', f.type);
  if (f.done !== undefined) query = query.where('done', '=', f.done ? 1 : 0);
  if (f.dueBefore !== undefined) query = query.where('due_date', '<', f.dueBefore);
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** The compare-and-set update: applied only when the stored version equals `version`. */
export async function updateNote(
  trx: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<NoteRow>,
): Promise<NoteRow | undefined> {
  return trx
    .updateTable('notes')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes when the version matches (any version when `version` is undefined). */
export async function deleteNote(
  trx: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
): Promise<NoteRow | undefined> {
  let query = trx.deleteFrom('notes').where('account_id', '=', accountId).where('id', '=', id);
  if (version !== undefined) query = query.where('version', '=', version);
  return query.returningAll().executeTakeFirst();
}
