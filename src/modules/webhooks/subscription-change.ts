import type Stripe from 'stripe';
import { AppError } from '../../shared/errors.js';
import type { SubscriptionEventBody } from './webhooks.schemas.js';
import { MAX_UNIX_SECONDS } from './webhooks.schemas.js';

export type LicenseStatus = 'ACTIVE' | 'PAST_DUE' | 'CANCELED';

/** One subscription event, whichever format it came in. */
export interface SubscriptionChange {
  provider: 'kontor' | 'stripe';
  eventId: string;
  type: string;
  subscriptionId: string;
  accountId: string;
  planId: string;
  status: LicenseStatus;
  /** ISO timestamp, or null when the event carries none. */
  currentPeriodEnd: string | null;
}

const STRIPE_SUBSCRIPTION_EVENTS = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
]);

/** A native event (already schema-validated) as a change; `deliveryId` stands in for a missing eventId. */
export function fromNativeEvent(
  body: SubscriptionEventBody,
  deliveryId: string,
): SubscriptionChange {
  const end =
    typeof body.currentPeriodEnd === 'number'
      ? new Date(body.currentPeriodEnd * 1000)
      : new Date(body.currentPeriodEnd);
  return {
    provider: 'kontor',
    eventId: body.eventId ?? deliveryId,
    type: `subscription.${body.status.toLowerCase()}`,
    subscriptionId: body.subscriptionId,
    accountId: body.accountId,
    planId: body.planId,
    status: body.status.toUpperCase() as LicenseStatus,
    currentPeriodEnd: end.toISOString(),
  };
}

/** Stripe's subscription statuses (its type also admits any string, for future ones). */
const STRIPE_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'unpaid',
  'incomplete',
  'paused',
  'canceled',
  'incomplete_expired',
] as const;
type StripeStatus = (typeof STRIPE_STATUSES)[number];
const isStripeStatus = (v: unknown): v is StripeStatus =>
  typeof v === 'string' && (STRIPE_STATUSES as readonly string[]).includes(v);

function stripeStatus(status: StripeStatus): LicenseStatus {
  switch (status) {
    case 'active':
    case 'trialing':
      return 'ACTIVE';
    // Paused: no payment is collected, so the license is not in good standing either.
    case 'past_due':
    case 'unpaid':
    case 'incomplete':
    case 'paused':
      return 'PAST_DUE';
    case 'canceled':
    case 'incomplete_expired':
      return 'CANCELED';
  }
}

/** The fields read from a subscription; older API versions keep the period on the subscription. */
interface StripeSubscriptionLike {
  id?: unknown;
  status?: unknown;
  metadata?: Record<string, unknown> | null;
  current_period_end?: unknown;
  items?: {
    data?: { current_period_end?: unknown; price?: { lookup_key?: unknown } | null }[];
  } | null;
}

const unprocessable = (path: string, message: string) =>
  new AppError('business_rule_violated', `The Stripe subscription ${message}.`, {
    errors: [{ path: `/body/data/object${path}`, message, code: 'invalid_value' }],
  });

const unixSeconds = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_UNIX_SECONDS ? v : undefined;

/**
 * A verified Stripe event as a change, or `undefined` for event types that do not concern
 * licenses. Metadata names the account and, failing the price's lookup key, the plan.
 */
export function fromStripeEvent(event: Stripe.Event): SubscriptionChange | undefined {
  if (!STRIPE_SUBSCRIPTION_EVENTS.has(event.type)) return undefined;
  const sub = event.data.object as StripeSubscriptionLike;
  const metadata = sub.metadata ?? {};
  const accountId = metadata.accountId ?? metadata.kontorAccountId;
  if (typeof accountId !== 'string' || accountId.length === 0)
    throw new AppError(
      'reference_not_found',
      'The Stripe subscription names no account (metadata.accountId).',
      {
        errors: [
          {
            path: '/body/data/object/metadata/accountId',
            message: 'is required',
            code: 'reference_not_found',
          },
        ],
      },
    );
  const items = sub.items?.data ?? [];
  const lookupKey = items[0]?.price?.lookup_key;
  const planId =
    typeof metadata.planId === 'string' && metadata.planId.length > 0
      ? metadata.planId
      : typeof lookupKey === 'string' && lookupKey.length > 0
        ? lookupKey.toUpperCase()
        : undefined;
  if (planId === undefined)
    throw unprocessable(
      '/metadata/planId',
      'names no plan (metadata.planId or a price lookup_key)',
    );
  if (typeof sub.id !== 'string' || sub.id.length === 0) throw unprocessable('/id', 'has no id');
  if (!isStripeStatus(sub.status)) throw unprocessable('/status', 'has an unknown status');
  // Newer API versions carry the period per item; the license follows the latest one.
  const itemEnds = items
    .map((i) => unixSeconds(i.current_period_end))
    .filter((v) => v !== undefined);
  const end =
    unixSeconds(sub.current_period_end) ?? (itemEnds.length ? Math.max(...itemEnds) : undefined);
  return {
    provider: 'stripe',
    eventId: event.id,
    type: event.type,
    subscriptionId: sub.id,
    accountId,
    planId,
    status: event.type === 'customer.subscription.deleted' ? 'CANCELED' : stripeStatus(sub.status),
    currentPeriodEnd: end === undefined ? null : new Date(end * 1000).toISOString(),
  };
}
