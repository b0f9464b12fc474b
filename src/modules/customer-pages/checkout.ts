import type { Config } from '../../config.js';
import { AppError } from '../../shared/errors.js';

/** What a hosted checkout is made for: the open amount of one invoice. */
export interface CheckoutRequest {
  accountId: string;
  documentId: string;
  partnerId: string | null;
  partnerName: string | null;
  /** What the customer pays, in Kontor's minor units. */
  amountMinor: number;
  currency: string;
  /** The line the checkout shows (`Rechnung 2026-0001`). */
  title: string;
  successUrl: string;
  cancelUrl: string;
}

/** Whether card payment is configured (`PAYMENT_PROVIDER_SECRET_KEY`). */
export const cardPaymentConfigured = (config: Config): boolean =>
  config.paymentProviderSecretKey !== undefined;

/**
 * Stripe's minor units: the same as Kontor's for every currency Kontor books but ISK, which
 * Stripe counts in hundredths (the inverse of the webhook's reading).
 */
const stripeAmount = (minor: number, currency: string) =>
  currency === 'ISK' ? minor * 100 : minor;

/**
 * Creates a Stripe Checkout Session (`POST /v1/checkout/sessions`, form-encoded) for the open
 * amount and answers its URL. The PaymentIntent carries `accountId`, `documentId`, `partnerId`
 * and `partnerName` as metadata: what the provider webhook (`payment_intent.succeeded`) reads
 * to record the payment against the invoice. One plain HTTPS request, so no SDK client is
 * kept per account; a failure or an answer without a URL is 503.
 */
export async function createCheckoutSession(config: Config, req: CheckoutRequest): Promise<string> {
  const key = config.paymentProviderSecretKey;
  if (!key) throw new AppError('service_unavailable', 'Card payment is not configured.');
  const form = new URLSearchParams({
    mode: 'payment',
    success_url: req.successUrl,
    cancel_url: req.cancelUrl,
    client_reference_id: req.documentId,
    'line_items[0][quantity]': '1',
    'line_items[0][price_data][currency]': req.currency.toLowerCase(),
    'line_items[0][price_data][unit_amount]': String(stripeAmount(req.amountMinor, req.currency)),
    'line_items[0][price_data][product_data][name]': req.title,
    'payment_method_types[0]': 'card',
    'payment_intent_data[metadata][accountId]': req.accountId,
    'payment_intent_data[metadata][documentId]': req.documentId,
    'metadata[documentId]': req.documentId,
  });
  if (req.partnerId) form.set('payment_intent_data[metadata][partnerId]', req.partnerId);
  if (req.partnerName)
    form.set('payment_intent_data[metadata][partnerName]', req.partnerName.slice(0, 255));
  let answer: Response;
  try {
    answer = await fetch(`${config.paymentProviderApiUrl}/v1/checkout/sessions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: form.toString(),
      redirect: 'error',
      signal: AbortSignal.timeout(15_000),
    });
  } catch {
    throw new AppError('service_unavailable', 'The payment provider cannot be reached.');
  }
  const body = (await answer.json().catch(() => ({}))) as { url?: unknown };
  if (!answer.ok || typeof body.url !== 'string' || !/^https?:\/\//.test(body.url))
    throw new AppError(
      'service_unavailable',
      `The payment provider refused the checkout (HTTP ${answer.status}).`,
    );
  return body.url;
}
