import { Ajv } from 'ajv';
import addFormatsImport from 'ajv-formats';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { fieldErrors } from '../../http/problem.js';
import { applySubscriptionChange } from './apply-subscription-change.command.js';
import { verifyDelivery, type WebhookDelivery } from './signatures.js';
import { fromNativeEvent, fromStripeEvent } from './subscription-change.js';
import { SubscriptionEventBody, type WebhookAck } from './webhooks.schemas.js';

const addFormats = addFormatsImport as unknown as (ajv: Ajv) => Ajv;

/** Same options as the app's body validator: exact types, unknown fields rejected. */
const validateNative = addFormats(
  new Ajv({ allErrors: true, strict: false, removeAdditional: false, coerceTypes: false }),
).compile<SubscriptionEventBody>(SubscriptionEventBody);

/** Inbound provider webhooks (decisions §10): signature first, then the event. */
export class WebhooksService {
  constructor(private readonly ctx: AppContext) {}

  /**
   * A subscription event in Kontor's format (`Provider-Signature`) or Stripe's
   * (`Stripe-Signature`): verified against the raw body, then applied to the license.
   */
  async subscriptionEvent(delivery: WebhookDelivery): Promise<WebhookAck> {
    const meta = { requestId: delivery.requestId, ip: delivery.ip };
    const verified = await verifyDelivery(this.ctx, delivery);
    if (verified.source === 'stripe') {
      const change = fromStripeEvent(verified.event);
      if (change === undefined) return { received: true, ignored: true };
      return applySubscriptionChange(this.ctx, change, meta);
    }
    if (!validateNative(delivery.body)) {
      const errors = fieldErrors('body', validateNative.errors ?? []);
      throw new AppError(
        'validation_failed',
        `The request is invalid: ${errors.map((e) => `${e.path} ${e.message}`).join('; ')}.`,
        { errors },
      );
    }
    return applySubscriptionChange(
      this.ctx,
      fromNativeEvent(delivery.body, verified.deliveryId),
      meta,
    );
  }
}
