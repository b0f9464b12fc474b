import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { recordSettlement, type EventContext } from '../documents/index.js';
import { presentPayment } from './payments.presenter.js';
import * as repo from './payments.repository.js';
import type { Links } from './payments.rules.js';
import type {
  Payment,
  PaymentDirection,
  PaymentMethod,
  PaymentSource,
  PaymentStatus,
} from './payments.schemas.js';

/**
 * What other modules (the provider webhook, bank statement imports) use to write payments: the
 * row, its search text, `markedAt` and the audit event are kept consistent in one place, and
 * every write of a MARKED payment judges its invoice paid (`document.paid`) or no longer paid.
 * Every function runs in the caller's transaction.
 */

export type { PaymentRow } from './payments.repository.js';
export {
  findPaymentByProviderId,
  findPayment,
  findPayments,
  paymentSearchText,
} from './payments.repository.js';
export { presentPayment } from './payments.presenter.js';
export {
  resolveLinks,
  assertDocumentCurrency,
  assertHasPartner,
  bodyPath,
  type FieldPath,
  type LinkInput,
  type Links,
} from './payments.rules.js';

export interface NewPayment {
  accountId: string;
  direction: PaymentDirection;
  links: Omit<Links, 'documentCurrency' | 'documentRefund'>;
  /** Positive integer minor units of `currency`. */
  amountMinor: number;
  currency: string;
  paymentDate: string;
  status: PaymentStatus;
  paymentMethod: PaymentMethod | null;
  providerPaymentIntentId: string | null;
  failureReason: string | null;
  source: PaymentSource;
  importId: string | null;
}

/** A new payment row at version 1; `markedAt` is now when it starts MARKED. */
export function newPaymentRow(p: NewPayment, now: Date): repo.PaymentRow {
  const at = now.toISOString();
  const links = {
    document_id: p.links.document_id,
    document_number: p.links.document_number,
    contract_id: p.links.contract_id,
    contract_name: p.links.contract_name,
    partner_id: p.links.partner_id,
    partner_name: p.links.partner_name,
  };
  return {
    id: newId('payment'),
    account_id: p.accountId,
    direction: p.direction,
    ...links,
    amount: p.amountMinor,
    currency: p.currency,
    payment_date: p.paymentDate,
    status: p.status,
    payment_method: p.paymentMethod,
    provider_payment_intent_id: p.providerPaymentIntentId,
    failure_reason: p.failureReason,
    marked_at: p.status === 'MARKED' ? at : null,
    source: p.source,
    import_id: p.importId,
    search_text: repo.paymentSearchText(links),
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

/** Inserts the row and its `payment.created` event (with `context`, e.g. the provider event). */
export async function createPaymentRecord(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  row: repo.PaymentRow,
  now: Date,
  context: Record<string, unknown> = {},
): Promise<Payment> {
  await repo.insertPayment(trx, row);
  if (row.status === 'MARKED') await recordSettlement(ctx, trx, row.account_id, [row.document_id]);
  const payment = presentPayment(row);
  await appendAudit(
    trx,
    actor,
    {
      action: 'payment.created',
      resourceType: 'payment',
      resourceId: row.id,
      changes: { ...payment, ...context },
    },
    now,
  );
  return payment;
}

/**
 * Applies `values` to `before` by compare-and-set on its version, keeping `markedAt` and the
 * search text consistent, and appends `payment.marked` (status became MARKED) or
 * `payment.updated`. Answers undefined when the version moved meanwhile (nothing written).
 */
export async function updatePaymentRecord(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  before: repo.PaymentRow,
  values: Partial<repo.PaymentRow>,
  now: Date,
  context: Record<string, unknown> = {},
): Promise<{ before: repo.PaymentRow; after: repo.PaymentRow } | undefined> {
  const set: Partial<repo.PaymentRow> = { ...values, updated_at: now.toISOString() };
  const status = values.status ?? before.status;
  if (status !== before.status) set.marked_at = status === 'MARKED' ? now.toISOString() : null;
  const merged = { ...before, ...set };
  set.search_text = repo.paymentSearchText(merged);
  const after = await repo.updatePayment(trx, before.account_id, before.id, before.version, set);
  if (!after) return undefined;
  if (before.status === 'MARKED' || after.status === 'MARKED')
    await recordSettlement(ctx, trx, before.account_id, [before.document_id, after.document_id]);
  const marked = before.status !== 'MARKED' && after.status === 'MARKED';
  await appendAudit(
    trx,
    actor,
    {
      action: marked ? 'payment.marked' : 'payment.updated',
      resourceType: 'payment',
      resourceId: before.id,
      changes: { ...diff(presentPayment(before), presentPayment(after)), ...context },
    },
    now,
  );
  return { before, after };
}

/**
 * A bank statement's booking (bank imports' finalize): new MARKED payments for its lines,
 * inserted together. No event per line: the import's `bank_import.finalized` event counts
 * them, and each payment names its import (`import_id`). The invoices they pay, and those of
 * the open payments the statement marked (`markedDocumentIds`), are judged paid in one pass in
 * id order, so two imports booked at once never wait on each other's invoices crosswise.
 */
export async function insertImportedPayments(
  ctx: EventContext,
  trx: Transaction<DB>,
  accountId: string,
  rows: repo.PaymentRow[],
  markedDocumentIds: readonly (string | null)[],
): Promise<void> {
  await repo.insertPayments(trx, rows);
  await recordSettlement(ctx, trx, accountId, [
    ...rows.map((r) => r.document_id),
    ...markedDocumentIds,
  ]);
}

/** Payments booked per UPDATE: well inside SQLite's and PostgreSQL's parameter limits. */
const CHUNK = 500;

/**
 * Imported lines pay open payments: PENDING (or MARKED by hand, unconfirmed) → MARKED, a few
 * hundred per statement. Answers the payments booked, each with the invoice it pays (null:
 * none), for `insertImportedPayments` to judge; one no longer open is left out.
 */
export async function markPaymentsImported(
  trx: Transaction<DB>,
  accountId: string,
  paymentIds: readonly string[],
  importId: string,
  at: string,
): Promise<Map<string, string | null>> {
  const marked = new Map<string, string | null>();
  const ids = [...new Set(paymentIds)];
  for (let from = 0; from < ids.length; from += CHUNK)
    for (const row of await repo.markImported(
      trx,
      accountId,
      ids.slice(from, from + CHUNK),
      importId,
      at,
    ))
      marked.set(row.id, row.document_id);
  return marked;
}
