import type { FastifyRequest } from 'fastify';
import sjson from 'secure-json-parse';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { problems } from '../../http/schemas.js';
import { SubscriptionWebhookBody, WebhookAck, WebhookHeaders } from './webhooks.schemas.js';
import { WebhooksService } from './webhooks.service.js';
import { PaymentWebhookAck, PaymentWebhookBody } from './payment-webhook.schemas.js';
import { PaymentWebhookService } from './payment-webhook.service.js';

const tags = ['webhooks'];

const header = (value: string | string[] | undefined): string | undefined =>
  Array.isArray(value) ? value.join(',') : value;

/** `/v1/webhooks`: inbound provider events, authorised by their signature (decisions §3, §10). */
export function webhookRoutes(app: App, ctx: AppContext): void {
  const service = new WebhooksService(ctx);
  const payments = new PaymentWebhookService(ctx);

  // Signatures cover the exact bytes sent, so this scope keeps the raw body beside the
  // parsed one; every other module keeps the global parser.
  void app.register((scope, _opts, done) => {
    const rawBodies = new WeakMap<FastifyRequest, string>();
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
      const raw = body as string;
      rawBodies.set(req, raw);
      try {
        done(null, sjson.parse(raw, { protoAction: 'error', constructorAction: 'error' }));
      } catch {
        done(new AppError('malformed_json', 'The request body is not valid JSON.'), undefined);
      }
    });
    // Nothing in the body is trusted before its signature is checked: the service verifies
    // first and then validates the body against the same schema this route documents.
    scope.setValidatorCompiler(() => () => true);

    scope.post(
      '/v1/webhooks/provider-subscriptions',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Subscription event from the payment provider: updates the account’s license',
          description:
            'Needs no `x-api-key` or bearer: authorised by the signature instead. Kontor’s format carries `Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with `PROVIDER_WEBHOOK_SECRET`; Stripe’s `customer.subscription.created|updated|deleted` events carry `Stripe-Signature` (`STRIPE_WEBHOOK_SECRET`). A missing or wrong signature, or a timestamp more than 5 minutes off, answers 400 `signature_invalid`; 503 when the secret is not configured. The same event twice is processed once (`duplicate`); an older event than the one applied is acknowledged but not applied (`stale`); other Stripe event types are acknowledged and `ignored`. An unknown account answers 422 `reference_not_found`, a plan outside the catalogue 422 `business_rule_violated`; neither records the event, so a corrected retry is processed.',
          headers: WebhookHeaders,
          body: SubscriptionWebhookBody,
          response: { 200: WebhookAck, ...problems(400, 422, 503) },
        },
      },
      (req) =>
        service.subscriptionEvent({
          rawBody: rawBodies.get(req) ?? '',
          body: req.body,
          providerSignature: header(req.headers['provider-signature']),
          stripeSignature: header(req.headers['stripe-signature']),
          requestId: req.id,
          ip: req.ip,
        }),
    );

    scope.post(
      '/v1/webhooks/provider',
      {
        config: { access: 'public' },
        schema: {
          tags,
          summary: 'Payment event from the payment provider: creates or updates the payment',
          description:
            'Needs no `x-api-key` or bearer: authorised by the signature instead (see docs/payments.md). Kontor’s payment shape (the body of `POST /v1/payments`, `providerPaymentIntentId` required) carries `Provider-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` keyed with `PROVIDER_WEBHOOK_SECRET` (several `v1` allowed while the secret rotates); Stripe’s `payment_intent.succeeded`, `payment_intent.payment_failed` and `charge.refunded` events carry `Stripe-Signature` (`STRIPE_WEBHOOK_SECRET`). A missing or wrong signature, or a timestamp more than 5 minutes off, answers 400 `signature_invalid` and stores nothing; the body is checked only after the signature; 503 when the secret is not configured. The payment is found by `providerPaymentIntentId` (updated) or created in the account that owns `partnerId` (Stripe: `metadata.partnerId`, or `metadata.kontorAccountId`), with `source: PROVIDER`. The same delivery twice is processed once (`duplicate`); a failure after success leaves the payment MARKED (`stale`); a refund is booked as a MARKED payment in the other direction. A provider id held by a payment of another account than the event names answers 409 `state_conflict`.',
          headers: WebhookHeaders,
          body: PaymentWebhookBody,
          response: { 200: PaymentWebhookAck, ...problems(400, 409, 422, 503) },
        },
      },
      (req) =>
        payments.deliver({
          rawBody: rawBodies.get(req) ?? '',
          body: req.body,
          providerSignature: header(req.headers['provider-signature']),
          stripeSignature: header(req.headers['stripe-signature']),
          requestId: req.id,
          ip: req.ip,
        }),
    );
    done();
  });
}
