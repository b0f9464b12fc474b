import type { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { AppError, notFound, referenceNotFound, type FieldError } from '../../shared/errors.js';
import { appendAudit, systemActor, type Actor } from '../../shared/audit.js';
import { downscaleImage, PDF_IMAGE_MAX_SIDE } from '../../shared/pdf/downscale-image.js';
import { presentFile } from './files.presenter.js';
import * as repo from './files.repository.js';
import type { FileView } from './files.schemas.js';
import type { FileStorage, Received } from './storage.js';
import type { S3FileStorage } from './storage.s3.js';
import { IMAGE_CONTENT_TYPES } from './content.js';
import { assertImageFits, IMAGE_HEAD_BYTES, imageLimits } from './image-dimensions.js';

/** An accepted file: its record and its bytes. */
export interface UploadedFile {
  file: FileView;
  /** The bytes as a stream (the caller consumes or destroys it). */
  open(): Promise<Readable>;
  /** All the bytes in memory (files are at most `MAX_UPLOAD_BYTES`, or what Kontor generated). */
  read(): Promise<Buffer>;
}

export interface RequireFileOptions {
  /**
   * The request body field that named the file, e.g. `photoFileId`: problems then point at
   * `/body/<field>` and a missing file is 422 `reference_not_found` instead of 404.
   */
  field?: string;
  /** Content types the caller can use, e.g. `IMAGE_CONTENT_TYPES`; others answer 422. */
  accept?: readonly string[];
  /** The storage key the client sent along (bank imports): must be the file's key. */
  key?: string;
  /** Body field of `key` (default `key`). */
  keyField?: string;
  /** Who triggers the check, for the audit event when it settles a PENDING file. */
  actor?: Actor;
}

function problem(field: string | undefined, message: string, code: string): FieldError[] {
  return field ? [{ path: `/body/${field}`, message, code }] : [];
}

/** The system as the actor of a check nobody in particular triggered. */
export { systemActor };

function rejected(row: repo.FileRow, field: string | undefined): AppError {
  const detail = `File ${row.id} was rejected: ${row.rejection_reason ?? 'its content did not match its declared type'}`;
  return new AppError('content_mismatch', detail, {
    errors: problem(field, 'was rejected: its content does not match its type', 'content_mismatch'),
  });
}

/**
 * Records the outcome of checking a PENDING file's bytes, with its audit event, in one
 * transaction. The status change is compare-and-set: when another check won the race, its
 * outcome stands and is answered.
 */
export async function settle(
  ctx: AppContext,
  actor: Actor,
  row: repo.FileRow,
  result: Received,
): Promise<repo.FileRow> {
  const now = ctx.clock.now();
  const settled = await ctx.db.transaction().execute(async (trx) => {
    const after = await repo.settlePending(
      trx,
      row.account_id,
      row.id,
      result.ok
        ? { status: 'UPLOADED', sha256: result.sha256, updated_at: now.toISOString() }
        : { status: 'REJECTED', rejection_reason: result.detail, updated_at: now.toISOString() },
    );
    if (!after) return undefined;
    await appendAudit(
      trx,
      actor,
      {
        action: result.ok ? 'file.uploaded' : 'file.rejected',
        resourceType: 'file',
        resourceId: row.id,
        changes: result.ok
          ? { status: { from: 'PENDING', to: 'UPLOADED' }, sha256: result.sha256 }
          : { status: { from: 'PENDING', to: 'REJECTED' }, rejectionReason: result.detail },
      },
      now,
    );
    return after;
  });
  return settled ?? (await repo.findFile(ctx.db, row.account_id, row.id)) ?? row;
}

/**
 * The S3 storage, told by its kind and its `promote` (the class itself is loaded only for S3,
 * so `instanceof` would load the SDK).
 */
const isS3 = (storage: FileStorage): storage is S3FileStorage =>
  storage.kind === 's3' && 'promote' in storage;

/** S3: accepts the object a presigned upload left, or rejects it; local uploads settle on PUT. */
async function verifyPending(
  ctx: AppContext,
  row: repo.FileRow,
  actor: Actor,
): Promise<repo.FileRow> {
  if (!isS3(ctx.storage)) return row;
  const result = await ctx.storage.promote(row.key, {
    size: Number(row.size),
    contentType: row.content_type,
  });
  if (result === undefined) return (await repo.findFile(ctx.db, row.account_id, row.id)) ?? row;
  return settle(ctx, actor, row, result);
}

async function readAll(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > limit) throw new Error('the stored object is larger than its record says');
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size);
}

/**
 * THE entry point for every module that uses a file (documents, bank imports, product
 * photos, partner logos): the file of the account, with its bytes, once they are accepted.
 * A PENDING file in S3 is checked here first (size, type, magic numbers, SHA-256) and becomes
 * UPLOADED or REJECTED. Call it before opening your transaction (it may talk to S3), then
 * `lockUploadedFile` inside it.
 *
 * Errors: unknown file → 404 (422 `reference_not_found` with `field`); key mismatch or a type
 * outside `accept` → 422 `business_rule_violated`; not uploaded yet → 409 `state_conflict`;
 * REJECTED → 422 `content_mismatch`.
 */
export async function requireUploadedFile(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  options: RequireFileOptions = {},
): Promise<UploadedFile> {
  const { field } = options;
  let row = await repo.findFile(ctx.db, accountId, fileId);
  if (!row) throw field ? referenceNotFound(field, 'File') : notFound('File');
  if (options.key !== undefined && options.key !== row.key) {
    const keyField = options.keyField ?? 'key';
    throw new AppError('business_rule_violated', `${keyField} is not the key of file ${row.id}.`, {
      errors: [
        { path: `/body/${keyField}`, message: 'is not the key of the file', code: 'mismatch' },
      ],
    });
  }
  if (options.accept && !options.accept.includes(row.content_type))
    throw new AppError(
      'business_rule_violated',
      `File ${row.id} is ${row.content_type}; expected ${options.accept.join(', ')}.`,
      {
        errors: problem(field, `must be ${options.accept.join(', ')}`, 'wrong_content_type'),
      },
    );
  if (row.status === 'PENDING')
    row = await verifyPending(ctx, row, options.actor ?? systemActor(accountId));
  if (row.status === 'REJECTED') throw rejected(row, field);
  if (row.status !== 'UPLOADED')
    throw new AppError('state_conflict', `File ${row.id} has not been uploaded yet.`, {
      errors: problem(field, 'has not been uploaded yet', 'not_uploaded'),
    });
  const accepted = row;
  return {
    file: presentFile(accepted),
    open: () => ctx.storage.open(accepted.key),
    read: async () => readAll(await ctx.storage.open(accepted.key), Number(accepted.size)),
  };
}

/**
 * Inside the transaction that stores a reference to a file: locks the file row until commit
 * and answers it, or 422 `reference_not_found` when it is gone or not UPLOADED. A concurrent
 * delete then waits for this transaction and sees the new reference (409 `in_use`).
 */
export async function lockUploadedFile(
  trx: Executor,
  accountId: string,
  fileId: string,
  field: string,
): Promise<FileView> {
  const row = await repo.lockUploaded(trx, accountId, fileId);
  if (!row) throw referenceNotFound(field, 'Uploaded file');
  return presentFile(row);
}

/** Up to `limit` leading bytes of a stream, which is then destroyed. */
async function readHead(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size >= limit) break;
    }
  } finally {
    stream.destroy();
  }
  return Buffer.concat(chunks, size).subarray(0, limit);
}

/**
 * A record's image reference (a product photo, a partner logo, the account logo): an
 * uploaded image of the account whose header declares at most `IMAGE_MAX_PIXELS` and
 * `IMAGE_MAX_SIDE` (files uploaded before that check existed are checked here too), or 422
 * at `/body/<field>`. Call it before the transaction and `lockUploadedFile` inside it.
 */
export async function requireImageFile(
  ctx: AppContext,
  actor: Actor,
  fileId: string | null | undefined,
  field: string,
): Promise<void> {
  if (fileId == null) return;
  const image = await requireUploadedFile(ctx, actor.accountId, fileId, {
    field,
    accept: IMAGE_CONTENT_TYPES,
    actor,
  });
  const head = await readHead(await image.open(), IMAGE_HEAD_BYTES);
  assertImageFits(image.file.contentType, head, imageLimits(ctx.config), field);
}

/**
 * An uploaded image of the account as a `data:` URI for a PDF (the account logo): checked
 * against the pixel caps by its header before anything decodes it — a logo chosen before the
 * caps existed may be an image bomb — and scaled to at most `maxSide` pixels on its longer
 * side. Errors as `requireUploadedFile`, and 422 `file_unprocessable` over the caps.
 */
export async function imageDataUriForPdf(
  ctx: AppContext,
  accountId: string,
  fileId: string,
  maxSide = PDF_IMAGE_MAX_SIDE,
): Promise<string> {
  const file = await requireUploadedFile(ctx, accountId, fileId, { accept: IMAGE_CONTENT_TYPES });
  const bytes = await file.read();
  const { contentType } = file.file;
  const size = assertImageFits(contentType, bytes, imageLimits(ctx.config));
  const image = await downscaleImage({ contentType, bytes }, size, maxSide);
  return `data:${image.contentType};base64,${image.bytes.toString('base64')}`;
}
