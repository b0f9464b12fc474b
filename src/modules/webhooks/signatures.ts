import type Stripe from 'stripe';
import { AppError } from '../../shared/errors.js';
import type { AppContext } from '../../context.js';
import { hmac, safeEqual } from '../../shared/secrets.js';

/** A provider's webhook as it arrived: the raw body is what the signature covers. */
export interface WebhookDelivery {
  rawBody: string;
  body: unknown;
  providerSignature: string | undefined;
  stripeSignature: string | undefined;
  requestId: string;
  ip: string;
}

/** Clock skew a signed delivery may have, either way (decisions §10). */
export const TOLERANCE_SECONDS = 300;

const invalid = (detail: string) => new AppError('signature_invalid', detail);
const skewed = (where: 'behind' | 'ahead of') =>
  invalid(
    `The signature timestamp is stale: more than ${TOLERANCE_SECONDS} seconds ${where} the server clock.`,
  );

/**
 * Checks `Provider-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` against the
 * raw body and answers the v1 signature, which identifies the delivery. Several `v1` entries
 * are allowed (secret rotation); one match is enough. Throws `signature_invalid`.
 */
export function verifyProviderSignature(
  rawBody: string,
  header: string | undefined,
  secret: string,
  nowSeconds: number,
): string {
  if (header === undefined || header.length === 0 || header.length > 1000)
    throw invalid('Send a Provider-Signature header.');
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value.toLowerCase());
  }
  if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0)
    throw invalid('The Provider-Signature header must be t=<unix seconds>,v1=<hex signature>.');
  const expected = hmac(secret, `${timestamp}.${rawBody}`);
  // Every candidate is compared in constant time; the loop does not stop early.
  let match: string | undefined;
  for (const candidate of signatures) if (safeEqual(candidate, expected)) match = candidate;
  if (match === undefined) throw invalid('The signature does not match the body.');
  // Checked after the HMAC: a stale timestamp is only reported for a genuine signature.
  const skew = nowSeconds - Number(timestamp);
  if (skew > TOLERANCE_SECONDS) throw skewed('behind');
  if (-skew > TOLERANCE_SECONDS) throw skewed('ahead of');
  return match;
}

/**
 * Verifies a `Stripe-Signature` with Stripe's own library (timestamp tolerance included) and
 * answers the event. Throws `signature_invalid`. The library is loaded at the first Stripe
 * delivery, not at start: an account without Stripe never needs it, and it is a part of the
 * heap every full collection would mark (docs/benchmarks.md).
 */
export async function verifyStripeSignature(
  rawBody: string,
  header: string,
  secret: string,
  nowMs: number,
): Promise<Stripe.Event> {
  const { default: stripe } = await import('stripe');
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(
      rawBody,
      header,
      secret,
      TOLERANCE_SECONDS,
      undefined,
      nowMs, // milliseconds, unlike the header's timestamp
    );
  } catch (err) {
    if (err instanceof stripe.errors.StripeSignatureVerificationError)
      throw invalid(`The Stripe signature is invalid: ${err.message.split('.')[0] ?? ''}.`);
    throw invalid('The Stripe signature could not be verified.');
  }
  // Stripe's library checks the age only; skew is bounded both ways (decisions §10).
  const t = /(?:^|,)\s*t=(\d{1,12})/.exec(header)?.[1];
  if (t !== undefined && Number(t) - nowMs / 1000 > TOLERANCE_SECONDS) throw skewed('ahead of');
  return event;
}

/** A delivery whose signature checked out: Stripe's event, or Kontor's own format. */
export type VerifiedDelivery =
  { source: 'stripe'; event: Stripe.Event } | { source: 'native'; deliveryId: string };

/**
 * The signature check both webhook routes share: `Stripe-Signature` with
 * `STRIPE_WEBHOOK_SECRET`, else `Provider-Signature` with `PROVIDER_WEBHOOK_SECRET`. A missing
 * secret is 503 (and an error in the log), a bad signature 400 `signature_invalid`. The native
 * delivery id is the matching signature: the same signed timestamp and body again is a replay.
 */
export async function verifyDelivery(
  ctx: Pick<AppContext, 'config' | 'clock' | 'logger'>,
  delivery: Pick<WebhookDelivery, 'rawBody' | 'providerSignature' | 'stripeSignature'>,
): Promise<VerifiedDelivery> {
  const nowMs = ctx.clock.now().getTime();
  if (delivery.stripeSignature !== undefined) {
    const secret = ctx.config.stripeWebhookSecret;
    if (!secret) {
      ctx.logger.error('STRIPE_WEBHOOK_SECRET is not set: Stripe webhooks are refused');
      throw new AppError('service_unavailable', 'Stripe webhook secret not configured.');
    }
    return {
      source: 'stripe',
      event: await verifyStripeSignature(delivery.rawBody, delivery.stripeSignature, secret, nowMs),
    };
  }
  const secret = ctx.config.providerWebhookSecret;
  if (!secret) {
    ctx.logger.error('PROVIDER_WEBHOOK_SECRET is not set: provider webhooks are refused');
    throw new AppError('service_unavailable', 'Provider webhook secret not configured.');
  }
  return {
    source: 'native',
    deliveryId: verifyProviderSignature(
      delivery.rawBody,
      delivery.providerSignature,
      secret,
      Math.floor(nowMs / 1000),
    ),
  };
}
