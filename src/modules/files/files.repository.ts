import type { Selectable } from 'kysely';
import { containsText } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import type { FilesTable } from '../../db/tables/files.js';
import { searchText } from '../../http/pagination.js';
import type { FileStatus } from './files.schemas.js';

export type FileRow = Selectable<FilesTable>;

/** File queries; every one is scoped by account (STYLE rule 3). */

export async function insertFile(db: Executor, row: FileRow): Promise<void> {
  await db.insertInto('files').values(row).execute();
}

export function findFile(
  db: Executor,
  accountId: string,
  id: string,
): Promise<FileRow | undefined> {
  return db
    .selectFrom('files')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface FileFilter {
  limit: number;
  afterId?: string;
  status?: string;
  contentType?: string;
  q?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export function listFiles(db: Executor, accountId: string, f: FileFilter): Promise<FileRow[]> {
  let query = db.selectFrom('files').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.contentType !== undefined) query = query.where('content_type', '=', f.contentType);
  if (f.q !== undefined) query = query.where(containsText('search_name', searchText(f.q)));
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/**
 * Compare-and-set of a PENDING file's outcome: UPLOADED with its hash, or REJECTED with the
 * reason. Only one of two concurrent attempts can win; the loser gets undefined.
 */
export function settlePending(
  db: Executor,
  accountId: string,
  id: string,
  values: { status: FileStatus; sha256?: string; rejection_reason?: string; updated_at: string },
): Promise<FileRow | undefined> {
  return db
    .updateTable('files')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the file row's write lock for the rest of the transaction (a no-op UPDATE) and answers
 * the row; with `status`, only when the file is in it. Used before writing a reference: a
 * concurrent delete waits for the referencing write, then sees its reference.
 */
export function lockFile(
  trx: Executor,
  accountId: string,
  id: string,
  status?: FileStatus,
): Promise<FileRow | undefined> {
  let query = trx
    .updateTable('files')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (status !== undefined) query = query.where('status', '=', status);
  return query.returningAll().executeTakeFirst();
}

/** The row lock of an UPLOADED file (see `lockFile`). */
export const lockUploaded = (trx: Executor, accountId: string, id: string) =>
  lockFile(trx, accountId, id, 'UPLOADED');

export function deleteFile(
  db: Executor,
  accountId: string,
  id: string,
): Promise<FileRow | undefined> {
  return db
    .deleteFrom('files')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
}

/** Bytes the account stores or has announced: PENDING and UPLOADED files (REJECTED hold none). */
export async function storageUsedBytes(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('files')
    .select((eb) => eb.fn.sum<number | string | null>('size').as('total'))
    .where('account_id', '=', accountId)
    .where('status', 'in', ['PENDING', 'UPLOADED'])
    .executeTakeFirst();
  return Number(row?.total ?? 0);
}

/**
 * Uploads of every account still PENDING after `before`, in id order after `after`: the expiry
 * job finds work across accounts, and each removal is scoped by the file's own account.
 */
export function abandonedUploads(
  db: Executor,
  before: string,
  after: string,
  limit: number,
): Promise<{ id: string; account_id: string }[]> {
  return db
    .selectFrom('files')
    .select(['id', 'account_id'])
    .where('status', '=', 'PENDING')
    .where('upload_expires_at', '<', before)
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
}
