import { PDFDocument } from 'pdf-lib';
import type { AppContext } from '../../context.js';
import { AppError, referenceNotFound } from '../../shared/errors.js';
import { bodyFieldError } from '../../http/field-rules.js';
import type { Actor } from '../../shared/audit.js';
import { rasterizePdf } from '../../shared/pdf/rasterize.js';
import { requireUploadedFile, storeGeneratedFile } from '../files/index.js';
import * as repo from './documents.repository.js';
import type { Rasterize, Rasterized } from './documents.schemas.js';

const firstPages = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** Pages of a PDF by its page tree (cheap); undefined when pdf-lib cannot read it. */
async function pageCountOf(bytes: Buffer): Promise<number | undefined> {
  try {
    return (
      await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false })
    ).getPageCount();
  } catch {
    return undefined;
  }
}

/**
 * `POST /v1/documents/rasterize` (decisions §9): the pages of a document's PDF, or of an
 * uploaded PDF file, as PNG files of the account (72–300 dpi, default 150; default the
 * first 10 pages), answered with their file ids and sizes.
 */
export async function rasterizeDocument(
  ctx: AppContext,
  actor: Actor,
  input: Rasterize,
): Promise<Rasterized> {
  const { accountId } = actor;
  if ((input.documentId === undefined) === (input.fileId === undefined))
    throw new AppError(
      'validation_failed',
      'Give exactly one of documentId and fileId.',
      bodyFieldError(
        input.documentId === undefined ? 'fileId' : 'documentId',
        'exactly one of documentId and fileId is required',
        'one_of',
      ),
    );
  let fileId = input.fileId;
  let sourceField = 'fileId';
  if (input.documentId !== undefined) {
    sourceField = 'documentId';
    const row = await repo.findDocument(ctx.db, accountId, input.documentId);
    if (!row) throw referenceNotFound('documentId', 'Document');
    if (!row.file_id || row.file_type !== 'application/pdf')
      throw new AppError(
        'business_rule_violated',
        `Document ${row.id} has no PDF${row.source === 'GENERATED' ? ' yet (it is rendered when FINAL or processed)' : ''}.`,
        bodyFieldError('documentId', 'has no PDF', 'no_pdf'),
      );
    fileId = row.file_id;
  }
  const file = await requireUploadedFile(ctx, accountId, fileId!, {
    field: sourceField === 'fileId' ? 'fileId' : undefined,
    accept: ['application/pdf'],
    actor,
  });
  const dpi = input.dpi ?? 150;
  const bytes = await file.read();
  const pages = await rasterizePdf(bytes, {
    dpi,
    pages: input.pages ?? firstPages(Math.min(10, (await pageCountOf(bytes)) ?? 10)),
  });
  const base = file.file.fileName.replace(/\.pdf$/i, '');
  const out: Rasterized['pages'] = [];
  await ctx.db.transaction().execute(async (trx) => {
    for (const p of pages) {
      const png = await storeGeneratedFile(
        ctx,
        actor,
        { fileName: `${base} - Seite ${p.page}.png`, contentType: 'image/png', bytes: p.png },
        trx,
      );
      out.push({
        page: p.page,
        fileId: png.id,
        width: p.width,
        height: p.height,
        size: p.png.length,
      });
    }
  });
  return { sourceFileId: file.file.id, dpi, pages: out };
}
