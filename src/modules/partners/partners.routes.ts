import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf, jsonPageReply, jsonText } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  CreatePartnerBody,
  ListPartnersQuery,
  PartnerSchema,
  UpdatePartnerBody,
} from './partners.schemas.js';
import { PartnersService } from './partners.service.js';
import { partnerNumberingRoutes } from './partner-numbers.routes.js';

const Params = IdParams('partnerId', 'ptr');
const tags = ['partners'];

/** `/v1/partners`: HTTP only — input, one service call, status, ETag and body. */
export function partnerRoutes(app: App, ctx: AppContext): void {
  const service = new PartnersService(ctx);

  partnerCollectionRoutes(app, service);
  partnerNumberingRoutes(app, ctx);
  partnerItemRoutes(app, service);
}

/** `/v1/partners`: list and create. */
function partnerCollectionRoutes(app: App, service: PartnersService): void {
  app.get(
    '/v1/partners',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List partners',
        querystring: ListPartnersQuery,
        response: { 200: PageOf(PartnerSchema), ...problems(400, 401) },
      },
    },
    async (req, reply) =>
      jsonPageReply(reply, await service.list(req.principal!.accountId, req.query)),
  );

  app.post(
    '/v1/partners',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Create a partner',
        headers: IdempotencyHeaders,
        body: CreatePartnerBody,
        response: { 201: PartnerSchema, ...problems(400, 401, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const partner = await service.create(actorOf(req), req.body);
      setEtag(reply, partner.version);
      reply.header('location', `/v1/partners/${partner.id}`);
      return reply.code(201).send(partner);
    },
  );
}

/** `/v1/partners/{partnerId}`: read, update and delete one. */
function partnerItemRoutes(app: App, service: PartnersService): void {
  app.get(
    '/v1/partners/:partnerId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a partner',
        params: Params,
        response: { 200: PartnerSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const partner = await service.get(req.principal!.accountId, req.params.partnerId);
      setEtag(reply, partner.version);
      return jsonText(reply, partner.json);
    },
  );

  app.put(
    '/v1/partners/:partnerId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Update a partner (partial: omitted fields stay, null clears)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdatePartnerBody,
        response: { 200: PartnerSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const partner = await service.update(
        actorOf(req),
        req.params.partnerId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, partner.version);
      return partner;
    },
  );

  app.delete(
    '/v1/partners/:partnerId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a partner (409 in_use while other records reference it)',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.partnerId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}
