import { Type } from 'typebox';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf, type App } from '../../http/types.js';
import { registerDeliveryJob } from './delivery.job.js';
import {
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesQuery,
  ListWebhookEndpointsQuery,
  UpdateWebhookEndpointBody,
  WebhookDeliverySchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from './webhook-endpoints.schemas.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';

const Params = IdParams('webhookEndpointId', 'whe');
const DeliveryParams = Type.Object({
  ...Params.properties,
  ...IdParams('deliveryId', 'msg').properties,
});
const tags = ['webhook-endpoints'];

/**
 * `/v1/webhook-endpoints`: HTTP only. Reading is for every user of the account; writing (which
 * sends the account's data to a URL of the caller's choosing, and shows signing secrets) is
 * for admins (docs/webhooks.md, "Access").
 */
export function webhookEndpointRoutes(app: App, ctx: AppContext): void {
  const service = new WebhookEndpointsService(ctx);
  registerDeliveryJob(ctx);

  collectionRoutes(app, service);
  recordRoutes(app, service);
  secretAndDeliveryRoutes(app, service);
}

/** Webhook endpoints: list and create (the signing secret is shown once). */
function collectionRoutes(app: App, service: WebhookEndpointsService): void {
  app.get(
    '/v1/webhook-endpoints',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List webhook endpoints',
        querystring: ListWebhookEndpointsQuery,
        response: { 200: PageOf(WebhookEndpointSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/webhook-endpoints',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Create a webhook endpoint (answers its signing secret, once)',
        description:
          'Needs the admin role. The URL is checked after resolving its host (422 naming `/body/url` when refused). The answer carries `secret`, the Standard Webhooks signing secret; no other answer shows it.',
        headers: IdempotencyHeaders,
        body: CreateWebhookEndpointBody,
        response: { 201: WebhookEndpointWithSecretSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const endpoint = await service.create(actorOf(req), req.body);
      setEtag(reply, endpoint.version);
      reply.header('location', `/v1/webhook-endpoints/${endpoint.id}`);
      return reply.code(201).send(endpoint);
    },
  );
}

/** One webhook endpoint: read, replace, delete. */
function recordRoutes(app: App, service: WebhookEndpointsService): void {
  app.get(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a webhook endpoint',
        params: Params,
        response: { 200: WebhookEndpointSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const endpoint = await service.get(req.principal!.accountId, req.params.webhookEndpointId);
      setEtag(reply, endpoint.version);
      return endpoint;
    },
  );

  app.put(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Update a webhook endpoint (partial: omitted fields stay, null clears)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateWebhookEndpointBody,
        response: { 200: WebhookEndpointSchema, ...problems(400, 401, 404, 409, 412, 422, 428) },
      },
    },
    async (req, reply) => {
      const endpoint = await service.update(
        actorOf(req),
        req.params.webhookEndpointId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, endpoint.version);
      return endpoint;
    },
  );

  app.delete(
    '/v1/webhook-endpoints/:webhookEndpointId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Delete a webhook endpoint and its deliveries',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.webhookEndpointId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}

/** An endpoint's signing secret (rotate) and its deliveries (list, replay one). */
function secretAndDeliveryRoutes(app: App, service: WebhookEndpointsService): void {
  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/rotate-secret',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Replace the signing secret (answers the new one, once)',
        description:
          'Needs the admin role. The previous secret keeps signing alongside the new one for 24 hours (a second `v1,` signature in `webhook-signature`), so the receiver can switch over.',
        params: Params,
        headers: Type.Object({
          ...IdempotencyHeaders.properties,
          ...IfMatchHeaders.properties,
        }),
        response: { 200: WebhookEndpointWithSecretSchema, ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const endpoint = await service.rotateSecret(
        actorOf(req),
        req.params.webhookEndpointId,
        readIfMatch(req),
      );
      setEtag(reply, endpoint.version);
      return endpoint;
    },
  );

  app.get(
    '/v1/webhook-endpoints/:webhookEndpointId/deliveries',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the deliveries of a webhook endpoint and their attempts',
        params: Params,
        querystring: ListWebhookDeliveriesQuery,
        response: { 200: PageOf(WebhookDeliverySchema), ...problems(400, 401, 404) },
      },
    },
    (req) =>
      service.listDeliveries(req.principal!.accountId, req.params.webhookEndpointId, req.query),
  );

  app.post(
    '/v1/webhook-endpoints/:webhookEndpointId/deliveries/:deliveryId/replay',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Send a delivery again, now (a new attempt of the same message)',
        description:
          'Needs the admin role. Queues a new attempt at once, with the same `webhook-id` and body, signed afresh; 409 while the endpoint is disabled.',
        params: DeliveryParams,
        headers: IdempotencyHeaders,
        response: { 202: WebhookDeliverySchema, ...problems(401, 404, 409) },
      },
    },
    async (req, reply) => {
      const delivery = await service.replay(
        actorOf(req),
        req.params.webhookEndpointId,
        req.params.deliveryId,
      );
      return reply.code(202).send(delivery);
    },
  );
}
