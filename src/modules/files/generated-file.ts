import { createHash } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { searchText } from '../../http/pagination.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { sanitizeFileName, UPLOAD_CONTENT_TYPES } from './content.js';
import { presentFile } from './files.presenter.js';
import * as repo from './files.repository.js';
import type { FileView } from './files.schemas.js';
import { fileKey } from './keys.js';
import { assertStorageFits } from './storage-limit.js';

export interface GeneratedFile {
  /** Name the file is downloaded as, e.g. `Rechnung 2025-0001.pdf`. */
  fileName: string;
  /** One of the upload allow-list, e.g. `application/pdf`, `image/png`. */
  contentType: string;
  bytes: Buffer;
  /**
   * Refuse with 409 `storage_limit_exceeded` when the plan's storage is full (default true).
   * Pass false only for a file the account must keep whatever its plan, e.g. a FINAL
   * document's PDF (GoBD); it still counts toward the storage used.
   */
  enforceLimit?: boolean;
}

/**
 * Stores bytes Kontor produced itself (rendered PDFs, rasterised pages) as an UPLOADED file
 * of the actor's account, with its SHA-256 and a `file.generated` audit event. Pass your
 * transaction to make the record part of your write; the object is written first, and removed
 * again if the record cannot be inserted. (Should your transaction roll back later, the
 * object stays behind unreferenced: it holds no account data that a record points to.)
 */
export async function storeGeneratedFile(
  ctx: AppContext,
  actor: Actor,
  input: GeneratedFile,
  trx?: Transaction<DB>,
): Promise<FileView> {
  if (!(UPLOAD_CONTENT_TYPES as readonly string[]).includes(input.contentType))
    throw new Error(`storeGeneratedFile: content type ${input.contentType} is not allowed`);
  if (input.bytes.length === 0) throw new Error('storeGeneratedFile: no bytes');
  const fileName = sanitizeFileName(input.fileName) || 'file';
  const now = ctx.clock.now();
  const id = newId('file');
  const key = fileKey(actor.accountId, id);
  const row: repo.FileRow = {
    id,
    account_id: actor.accountId,
    key,
    file_name: fileName,
    search_name: searchText(fileName),
    content_type: input.contentType,
    size: input.bytes.length,
    status: 'UPLOADED',
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    rejection_reason: null,
    source: 'GENERATED',
    created_by: actor.userId,
    upload_expires_at: null,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
  const record = async (t: Transaction<DB>) => {
    if (input.enforceLimit !== false)
      await assertStorageFits(t, ctx.accountPlans, actor.accountId, row.size);
    await repo.insertFile(t, row);
    await appendAudit(
      t,
      actor,
      { action: 'file.generated', resourceType: 'file', resourceId: id, changes: presentFile(row) },
      now,
    );
  };
  await ctx.storage.write(key, input.bytes, input.contentType);
  try {
    await (trx ? record(trx) : ctx.db.transaction().execute(record));
  } catch (err) {
    await ctx.storage.remove(key).catch((removeErr: unknown) => {
      ctx.logger.error({ err: removeErr, fileId: id }, 'could not remove an unrecorded object');
    });
    throw err;
  }
  return presentFile(row);
}
