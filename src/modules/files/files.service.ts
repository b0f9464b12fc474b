import { Readable } from 'node:stream';
import type { AppContext } from '../../context.js';
import { isForeignKeyViolation } from '../../db/dialect.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, searchText, toPage } from '../../http/pagination.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { assertUnreferenced, inUseByForeignKey } from '../../shared/references.js';
import { sanitizeFileName } from './content.js';
import { runDeleteHooks } from './file-references.js';
import { presentFile } from './files.presenter.js';
import * as repo from './files.repository.js';
import type {
  CreateUploadUrl,
  DownloadUrl,
  FileView,
  ListFiles,
  UploadUrl,
} from './files.schemas.js';
import { fileKey } from './keys.js';
import { assertStorageFits } from './storage-limit.js';
import { LocalFileStorage } from './storage.js';
import { requireUploadedFile, settle } from './uploaded-file.js';

/** `expiresAt` for a signed URL issued now: whole seconds, as the token stores it. */
function expiry(ctx: AppContext): Date {
  const ms = ctx.clock.now().getTime() + ctx.config.signedUrlTtlSeconds * 1000;
  return new Date(Math.floor(ms / 1000) * 1000);
}

function urlInvalid(): AppError {
  return new AppError('url_invalid', 'The signed URL is invalid or has expired.');
}

/** Ends the connection after answering: the rest of an oversized body is never read. */
const CLOSE = { headers: { connection: 'close' } };

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

export interface ReceivedUpload {
  token: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: unknown;
  requestId: string;
  ip: string;
}

/**
 * Files (decisions §8): upload URLs, the embedded storage's signed upload and download
 * routes, listing and deletion. Each write runs in one transaction with its audit event.
 */
export class FilesService {
  constructor(private readonly ctx: AppContext) {}

  async requestUpload(actor: Actor, input: CreateUploadUrl): Promise<UploadUrl> {
    const max = this.ctx.config.maxUploadBytes;
    if (input.size > max)
      throw new AppError('payload_too_large', `Files may be at most ${max} bytes.`, {
        errors: [{ path: '/body/size', message: `must be at most ${max}`, code: 'too_large' }],
      });
    const fileName = sanitizeFileName(input.fileName);
    if (fileName === '')
      throw new AppError('validation_failed', 'fileName has no usable characters.', {
        errors: [
          { path: '/body/fileName', message: 'has no usable characters', code: 'invalid_value' },
        ],
      });
    const now = this.ctx.clock.now();
    const id = newId('file');
    const key = fileKey(actor.accountId, id);
    const expiresAt = expiry(this.ctx);
    const uploadUrl = await this.ctx.storage.uploadUrl({
      fileId: id,
      accountId: actor.accountId,
      key,
      contentType: input.contentType,
      size: input.size,
      expiresAt,
    });
    const row: repo.FileRow = {
      id,
      account_id: actor.accountId,
      key,
      file_name: fileName,
      search_name: searchText(fileName),
      content_type: input.contentType,
      size: input.size,
      status: 'PENDING',
      sha256: null,
      rejection_reason: null,
      source: 'UPLOAD',
      created_by: actor.userId,
      upload_expires_at: expiresAt.toISOString(),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.ctx.db.transaction().execute(async (trx) => {
      await assertStorageFits(trx, this.ctx.accountPlans, actor.accountId, input.size, 'size');
      await repo.insertFile(trx, row);
      await appendAudit(
        trx,
        actor,
        {
          action: 'file.upload_requested',
          resourceType: 'file',
          resourceId: id,
          changes: presentFile(row),
        },
        now,
      );
    });
    return {
      fileId: id,
      key,
      uploadUrl,
      method: 'PUT',
      headers: { 'Content-Type': input.contentType },
      expiresAt: expiresAt.toISOString(),
    };
  }

  /**
   * The embedded storage's upload: the signed token names the file, its type and size; the
   * bytes must match all three and their magic number. Bytes of the wrong kind mark the file
   * REJECTED; a wrong size or header leaves it PENDING, so the client may retry until expiry.
   */
  async receiveUpload(upload: ReceivedUpload): Promise<FileView> {
    const storage = this.ctx.storage;
    if (!(storage instanceof LocalFileStorage)) throw urlInvalid();
    const grant = storage.signer.verifyUpload(upload.token, this.ctx.clock.now());
    if (!grant) throw urlInvalid();
    if (mediaType(upload.contentType) !== grant.contentType)
      throw new AppError(
        'unsupported_media_type',
        `Send Content-Type: ${grant.contentType}, as declared for this upload.`,
      );
    if (upload.contentLength !== undefined) {
      const length = Number(upload.contentLength);
      if (length > grant.size)
        throw new AppError(
          'payload_too_large',
          `The body is larger than the declared size of ${grant.size} bytes.`,
          CLOSE,
        );
      if (length < grant.size)
        throw new AppError(
          'content_mismatch',
          `The body has ${length} bytes; the declared size is ${grant.size}.`,
        );
    }
    const row = await repo.findFile(this.ctx.db, grant.accountId, grant.fileId);
    if (!row || row.key !== grant.key) throw notFound('File');
    if (row.status !== 'PENDING')
      throw new AppError('state_conflict', `The file is already ${row.status}.`);

    const source = upload.body instanceof Readable ? upload.body : Readable.from([]);
    let result;
    try {
      result = await storage.receive(row.key, source, {
        size: grant.size,
        contentType: grant.contentType,
      });
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EEXIST')
        throw new AppError('state_conflict', 'The file has already been uploaded.');
      throw err;
    }
    const actor: Actor = {
      accountId: row.account_id,
      userId: null,
      tokenId: null,
      type: 'system',
      requestId: upload.requestId,
      ip: upload.ip,
    };
    if (!result.ok) {
      if (result.reason === 'too_large')
        throw new AppError('payload_too_large', result.detail, CLOSE);
      if (result.reason === 'content' || result.reason === 'image_too_large')
        await settle(this.ctx, actor, row, result);
      throw new AppError(
        result.reason === 'image_too_large' ? 'file_unprocessable' : 'content_mismatch',
        result.detail,
      );
    }
    const after = await settle(this.ctx, actor, row, result);
    if (after.status !== 'UPLOADED' || after.sha256 !== result.sha256) {
      // Deleted or settled otherwise meanwhile: these bytes are not the file's.
      await storage.remove(row.key);
      throw new AppError('state_conflict', 'The file changed while it was uploaded.');
    }
    return presentFile(after);
  }

  async list(
    accountId: string,
    query: ListFiles,
  ): Promise<{ data: FileView[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listFiles(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      status: query.status,
      contentType: query.contentType,
      q: query.q,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentFile), nextCursor: page.nextCursor };
  }

  async get(accountId: string, id: string): Promise<FileView> {
    const row = await repo.findFile(this.ctx.db, accountId, id);
    if (!row) throw notFound('File');
    return presentFile(row);
  }

  async downloadUrl(actor: Actor, fileId: string): Promise<DownloadUrl> {
    const { file } = await requireUploadedFile(this.ctx, actor.accountId, fileId, { actor });
    const expiresAt = expiry(this.ctx);
    const url = await this.ctx.storage.downloadUrl({
      fileId: file.id,
      accountId: actor.accountId,
      key: file.key,
      fileName: file.fileName,
      contentType: file.contentType,
      expiresAt,
    });
    return { url, expiresAt: expiresAt.toISOString() };
  }

  /** The embedded storage's download: the file a genuine, unexpired token names, and its bytes. */
  async openDownload(token: string): Promise<{ file: FileView; stream: Readable }> {
    const storage = this.ctx.storage;
    if (!(storage instanceof LocalFileStorage)) throw urlInvalid();
    const grant = storage.signer.verifyDownload(token, this.ctx.clock.now());
    if (!grant) throw urlInvalid();
    const row = await repo.findFile(this.ctx.db, grant.accountId, grant.fileId);
    if (!row || row.key !== grant.key || row.status !== 'UPLOADED') throw notFound('File');
    return { file: presentFile(row), stream: await storage.open(row.key) };
  }

  /**
   * Deletes the record (refused with 409 `in_use` while referenced) with its audit event, then
   * the object; an object that cannot be removed is logged, not answered.
   */
  async remove(actor: Actor, id: string): Promise<void> {
    const now = this.ctx.clock.now();
    const row = await this.deleteRow(actor, id, now);
    try {
      await this.ctx.storage.remove(row.key);
    } catch (err) {
      this.ctx.logger.error({ err, fileId: id }, 'could not delete a deleted file’s stored object');
    }
  }

  private async deleteRow(actor: Actor, id: string, now: Date): Promise<repo.FileRow> {
    try {
      return await this.ctx.db.transaction().execute(async (trx) => {
        // The row lock first: a transaction adding a reference holds it (lockUploadedFile),
        // so this waits for that one to commit and then sees its reference.
        if (!(await repo.lockFile(trx, actor.accountId, id))) throw notFound('File');
        await assertUnreferenced(trx, 'file', actor.accountId, id);
        await runDeleteHooks(trx, actor.accountId, id);
        const deleted = await repo.deleteFile(trx, actor.accountId, id);
        if (!deleted) throw notFound('File');
        await appendAudit(
          trx,
          actor,
          {
            action: 'file.deleted',
            resourceType: 'file',
            resourceId: id,
            changes: presentFile(deleted),
          },
          now,
        );
        return deleted;
      });
    } catch (err) {
      // A foreign key (documents.file_id) is the backstop for references no check caught.
      if (isForeignKeyViolation(err)) throw inUseByForeignKey('file');
      throw err;
    }
  }
}
