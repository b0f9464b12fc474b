import type Stripe from 'stripe';
import { AppError } from '../../shared/errors.js';
import { invalidField } from '../../http/field-rules.js';
import { isCurrency } from '../../shared/money.js';
import type { FieldPath, PaymentDirection, PaymentMethod } from '../payments/index.js';
import type { Origin, ProviderEvent } from './payment-events.js';

/** Stripe's `payment_intent.*` and `charge.refunded` events as provider events. */

const OBJECT = '/body/data/object';
const METADATA = `${OBJECT}/metadata`;
const stripePath: FieldPath = (field) =>
  ['partnerId', 'documentId', 'contractId', 'accountId'].includes(field)
    ? `${METADATA}/${field}`
    : `${OBJECT}/${field === 'providerPaymentIntentId' ? 'id' : field}`;

const invalid = (path: string, message: string) => invalidField(path, message, 'invalid_value');

const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.length > 0 && v.length <= 255 ? v : undefined;

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : {};
}

/** Stripe's lower-case currency, as one Kontor books (422 otherwise). */
function stripeCurrency(v: unknown): string {
  const code = typeof v === 'string' ? v.toUpperCase() : '';
  if (!/^[A-Z]{3}$/.test(code)) throw invalid(`${OBJECT}/currency`, 'must be a currency code');
  if (!isCurrency(code))
    throw new AppError('business_rule_violated', `Kontor does not book payments in ${code}.`, {
      errors: [
        { path: `${OBJECT}/currency`, message: 'is not a supported currency', code: 'not_in_enum' },
      ],
    });
  return code;
}

/**
 * Stripe's integer amount as Kontor's minor units. They agree for every currency Kontor books
 * but ISK, which Stripe counts in hundredths although it has no decimals.
 */
function stripeAmount(v: unknown, currency: string, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw invalid(`${OBJECT}/${field}`, 'must be a non-negative integer amount');
  if (currency !== 'ISK') return v;
  if (v % 100 !== 0)
    throw invalid(`${OBJECT}/${field}`, 'must be whole krónur (a multiple of 100)');
  return v / 100;
}

const CARD_TYPES = new Set(['card', 'card_present', 'interac_present', 'link']);
const BANK_TYPES = new Set([
  'sepa_debit',
  'sofort',
  'giropay',
  'ideal',
  'bancontact',
  'eps',
  'p24',
  'customer_balance',
  'us_bank_account',
  'bacs_debit',
  'au_becs_debit',
  'acss_debit',
]);

function methodOf(type: unknown): PaymentMethod | undefined {
  if (typeof type !== 'string') return undefined;
  if (CARD_TYPES.has(type)) return 'CREDIT_CARD';
  if (BANK_TYPES.has(type)) return 'BANK_TRANSFER';
  return undefined;
}

/** The method a PaymentIntent was (or would have been) paid with, if it says. */
function intentMethod(pi: Record<string, unknown>): PaymentMethod | undefined {
  const charges = record(pi.charges).data;
  const charge = Array.isArray(charges) ? record(charges[0]) : {};
  const types = pi.payment_method_types;
  return (
    methodOf(record(charge.payment_method_details).type) ??
    methodOf(record(record(pi.last_payment_error).payment_method).type) ??
    (Array.isArray(types) && types.length === 1 ? methodOf(types[0]) : undefined)
  );
}

function failureReasonOf(pi: Record<string, unknown>): string {
  const error = record(pi.last_payment_error);
  const codes = [str(error.code), str(error.decline_code)].filter(Boolean).join('/');
  const message = typeof error.message === 'string' ? error.message.trim() : '';
  const reason = [message || 'The payment failed.', codes && `(${codes})`]
    .filter(Boolean)
    .join(' ');
  return reason.slice(0, 1000);
}

function originOf(object: Record<string, unknown>, direction: PaymentDirection): Origin {
  const metadata = record(object.metadata);
  const partnerId = str(metadata.partnerId);
  return {
    accountId: str(metadata.kontorAccountId) ?? str(metadata.accountId),
    partnerId,
    direction,
    links: {
      partnerId,
      partnerName: str(metadata.partnerName),
      documentId: str(metadata.documentId),
      contractId: str(metadata.contractId),
    },
    whenUnattributed: 'ignore',
  };
}

function dayOf(created: unknown): string {
  if (
    typeof created !== 'number' ||
    !Number.isInteger(created) ||
    created < 0 ||
    created > 253_402_300_799
  )
    throw invalid('/body/created', 'must be unix seconds');
  return new Date(created * 1000).toISOString().slice(0, 10);
}

const PAYMENT_EVENTS = new Set([
  'payment_intent.succeeded',
  'payment_intent.payment_failed',
  'charge.refunded',
]);

/**
 * A verified Stripe event as a provider event, or `undefined` for types that do not concern
 * payments. Malformed objects are 400 with the path of the field.
 */
export function fromStripePaymentEvent(event: Stripe.Event): ProviderEvent | undefined {
  if (!PAYMENT_EVENTS.has(event.type)) return undefined;
  const object = record(event.data.object);
  const date = dayOf(event.created);
  const id = str(object.id);
  if (id === undefined) throw invalid(`${OBJECT}/id`, 'is required');
  const common = {
    provider: 'stripe' as const,
    eventId: event.id,
    type: event.type,
    path: stripePath,
  };
  const currency = stripeCurrency(object.currency);

  if (event.type === 'charge.refunded') {
    const refunded = stripeAmount(object.amount_refunded, currency, 'amount_refunded');
    const intent = str(object.payment_intent);
    return {
      ...common,
      kind: 'refund',
      chargeId: id,
      originalIds: intent ? [intent, id] : [id],
      refundedMinor: refunded,
      currency,
      date,
      paymentMethod: methodOf(record(object.payment_method_details).type),
      origin: originOf(object, 'OUTGOING'),
    };
  }

  const succeeded = event.type === 'payment_intent.succeeded';
  const received = stripeAmount(object.amount_received ?? 0, currency, 'amount_received');
  const amount =
    succeeded && received > 0 ? received : stripeAmount(object.amount, currency, 'amount');
  if (amount === 0) throw invalid(`${OBJECT}/amount`, 'must be positive');
  const method = intentMethod(object);
  const base = {
    amountMinor: amount,
    currency,
    paymentDate: date,
    ...(method && { paymentMethod: method }),
  };
  const failureReason = succeeded ? undefined : failureReasonOf(object);
  return {
    ...common,
    kind: 'payment',
    providerPaymentIntentId: id,
    outcome: succeeded ? 'succeeded' : 'failed',
    // Success settles amount and date; a failure only says why.
    facts: succeeded ? base : { failureReason },
    initial: { ...base, ...(failureReason && { failureReason }) },
    origin: originOf(object, 'INCOMING'),
  };
}
