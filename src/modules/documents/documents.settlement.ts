import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import { isoDate } from '../../shared/dates.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { isPaid, openMinor, paymentState, presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';

/** What announcing an event needs: the clock and the job queue of the webhook outbox. */
export type EventContext = Pick<AppContext, 'clock' | 'jobs'>;

/**
 * Called in the transaction of every payment write with the invoices it touched: an invoice
 * whose settled payments now cover its gross total gets `paidAt` and `document.paid`, once;
 * one that no longer is paid (a payment undone) loses `paidAt`. Each invoice's row is locked
 * first (in id order, so two writers never wait on each other crosswise), so concurrent
 * payments of one invoice are judged one after the other and the one that completes it sees
 * the others. A DRAFT is judged when it becomes FINAL. Answers the invoices whose `paidAt`
 * changed.
 */
export async function recordSettlement(
  ctx: EventContext,
  trx: Transaction<DB>,
  accountId: string,
  documentIds: readonly (string | null | undefined)[],
): Promise<string[]> {
  const changed: string[] = [];
  const ids = [...new Set(documentIds.filter((id): id is string => !!id))].sort();
  const now = ctx.clock.now();
  for (const id of ids) {
    const row = await repo.lockFinalDocument(trx, accountId, id);
    if (!row || row.document_type !== 'INVOICE' || row.invoice_type !== 'INVOICE') continue;
    const [figures] = await repo.withPaymentFigures(trx, accountId, [row], isoDate(now));
    // The presenter's rule: a vendor invoice paid by outgoing payments is paid as well.
    const paid =
      Number(row.gross_total) !== 0 && row.cancelled_by_document_id === null && isPaid(figures!);
    if (paid === (row.paid_at !== null)) continue;
    const after = await repo.setPaidAt(trx, accountId, id, paid ? now.toISOString() : null, now);
    if (after) changed.push(id);
    if (paid && after)
      await emitEvent(
        ctx,
        trx,
        accountId,
        'document.paid',
        presentDocument({ ...after, settled_minor: figures!.settled_minor, as_of: isoDate(now) }),
      );
  }
  return changed;
}

/** Where an invoice stands after a payment write: what a payment's answer tells about it. */
export interface InvoiceStanding {
  id: string;
  documentNumber: string | null;
  currency: string;
  paymentStatus: 'UNPAID' | 'PARTIAL' | 'PAID';
  /** Gross total less settled payments and FINAL credit notes, never below 0; minor units. */
  openMinor: number;
  paidAt: string | null;
}

/**
 * The standing of the invoices among `documentIds` (other documents are left out), read in
 * the caller's transaction so it includes the write just made. `paymentStatus` is the
 * invoice's own (decisions §7); the open amount is what dunning claims: the gross total less
 * the settled payments (in either direction, as `paymentStatus` counts them) and the FINAL
 * credit notes against it.
 */
export async function invoiceStandings(
  db: Executor,
  accountId: string,
  documentIds: readonly (string | null | undefined)[],
  today: string,
): Promise<Map<string, InvoiceStanding>> {
  const ids = documentIds.filter((id): id is string => !!id);
  const out = new Map<string, InvoiceStanding>();
  const rows = await repo.findInvoices(db, accountId, ids, today);
  if (rows.length === 0) return out;
  for (const row of rows) {
    // A FINAL invoice's is the open amount its own answer shows (`openAmount`); a draft's or a
    // credit note's is its gross total less what was settled.
    const open =
      openMinor(row) ?? Math.max(0, Number(row.gross_total) - Math.abs(row.settled_minor));
    out.set(row.id, {
      id: row.id,
      documentNumber: row.document_number,
      currency: row.currency,
      paymentStatus: paymentState(row).paymentStatus ?? 'UNPAID',
      openMinor: open,
      paidAt: row.paid_at,
    });
  }
  return out;
}
