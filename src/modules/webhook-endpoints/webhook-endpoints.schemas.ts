import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { Nullable, RecordMeta, Timestamp, VersionField } from '../../http/schemas.js';

/** The events an endpoint can subscribe to (docs/webhooks.md lists which are emitted today). */
export const WEBHOOK_EVENT_TYPES = [
  'document.finalized',
  'document.sent',
  'document.paid',
  'document.overdue',
  'document.cancelled',
  'document.viewed',
  'payment.created',
  'payment.updated',
  'import.finalized',
  'partner.created',
  'partner.updated',
  'contract.invoiced',
  'dunning.sent',
  'quote.finalized',
  'quote.accepted',
  'quote.declined',
  'quote.expired',
  'order_confirmation.finalized',
  'mandate.created',
  'mandate.updated',
  'mandate.revoked',
  'collection.created',
  'transfer.created',
  'collection.returned',
  'transfer.returned',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

const EventTypeSchema = Type.Enum(WEBHOOK_EVENT_TYPES, { description: 'An event type.' });

const fields = {
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    format: 'uri',
    description:
      'Where deliveries are POSTed: https; its host must resolve to public addresses only (private and loopback ones need the operator setting WEBHOOK_ALLOW_PRIVATE_TARGETS, which also allows plain http to them; link-local and cloud metadata addresses are always refused). A refused URL answers 422 naming `/body/url`.',
  }),
  eventTypes: Type.Array(EventTypeSchema, {
    minItems: 1,
    maxItems: WEBHOOK_EVENT_TYPES.length,
    uniqueItems: true,
    description: 'The events delivered to this endpoint, each once.',
  }),
  enabled: Type.Boolean({
    description:
      'Whether events are delivered. Setting it to true again after the service disabled the endpoint clears `disabledReason` and the failure count.',
  }),
  description: Type.String({ minLength: 1, maxLength: 500, description: 'Free text.' }),
};

export const WebhookEndpointSchema = Type.Object(
  {
    ...RecordMeta,
    url: Type.String({ description: 'Where deliveries are POSTed.' }),
    description: Nullable(Type.String(), 'Free text.'),
    eventTypes: Type.Array(EventTypeSchema, { description: 'The events delivered here.' }),
    enabled: Type.Boolean({ description: 'Whether events are delivered.' }),
    disabledReason: Nullable(
      Type.String(),
      'Why the service disabled the endpoint after sustained failure; null while enabled or when a user disabled it.',
    ),
    failureCount: Type.Integer({
      minimum: 0,
      description: 'Failed delivery attempts since the last successful one.',
    }),
    failingSince: Nullable(
      Type.String({ format: 'date-time' }),
      'When the current run of failed attempts began (RFC 3339 UTC); null after a success.',
    ),
  },
  {
    additionalProperties: false,
    description:
      'An HTTPS endpoint that receives the account’s events, signed (Standard Webhooks).',
  },
);
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...WebhookEndpointSchema.properties,
    secret: Type.String({
      description:
        'The signing secret (`whsec_` + base64), shown only in this answer: verify each delivery’s `webhook-signature` with it (Standard Webhooks). Store it now; reading the endpoint never shows it again.',
    }),
  },
  {
    additionalProperties: false,
    description: 'A webhook endpoint with its new signing secret, shown once.',
  },
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecretSchema>;

export const CreateWebhookEndpointBody = Type.Object(
  {
    url: fields.url,
    eventTypes: fields.eventTypes,
    enabled: Type.Optional(fields.enabled),
    description: Type.Optional(fields.description),
  },
  { additionalProperties: false },
);
export type CreateWebhookEndpoint = Static<typeof CreateWebhookEndpointBody>;

/**
 * Partial update: omitted fields stay, `null` clears the description. The version read comes
 * as `version` here or as `If-Match` (one of them is required).
 */
export const UpdateWebhookEndpointBody = Type.Object(
  {
    version: Type.Optional(VersionField),
    url: Type.Optional(fields.url),
    eventTypes: Type.Optional(fields.eventTypes),
    enabled: Type.Optional(fields.enabled),
    description: Type.Optional(Nullable(fields.description, 'Free text; null clears it.')),
  },
  { additionalProperties: false },
);
export type UpdateWebhookEndpoint = Static<typeof UpdateWebhookEndpointBody>;

export const ListWebhookEndpointsQuery = Type.Object(
  {
    ...PageQuery,
    enabled: Type.Optional(Type.Boolean({ description: 'Only enabled (or disabled) endpoints.' })),
  },
  { additionalProperties: false },
);
export type ListWebhookEndpoints = Static<typeof ListWebhookEndpointsQuery>;

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({
      description: 'Delivery id (`msg_…`), sent as `webhook-id`; the same on every attempt.',
    }),
    endpointId: Type.String({ description: 'The endpoint (`whe_…`).' }),
    eventType: EventTypeSchema,
    status: Type.Enum(DELIVERY_STATUSES, {
      description:
        'PENDING (waiting for its first or next attempt), SUCCEEDED (answered 2xx) or FAILED (every attempt failed, or the endpoint was disabled).',
    }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts made so far.' }),
    nextAttemptAt: Nullable(
      Type.String({ format: 'date-time' }),
      'When the next attempt is due while PENDING (RFC 3339 UTC).',
    ),
    lastAttemptAt: Nullable(
      Type.String({ format: 'date-time' }),
      'When the last attempt was made (RFC 3339 UTC).',
    ),
    lastStatusCode: Nullable(
      Type.Integer(),
      'HTTP status the endpoint answered last; null when it did not answer (see `lastError`).',
    ),
    lastLatencyMs: Nullable(
      Type.Integer(),
      'Milliseconds the last attempt took, from sending to the end of the answer.',
    ),
    lastError: Nullable(
      Type.String(),
      'Why the last attempt failed without an HTTP answer (timeout, refused connection, a refused target).',
    ),
    responseExcerpt: Nullable(
      Type.String(),
      'The first kilobyte of the endpoint’s last answer body.',
    ),
    createdAt: Timestamp('When the event happened and the delivery was queued (RFC 3339 UTC).'),
    updatedAt: Timestamp('When the delivery last changed (RFC 3339 UTC).'),
  },
  { additionalProperties: false, description: 'One event sent to one endpoint, and its attempts.' },
);
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;

export const ListWebhookDeliveriesQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Enum(DELIVERY_STATUSES, { description: 'Only deliveries in this status.' }),
    ),
    eventType: Type.Optional(
      Type.Enum(WEBHOOK_EVENT_TYPES, { description: 'Only deliveries of this event type.' }),
    ),
  },
  { additionalProperties: false },
);
export type ListWebhookDeliveries = Static<typeof ListWebhookDeliveriesQuery>;
