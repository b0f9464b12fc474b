import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { Later } from '../../db/transactions.js';
import type { DB } from '../../db/schema.js';
import { isoDate } from '../../shared/dates.js';
import { emitEvents } from '../webhook-endpoints/index.js';
import { isPaid, openMinor, paymentState, presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { DocumentRow } from './documents.repository.js';

/** What announcing an event needs: the clock and the job queue of the webhook outbox. */
export type EventContext = Pick<AppContext, 'clock' | 'jobs'>;

/** Invoices judged per round of statements: well inside SQLite's and PostgreSQL's limits. */
const CHUNK = 500;

/**
 * Called in the transaction of every payment write with the invoices it touched: an invoice
 * whose settled payments now cover its gross total gets `paidAt` and `document.paid`, once;
 * one that no longer is paid (a payment undone) loses `paidAt`. The invoices' rows are locked
 * first (in id order, so two writers never wait on each other crosswise), so concurrent
 * payments of one invoice are judged one after the other and the one that completes it sees
 * the others. A DRAFT is judged when it becomes FINAL. Answers the invoices whose `paidAt`
 * changed, in id order.
 *
 * Set-based, so a bank statement settling thousands of invoices costs a handful of statements
 * per 500 of them, not a few per invoice: lock the chunk, judge it in memory on the figures its
 * rows keep (read after the payment writes, they hold what the database's triggers counted of
 * them, migration 0039), set or clear `paidAt` with one UPDATE each, and write the chunk's
 * `document.paid` events together.
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
  const today = isoDate(now);
  for (let from = 0; from < ids.length; from += CHUNK) {
    const locked = await repo.lockFinalDocuments(trx, accountId, ids.slice(from, from + CHUNK));
    const invoices = locked.filter(
      (row) => row.document_type === 'INVOICE' && row.invoice_type === 'INVOICE',
    );
    const byId = new Map(invoices.map((row) => [row.id, row]));
    const paid: DocumentRow[] = [];
    const unpaid: string[] = [];
    const settled = new Map<string, number>();
    for (const row of await repo.withStoredFigures(trx, accountId, invoices, today)) {
      // The presenter's rule: a vendor invoice paid by outgoing payments is paid as well.
      const isNowPaid =
        Number(row.gross_total) !== 0 && row.cancelled_by_document_id === null && isPaid(row);
      if (isNowPaid === (row.paid_at !== null)) continue;
      if (isNowPaid) paid.push(byId.get(row.id)!);
      else unpaid.push(row.id);
      settled.set(row.id, row.settled_minor);
    }
    const at = now.toISOString();
    const paidIds = paid.map((row) => row.id);
    const after = new Set([
      ...(await repo.setPaidAtMany(trx, accountId, paidIds, at, now)),
      ...(await repo.setPaidAtMany(trx, accountId, unpaid, null, now)),
    ]);
    // Locked since they were read: as updated, they are those rows with the update applied.
    const newlyPaid = paid
      .filter((row) => after.has(row.id))
      .map((row) => ({ ...row, paid_at: at, version: row.version + 1, updated_at: at }));
    await emitEvents(ctx, trx, accountId, 'document.paid', newlyPaid, (row) =>
      presentDocument({ ...row, settled_minor: settled.get(row.id)!, as_of: today }),
    );
    for (const row of locked) if (after.has(row.id)) changed.push(row.id);
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
 *
 * The read is started now and answered later (`findInvoicesLater`): in a PostgreSQL write whose
 * answer shows them, it goes out with the COMMIT.
 */
export async function invoiceStandingsLater(
  db: Executor,
  accountId: string,
  documentIds: readonly (string | null | undefined)[],
  today: string,
): Promise<Later<Map<string, InvoiceStanding>>> {
  const ids = documentIds.filter((id): id is string => !!id);
  const found = await repo.findInvoicesLater(db, accountId, ids, today);
  return async () => {
    const out = new Map<string, InvoiceStanding>();
    for (const row of await found()) {
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
  };
}
