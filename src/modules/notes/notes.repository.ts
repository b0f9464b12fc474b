import type { Selectable } from 'kysely';
import { recordQueries, type Executor } from '../../db/records.js';
import type { NotesTable } from '../../db/schema.js';

export type NoteRow = Selectable<NotesTable>;
const records = recordQueries('notes');

/** Note queries; every one is scoped by account (STYLE rule 3). */

export async function insertNote(trx: Executor, row: NoteRow): Promise<void> {
  await trx.insertInto('notes').values(row).execute();
}

export const findNote = records.find;

export const noteVersion = records.version;

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

/** The compare-and-set update (version, then values). */
export const updateNote = records.update;

/** Deletes when the version matches (any version when `version` is undefined). */
export const deleteNote = records.remove;
