import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { AppContext } from '../../context.js';
import { AppError } from '../../http/errors.js';
import { fieldErrors } from '../../http/problem.js';
import { applySubscriptionChange } from './apply-subscription-change.command.js';
import { verifyProviderSignature, verifyStripeSignature } from './signatures.js';
import { fromNativeEvent, fromStripeEvent } from './subscription-change.js';
import { SubscriptionEventBody, type WebhookAck } from './webhooks.schemas.js';

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/** Same options as the app's body validator: exact types, unknown fields rejected. */
const validateNative = addFormats(
  new Ajv({ allErrors: true, strict: false, removeAdditional: false, coerceTypes: false }),
).compile<SubscriptionEventBody>(SubscriptionEventBody);

export interface WebhookDelivery {
  rawBody: string;
  body: unknown;
  providerSignature: string | undefined;
  stripeSignature: string | undefined;
  requestId: string;
  ip: string;
}

const notConfigured = (what: string) =>
  new AppError('service_unavailable', `${what} webhook secret not configured.`);

/** Inbound provider webhooks (decisions §10): signature first, then the event. */
export class WebhooksService {
  constructor(private readonly ctx: AppContext) {}

  /**
   * A subscription event in Kontor's format (`Provider-Signature`) or Stripe's
   * (`Stripe-Signature`): verified against the raw body, then applied to the license.
   */
  async subscriptionEvent(delivery: WebhookDelivery): Promise<WebhookAck> {
    const nowMs = this.ctx.clock.now().getTime();
    const meta = { requestId: delivery.requestId, ip: delivery.ip };
    if (delivery.stripeSignature !== undefined) {
      const secret = this.ctx.config.stripeWebhookSecret;
      if (!secret) {
        this.ctx.logger.error('STRIPE_WEBHOOK_SECRET is not set: Stripe webhooks are refused');
        throw notConfigured('Stripe');
      }
      const event = verifyStripeSignature(
        delivery.rawBody,
        delivery.stripeSignature,
        secret,
        nowMs,
      );
      const change = fromStripeEvent(event);
      if (change === undefined) return { received: true, ignored: true };
      return applySubscriptionChange(this.ctx, change, meta);
    }

    const secret = this.ctx.config.providerWebhookSecret;
    if (!secret) {
      this.ctx.logger.error('PROVIDER_WEBHOOK_SECRET is not set: provider webhooks are refused');
      throw notConfigured('Provider');
    }
    const deliveryId = verifyProviderSignature(
      delivery.rawBody,
      delivery.providerSignature,
      secret,
      Math.floor(nowMs / 1000),
    );
    if (!validateNative(delivery.body)) {
      const errors = fieldErrors('body', validateNative.errors ?? []);
      throw new AppError(
        'validation_failed',
        `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
        { errors },
      );
    }
    return applySubscriptionChange(this.ctx, fromNativeEvent(delivery.body, deliveryId), meta);
  }
}
