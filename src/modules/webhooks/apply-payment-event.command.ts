import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import type { Actor } from '../../shared/audit.js';
import {
  assertDocumentCurrency,
  createPaymentRecord,
  findPaymentByProviderId,
  newPaymentRow,
  resolveLinks,
  updatePaymentRecord,
  type Links,
  type PaymentRow,
  type PaymentMethod,
} from '../payments/index.js';
import { assertSameAccount, attribute } from './payment-event-accounts.js';
import type { PaymentWebhookAck } from './payment-webhook.schemas.js';
import type { ProviderEvent, ProviderPaymentEvent, ProviderRefundEvent } from './payment-events.js';
import { recordWebhookEvent } from './webhooks.repository.js';

/** The compare-and-set lost to a concurrent write: the whole delivery is tried again. */
class Contended extends Error {}

const ATTEMPTS = 3;

interface Meta {
  requestId: string;
  ip: string;
}

/**
 * Applies a verified provider event to the payments in ONE transaction with its
 * processed-event record and audit event (actor `system`): the same delivery twice is
 * processed once; a failure never un-marks a MARKED payment and a refund total never shrinks,
 * so deliveries in any order end in the same state; a 4xx rolls everything back, so a
 * corrected retry is processed. A concurrent delivery for the same payment (unique provider
 * id, version) makes this one start over.
 */
export async function applyPaymentEvent(
  ctx: AppContext,
  event: ProviderEvent,
  meta: Meta,
): Promise<PaymentWebhookAck> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ctx.db
        .transaction()
        .execute((trx) =>
          event.kind === 'payment'
            ? applyPayment(ctx, trx, event, meta)
            : applyRefund(ctx, trx, event, meta),
        );
    } catch (err) {
      if (attempt < ATTEMPTS && (err instanceof Contended || isUniqueViolation(err))) continue;
      if (isForeignKeyViolation(err))
        throw new AppError('reference_not_found', 'A referenced record was deleted meanwhile.');
      throw err;
    }
  }
}

function systemActor(accountId: string, meta: Meta): Actor {
  return {
    accountId,
    userId: null,
    tokenId: null,
    type: 'system',
    requestId: meta.requestId,
    ip: meta.ip,
  };
}

const contextOf = (event: ProviderEvent) => ({
  providerEvent: { provider: event.provider, eventId: event.eventId, type: event.type },
});

async function applyPayment(
  ctx: AppContext,
  trx: Transaction<DB>,
  event: ProviderPaymentEvent,
  meta: Meta,
): Promise<PaymentWebhookAck> {
  const now = ctx.clock.now();
  const existing = await findPaymentByProviderId(trx, event.providerPaymentIntentId);
  await assertSameAccount(trx, existing, event.origin, event.path);
  const accountId = existing?.account_id ?? (await attribute(trx, event.origin, event.path));
  if (accountId === undefined) return { received: true, ignored: true };
  const fresh = await recordWebhookEvent(
    trx,
    { provider: event.provider, eventId: event.eventId, type: event.type, accountId },
    now.toISOString(),
  );
  if (!fresh) return { received: true, duplicate: true };
  const actor = systemActor(accountId, meta);

  if (!existing) {
    const links = await resolveLinks(trx, accountId, event.origin.links, event.path);
    assertDocumentCurrency(links, event.initial.currency, event.path);
    const row = newPaymentRow(
      {
        accountId,
        direction: event.origin.direction,
        links,
        amountMinor: event.initial.amountMinor,
        currency: event.initial.currency,
        paymentDate: event.initial.paymentDate,
        status: event.outcome === 'succeeded' ? 'MARKED' : 'PENDING',
        paymentMethod: event.initial.paymentMethod ?? null,
        providerPaymentIntentId: event.providerPaymentIntentId,
        failureReason: event.outcome === 'succeeded' ? null : (event.initial.failureReason ?? null),
        source: 'PROVIDER',
        importId: null,
      },
      now,
    );
    await createPaymentRecord(ctx, trx, actor, row, now, contextOf(event));
    return { received: true, paymentId: row.id };
  }

  // A settled payment stays settled: a failure or pending report is older news.
  if (existing.status === 'MARKED' && event.outcome !== 'succeeded')
    return { received: true, paymentId: existing.id, stale: true };
  const values = changesOf(existing, event);
  if (Object.keys(values).length === 0) return { received: true, paymentId: existing.id };
  if (values.currency !== undefined && existing.document_id !== null) {
    const links = await resolveLinks(
      trx,
      accountId,
      { documentId: existing.document_id },
      event.path,
    );
    assertDocumentCurrency(links, values.currency, event.path);
  }
  const updated = await updatePaymentRecord(
    ctx,
    trx,
    actor,
    existing,
    values,
    now,
    contextOf(event),
  );
  if (!updated) throw new Contended();
  return { received: true, paymentId: existing.id };
}

/** The stored values the event changes; empty when it reports what is stored already. */
function changesOf(row: PaymentRow, event: ProviderPaymentEvent): Partial<PaymentRow> {
  const f = event.facts;
  const values: Partial<PaymentRow> = {};
  if (f.amountMinor !== undefined && f.amountMinor !== Number(row.amount))
    values.amount = f.amountMinor;
  if (f.currency !== undefined && f.currency !== row.currency) values.currency = f.currency;
  if (f.paymentDate !== undefined && f.paymentDate !== row.payment_date)
    values.payment_date = f.paymentDate;
  if (f.paymentMethod !== undefined && f.paymentMethod !== row.payment_method)
    values.payment_method = f.paymentMethod;
  if (event.outcome === 'succeeded') {
    if (row.status !== 'MARKED') values.status = 'MARKED';
    // Settled: an earlier attempt's failure no longer describes the payment.
    if (row.failure_reason !== null) values.failure_reason = null;
  } else if (f.failureReason !== undefined && f.failureReason !== row.failure_reason) {
    values.failure_reason = f.failureReason;
  }
  return values;
}

/** The first of a refund's original provider ids that names a payment Kontor knows. */
async function firstKnownPayment(
  trx: Transaction<DB>,
  ids: readonly string[],
): Promise<PaymentRow | undefined> {
  for (const id of ids) {
    const payment = await findPaymentByProviderId(trx, id);
    if (payment) return payment;
  }
  return undefined;
}

/** A later refund of a charge already refunded: the refund payment grows, never shrinks. */
async function raiseRefund(
  ctx: AppContext,
  trx: Transaction<DB>,
  actor: Actor,
  existing: PaymentRow,
  event: ProviderRefundEvent,
  now: Date,
): Promise<PaymentWebhookAck> {
  if (event.refundedMinor <= Number(existing.amount))
    return {
      received: true,
      paymentId: existing.id,
      ...(event.refundedMinor < Number(existing.amount) && { stale: true as const }),
    };
  const updated = await updatePaymentRecord(
    ctx,
    trx,
    actor,
    existing,
    { amount: event.refundedMinor, payment_date: event.date },
    now,
    contextOf(event),
  );
  if (!updated) throw new Contended();
  return { received: true, paymentId: existing.id };
}

/**
 * What a new refund payment links to: where the refunded payment belonged (a document only
 * while the currency agrees), else what the provider's metadata names.
 */
async function refundLinks(
  trx: Transaction<DB>,
  accountId: string,
  original: PaymentRow | undefined,
  event: ProviderRefundEvent,
): Promise<Omit<Links, 'documentCurrency' | 'documentRefund'>> {
  if (original && original.account_id === accountId) {
    const sameCurrency = original.currency === event.currency;
    return {
      document_id: sameCurrency ? original.document_id : null,
      document_number: sameCurrency ? original.document_number : null,
      contract_id: original.contract_id,
      contract_name: original.contract_name,
      partner_id: original.partner_id,
      partner_name: original.partner_name,
    };
  }
  const resolved = await resolveLinks(trx, accountId, event.origin.links, event.path);
  assertDocumentCurrency(resolved, event.currency, event.path);
  return resolved;
}

/**
 * `charge.refunded`: the refunded money is one payment of its own per charge, MARKED, in the
 * other direction, linked like the refunded payment, under the provider id `<charge>:refunds`.
 * Its amount is the charge's cumulative `amount_refunded`, which only grows: a late delivery
 * of an earlier partial refund changes nothing.
 */
async function applyRefund(
  ctx: AppContext,
  trx: Transaction<DB>,
  event: ProviderRefundEvent,
  meta: Meta,
): Promise<PaymentWebhookAck> {
  const now = ctx.clock.now();
  const key = `${event.chargeId}:refunds`;
  const existing = await findPaymentByProviderId(trx, key);
  await assertSameAccount(trx, existing, event.origin, event.path);
  const original = await firstKnownPayment(trx, event.originalIds);
  await assertSameAccount(trx, original, event.origin, event.path);
  const accountId =
    existing?.account_id ??
    original?.account_id ??
    (await attribute(trx, event.origin, event.path));
  if (accountId === undefined || event.refundedMinor === 0)
    return { received: true, ignored: true };
  const fresh = await recordWebhookEvent(
    trx,
    { provider: event.provider, eventId: event.eventId, type: event.type, accountId },
    now.toISOString(),
  );
  if (!fresh) return { received: true, duplicate: true };
  const actor = systemActor(accountId, meta);

  if (existing) return raiseRefund(ctx, trx, actor, existing, event, now);
  const links = await refundLinks(trx, accountId, original, event);
  const row = newPaymentRow(
    {
      accountId,
      direction: original?.direction === 'OUTGOING' ? 'INCOMING' : 'OUTGOING',
      links,
      amountMinor: event.refundedMinor,
      currency: event.currency,
      paymentDate: event.date,
      status: 'MARKED',
      paymentMethod:
        (original?.payment_method as PaymentMethod | null | undefined) ??
        event.paymentMethod ??
        null,
      providerPaymentIntentId: key,
      failureReason: null,
      source: 'PROVIDER',
      importId: null,
    },
    now,
  );
  await createPaymentRecord(ctx, trx, actor, row, now, {
    ...contextOf(event),
    refundOf: original?.id ?? null,
  });
  return { received: true, paymentId: row.id };
}
