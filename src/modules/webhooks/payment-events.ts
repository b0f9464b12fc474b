import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import { AppError } from '../../shared/errors.js';
import { assertIsoDate, invalidField, minorAmount } from '../../http/field-rules.js';
import { fieldErrors } from '../../http/problem.js';
import {
  bodyPath,
  type FieldPath,
  type LinkInput,
  CreatePaymentBody,
  type CreatePayment,
  type PaymentDirection,
  type PaymentMethod,
} from '../payments/index.js';

/**
 * Provider payment deliveries, whichever format they came in, as one event the command
 * applies: Kontor's own payment shape (here) or Stripe's `payment_intent.*` /
 * `charge.refunded` (`stripe-payment-events.ts`).
 */

export type PaymentOutcome = 'succeeded' | 'failed' | 'pending';

/** What the provider reports about the payment; absent fields leave the stored ones alone. */
export interface PaymentFacts {
  amountMinor?: number;
  currency?: string;
  paymentDate?: string;
  paymentMethod?: PaymentMethod;
  failureReason?: string;
}

/** How a payment Kontor does not know yet is attributed and linked. */
export interface Origin {
  /** The account the event names (Stripe metadata); checked against the partner's. */
  accountId?: string;
  /** The partner; the payment is created in the account that owns it (decisions §10). */
  partnerId?: string;
  direction: PaymentDirection;
  links: LinkInput;
  /** Native deliveries must name their partner (refused); Stripe's may be someone else's (ignored). */
  whenUnattributed: 'refuse' | 'ignore';
}

interface Delivery {
  provider: 'kontor' | 'stripe';
  /** Identifies the delivery: Stripe's event id, or a digest of signature timestamp and body. */
  eventId: string;
  type: string;
  origin: Origin;
  /** Where fields sit in the body, for problem paths. */
  path: FieldPath;
}

export interface ProviderPaymentEvent extends Delivery {
  kind: 'payment';
  providerPaymentIntentId: string;
  outcome: PaymentOutcome;
  /** Applied to a payment that exists. */
  facts: PaymentFacts;
  /** A new payment's values. */
  initial: Required<Pick<PaymentFacts, 'amountMinor' | 'currency' | 'paymentDate'>> & PaymentFacts;
}

export interface ProviderRefundEvent extends Delivery {
  kind: 'refund';
  chargeId: string;
  /** Ids the refunded payment may be stored under: its PaymentIntent, else the charge. */
  originalIds: string[];
  /** The charge's cumulative refunded amount in minor units. */
  refundedMinor: number;
  currency: string;
  date: string;
  paymentMethod?: PaymentMethod;
}

export type ProviderEvent = ProviderPaymentEvent | ProviderRefundEvent;

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/** Same options as the app's body validator: exact types, unknown fields rejected. */
const validateNative = addFormats(
  new Ajv({ allErrors: true, strict: false, removeAdditional: false, coerceTypes: false }),
).compile<CreatePayment>(CreatePaymentBody);

/**
 * A verified delivery in the payment shape of `POST /v1/payments`, checked like a create body;
 * `providerPaymentIntentId` is required (the upsert key). MARKED reports success, PENDING with
 * a `failureReason` a failure.
 */
export function fromNativePayment(body: unknown, deliveryId: string): ProviderPaymentEvent {
  if (!validateNative(body)) {
    const errors = fieldErrors('body', validateNative.errors ?? []);
    throw new AppError(
      'validation_failed',
      `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
      { errors },
    );
  }
  if (body.providerPaymentIntentId === undefined)
    throw invalidField(
      '/body/providerPaymentIntentId',
      'is required: the webhook finds or creates the payment by it',
      'required',
    );
  assertIsoDate(body.paymentDate, '/body/paymentDate');
  const facts: PaymentFacts = {
    amountMinor: minorAmount(body.amount, body.currency, '/body/amount'),
    currency: body.currency,
    paymentDate: body.paymentDate,
    ...(body.paymentMethod !== undefined && { paymentMethod: body.paymentMethod }),
    ...(body.failureReason !== undefined && { failureReason: body.failureReason }),
  };
  const outcome: PaymentOutcome =
    body.status === 'MARKED'
      ? 'succeeded'
      : body.failureReason !== undefined
        ? 'failed'
        : 'pending';
  return {
    kind: 'payment',
    provider: 'kontor',
    eventId: `payment:${deliveryId}`,
    type: `payment.${outcome}`,
    providerPaymentIntentId: body.providerPaymentIntentId,
    outcome,
    facts,
    initial: {
      ...facts,
      amountMinor: facts.amountMinor!,
      currency: body.currency,
      paymentDate: body.paymentDate,
    },
    origin: {
      partnerId: body.partnerId,
      direction: body.direction ?? 'INCOMING',
      links: {
        documentId: body.documentId,
        documentNumber: body.documentNumber,
        contractId: body.contractId,
        contractName: body.contractName,
        partnerId: body.partnerId,
        partnerName: body.partnerName,
      },
      whenUnattributed: 'refuse',
    },
    path: bodyPath,
  };
}
