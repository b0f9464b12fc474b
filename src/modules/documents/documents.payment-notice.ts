import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { DirectDebitNotice } from '../../shared/templating/index.js';
import type { DocumentRow } from './documents.repository.js';

/**
 * Where an invoice's payment text comes from besides the transfer details and the GiroCode:
 * a module that knows how an invoice is paid by direct debit (sepa) registers a source, and
 * the invoice layout prints the pre-notification it answers instead of the due date and the
 * GiroCode. Documents knows no mandate: the source decides, per app, whether one applies.
 */
export type DirectDebitNoticeSource = (
  db: Executor,
  invoice: DocumentRow,
  /** The day the invoice becomes (or became) FINAL: the day its notice reaches the debtor. */
  notifiedOn: string,
) => Promise<DirectDebitNotice | null>;

const sources = new WeakMap<object, DirectDebitNoticeSource>();

/** Registers the direct-debit source of an app (one per app; a second call replaces it). */
export function useDirectDebitNotices(ctx: AppContext, source: DirectDebitNoticeSource): void {
  sources.set(ctx, source);
}

/** The pre-notification an invoice prints, or null (no source, or not paid by direct debit). */
export function directDebitNoticeOf(
  ctx: AppContext,
  db: Executor,
  invoice: DocumentRow,
  notifiedOn: string,
): Promise<DirectDebitNotice | null> {
  if (invoice.document_type !== 'INVOICE' || invoice.invoice_type !== 'INVOICE')
    return Promise.resolve(null);
  const source = sources.get(ctx);
  return source ? source(db, invoice, notifiedOn) : Promise.resolve(null);
}
