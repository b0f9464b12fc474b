import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  ApiTokenSchema,
  CreateApiTokenBody,
  CreatedApiTokenSchema,
  ListApiTokensQuery,
} from './api-tokens.schemas.js';
import { ApiTokensService } from './api-tokens.service.js';

const tags = ['api-tokens'];

/** `/v1/api-tokens`: personal API tokens. */
export function apiTokenRoutes(app: App, ctx: AppContext): void {
  const service = new ApiTokensService(ctx);

  app.get(
    '/v1/api-tokens',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List personal API tokens (own; admins: all of the account)',
        querystring: ListApiTokensQuery,
        response: { 200: PageOf(ApiTokenSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!, req.query),
  );

  app.post(
    '/v1/api-tokens',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary:
          'Create a personal API token (at most 50 active per user); the secret is in this response only',
        headers: IdempotencyHeaders,
        body: CreateApiTokenBody,
        response: { 201: CreatedApiTokenSchema, ...problems(400, 401, 409) },
      },
    },
    async (req, reply) => {
      const token = await service.create(actorOf(req), req.principal!, req.body);
      return reply.code(201).header('location', `/v1/api-tokens/${token.id}`).send(token);
    },
  );

  app.delete(
    '/v1/api-tokens/:tokenId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Revoke a personal API token, effective immediately',
        params: IdParams('tokenId', 'tok'),
        response: { 204: Type.Null({ description: 'Revoked.' }), ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.principal!, req.params.tokenId);
      return reply.code(204).send(null);
    },
  );
}
