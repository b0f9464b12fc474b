import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { compareAndSet, versionConflict, type IfMatch } from '../../shared/concurrency.js';
import { isoDate } from '../../shared/dates.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import * as repo from './documents.repository.js';
import {
  DEFAULT_NUMBER_FORMATS,
  formatProblems,
  formatsOf,
  provisionalNumber,
  type NumberFormats,
} from './numbering.js';
import type { InvoiceNumbering, PutInvoiceNumbering } from './numbering.schemas.js';

const WHAT = 'The invoice numbering';

/**
 * `GET/PUT /v1/documents/numbering` (docs/invoicing.md §8): the account's number formats.
 * Nothing saved means the defaults at version 0; the first PUT saves version 1, later ones are
 * compare-and-set on `version` / `If-Match`. A new format applies to invoices finalized after
 * it; FINAL invoices keep their numbers.
 */
export async function getNumbering(ctx: AppContext, accountId: string): Promise<InvoiceNumbering> {
  return present(ctx, ctx.db, accountId, await repo.findNumbering(ctx.db, accountId));
}

export async function putNumbering(
  ctx: AppContext,
  actor: Actor,
  input: PutInvoiceNumbering,
  ifMatch: IfMatch,
): Promise<InvoiceNumbering> {
  const errors: FieldError[] = [
    ...(input.invoiceFormat === undefined
      ? []
      : formatProblems(input.invoiceFormat, '/body/invoiceFormat')),
    ...(input.creditNoteFormat === undefined
      ? []
      : formatProblems(input.creditNoteFormat, '/body/creditNoteFormat')),

    ...(input.quoteFormat === undefined
      ? []
      : formatProblems(input.quoteFormat, '/body/quoteFormat')),
    ...(input.orderConfirmationFormat === undefined
      ? []
      : formatProblems(input.orderConfirmationFormat, '/body/orderConfirmationFormat')),
  ];
  if (errors.length > 0)
    throw new AppError('validation_failed', 'The number formats are not valid.', { errors });
  const at = ctx.clock.now();
  const now = at.toISOString();
  return ctx.db.transaction().execute(async (trx) => {
    const before = await repo.findNumbering(trx, actor.accountId);
    const values = {
      invoice_format:
        input.invoiceFormat ?? before?.invoice_format ?? DEFAULT_NUMBER_FORMATS.invoice,
      credit_note_format:
        input.creditNoteFormat ?? before?.credit_note_format ?? DEFAULT_NUMBER_FORMATS.creditNote,
      quote_format: input.quoteFormat ?? before?.quote_format ?? null,
      order_confirmation_format:
        input.orderConfirmationFormat ?? before?.order_confirmation_format ?? null,
      updated_at: now,
    };
    const after = before
      ? await compareAndSet({
          expected: input.version,
          ifMatch,
          what: WHAT,
          run: (version) =>
            repo.updateNumbering(trx, actor.accountId, version ?? before.version, values),
          current: () => Promise.resolve(before.version),
        })
      : await firstSave(trx, actor.accountId, input.version, ifMatch, {
          account_id: actor.accountId,
          ...values,
          version: 1,
          created_at: now,
        });
    const formats = (row: repo.NumberingRow | undefined) => {
      const f = row ? formatsOf(row) : DEFAULT_NUMBER_FORMATS;
      return {
        invoiceFormat: f.invoice,
        creditNoteFormat: f.creditNote,
        quoteFormat: f.quote,
        orderConfirmationFormat: f.orderConfirmation,
      };
    };
    await appendAudit(
      trx,
      actor,
      {
        action: before ? 'invoice_numbering.updated' : 'invoice_numbering.created',
        resourceType: 'invoice_numbering',
        resourceId: actor.accountId,
        changes: diff(formats(before), formats(after)),
      },
      at,
    );
    return present(ctx, trx, actor.accountId, after);
  });
}

/**
 * The first save of an account still on the defaults (version 0): a version or `If-Match`
 * other than 0 is stale; a concurrent first save that won makes this one a 409.
 */
async function firstSave(
  trx: Executor,
  accountId: string,
  version: number | undefined,
  ifMatch: IfMatch,
  row: repo.NumberingRow,
): Promise<repo.NumberingRow> {
  if (typeof ifMatch === 'number' && ifMatch !== 0)
    throw new AppError(
      'precondition_failed',
      'If-Match does not match the current version 0 (no formats saved yet).',
      { members: { currentVersion: 0 } },
    );
  if (version !== undefined && version !== 0) throw versionConflict(WHAT, 0);
  const saved = await repo.insertNumbering(trx, row);
  if (saved) return saved;
  const current = await repo.findNumbering(trx, accountId);
  throw versionConflict(WHAT, current?.version ?? 0);
}

/** The formats and the numbers an invoice and a credit note dated today would get. */
async function present(
  ctx: AppContext,
  db: Executor,
  accountId: string,
  row: repo.NumberingRow | undefined,
): Promise<InvoiceNumbering> {
  const formats: NumberFormats = row ? formatsOf(row) : DEFAULT_NUMBER_FORMATS;
  const today = isoDate(ctx.clock.now());
  const next = (invoiceType: string, documentType = 'INVOICE') =>
    provisionalNumber(
      db,
      {
        account_id: accountId,
        document_type: documentType,
        invoice_type: invoiceType,
        creation_date: today,
      },
      formats,
    );
  return {
    invoiceFormat: formats.invoice,
    creditNoteFormat: formats.creditNote,
    quoteFormat: formats.quote,
    orderConfirmationFormat: formats.orderConfirmation,
    nextInvoiceNumber: await next('INVOICE'),
    nextCreditNoteNumber: await next('CREDIT_NOTE'),
    nextQuoteNumber: await next('INVOICE', 'QUOTE'),
    nextOrderConfirmationNumber: await next('INVOICE', 'ORDER_CONFIRMATION'),
    version: row?.version ?? 0,
    updatedAt: row?.updated_at ?? null,
  };
}
