import { Type, type Static } from 'typebox';
import { CreatePaymentBody } from '../payments/index.js';

/** Stripe's event envelope for payments; only what the service reads is described. */
export const StripePaymentEventEnvelope = Type.Object(
  {
    id: Type.String({
      maxLength: 255,
      description: 'Stripe event id (`evt_…`); a second delivery is answered, not applied.',
    }),
    type: Type.String({
      maxLength: 255,
      description:
        '`payment_intent.succeeded`, `payment_intent.payment_failed` and `charge.refunded` are applied; other types are acknowledged and ignored.',
    }),
    created: Type.Integer({ description: 'Unix seconds; its UTC day is the payment date.' }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The PaymentIntent (or Charge for refunds). Its `id` (`pi_…`) is the payment’s providerPaymentIntentId. To create a payment Kontor does not know yet, `metadata.partnerId` names the partner (and so the account); `metadata.kontorAccountId` (or `accountId`) may name the account instead or as a check; `metadata.documentId` and `metadata.contractId` link it.',
          },
        ),
      },
      { additionalProperties: true, description: 'The event’s object.' },
    ),
  },
  {
    additionalProperties: true,
    description: 'A Stripe event, sent with a `Stripe-Signature` header.',
  },
);

export const PaymentWebhookBody = Type.Union([CreatePaymentBody, StripePaymentEventEnvelope], {
  description:
    'Kontor’s payment shape (the body of `POST /v1/payments`, with `Provider-Signature`; `providerPaymentIntentId` required) or Stripe’s event envelope (with `Stripe-Signature`).',
});

export const PaymentWebhookAck = Type.Object(
  {
    received: Type.Literal(true, { description: 'The delivery was accepted.' }),
    paymentId: Type.Optional(
      Type.String({ description: 'The payment the delivery created, updated or left as is.' }),
    ),
    duplicate: Type.Optional(
      Type.Literal(true, { description: 'The delivery was processed before; nothing changed.' }),
    ),
    stale: Type.Optional(
      Type.Literal(true, {
        description:
          'A late delivery that would undo a newer state (a failure after the payment was MARKED, a smaller refund total); not applied.',
      }),
    ),
    ignored: Type.Optional(
      Type.Literal(true, {
        description:
          'An event type that does not concern payments, or a Stripe payment that names no Kontor partner or account and matches no payment.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Acknowledgement of a payment webhook delivery.' },
);
export type PaymentWebhookAck = Static<typeof PaymentWebhookAck>;
