import type { AppContext } from '../../context.js';
import { applyPaymentEvent } from './apply-payment-event.command.js';
import { fromNativePayment } from './payment-events.js';
import { fromStripePaymentEvent } from './stripe-payment-events.js';
import type { PaymentWebhookAck } from './payment-webhook.schemas.js';
import { verifyDelivery } from './signatures.js';
import type { WebhookDelivery } from './signatures.js';

/**
 * `POST /v1/webhooks/provider` (decisions §10): the signature is checked against the raw body
 * first; only then is the body read, checked and applied to the payments.
 */
export class PaymentWebhookService {
  constructor(private readonly ctx: AppContext) {}

  async deliver(delivery: WebhookDelivery): Promise<PaymentWebhookAck> {
    const meta = { requestId: delivery.requestId, ip: delivery.ip };
    const verified = await verifyDelivery(this.ctx, delivery);
    if (verified.source === 'stripe') {
      const event = fromStripePaymentEvent(verified.event);
      if (event === undefined) return { received: true, ignored: true };
      return applyPaymentEvent(this.ctx, event, meta);
    }
    return applyPaymentEvent(this.ctx, fromNativePayment(delivery.body, verified.deliveryId), meta);
  }
}
