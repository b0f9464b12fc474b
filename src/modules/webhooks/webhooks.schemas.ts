import { Type, type Static } from 'typebox';

/** Largest unix timestamp accepted (9999-12-31T23:59:59Z): beyond it a Date is invalid. */
export const MAX_UNIX_SECONDS = 253_402_300_799;

/** Kontor's own subscription event, signed with `Provider-Signature` (decisions §10). */
export const SubscriptionEventBody = Type.Object(
  {
    eventId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'The provider’s id of this event; a second delivery with the same id is answered, not applied. Without it the signature identifies the delivery.',
      }),
    ),
    subscriptionId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The provider’s subscription id.',
    }),
    accountId: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'The Kontor account the subscription pays for.',
    }),
    planId: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'The plan of the subscription; must be in the catalogue.',
    }),
    status: Type.Enum(['ACTIVE', 'PAST_DUE', 'CANCELED', 'active', 'past_due', 'canceled'], {
      description: 'Subscription status; the provider’s lower-case words are accepted too.',
    }),
    currentPeriodEnd: Type.Union(
      [
        Type.String({ format: 'date-time', maxLength: 40 }),
        Type.Integer({ minimum: 0, maximum: MAX_UNIX_SECONDS }),
      ],
      { description: 'End of the paid period: RFC 3339 timestamp or unix seconds.' },
    ),
  },
  { additionalProperties: false, description: 'A subscription event in Kontor’s own format.' },
);
export type SubscriptionEventBody = Static<typeof SubscriptionEventBody>;

/** Stripe's event envelope; only what the service reads is described. */
export const StripeEventEnvelope = Type.Object(
  {
    id: Type.String({ maxLength: 255, description: 'Stripe event id (`evt_…`).' }),
    type: Type.String({
      maxLength: 255,
      description:
        '`customer.subscription.created|updated|deleted` are applied; other types are acknowledged and ignored.',
    }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description:
              'The subscription: `metadata.accountId` (or `metadata.kontorAccountId`) names the account, `metadata.planId` or the first item’s price `lookup_key` the plan.',
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

export const SubscriptionWebhookBody = Type.Union([SubscriptionEventBody, StripeEventEnvelope], {
  description:
    'Kontor’s subscription event (with `Provider-Signature`) or Stripe’s `customer.subscription.*` event (with `Stripe-Signature`).',
});

export const WebhookHeaders = Type.Object(
  {
    'provider-signature': Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with `PROVIDER_WEBHOOK_SECRET`; at most 5 minutes of clock skew.',
      }),
    ),
    'stripe-signature': Type.Optional(
      Type.String({
        maxLength: 4096,
        description:
          'Stripe’s signature header, checked with `STRIPE_WEBHOOK_SECRET`; when present the body is read as a Stripe event.',
      }),
    ),
  },
  { additionalProperties: true },
);

export const WebhookAck = Type.Object(
  {
    received: Type.Literal(true, { description: 'The delivery was accepted.' }),
    duplicate: Type.Optional(
      Type.Literal(true, { description: 'The event was processed before; nothing changed.' }),
    ),
    ignored: Type.Optional(
      Type.Literal(true, { description: 'The event type does not concern licenses.' }),
    ),
    stale: Type.Optional(
      Type.Literal(true, {
        description: 'An older event than the one already applied (out of order); not applied.',
      }),
    ),
  },
  { additionalProperties: false, description: 'Acknowledgement of a webhook delivery.' },
);
export type WebhookAck = Static<typeof WebhookAck>;
