import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import {
  ChangeRoleBody,
  InvitePreviewSchema,
  InviteUserBody,
  ListUsersQuery,
  UserSchema,
} from './users.schemas.js';
import { UsersService } from './users.service.js';

const tags = ['users'];
const Params = IdParams('userId', 'usr');

/** `/v1/users`: everyone reads; admins invite, change roles and remove. */
export function userRoutes(app: App, ctx: AppContext): void {
  const service = new UsersService(ctx);

  userCollectionRoutes(app, service);
  userItemRoutes(app, service);
}

/** `/v1/users`: list, invite, and preview an invitation. */
function userCollectionRoutes(app: App, service: UsersService): void {
  app.get(
    '/v1/users',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List users of the account',
        querystring: ListUsersQuery,
        response: { 200: PageOf(UserSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/users',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Invite a user; an invitation code is mailed to them',
        headers: IdempotencyHeaders,
        body: InviteUserBody,
        response: { 201: UserSchema, ...problems(400, 401, 403, 409, 422) },
      },
    },
    async (req, reply) => {
      const user = await service.invite(actorOf(req), req.body);
      setEtag(reply, user.version);
      reply.header('location', `/v1/users/${user.id}`);
      return reply.code(201).send(user);
    },
  );

  app.post(
    '/v1/users/confirm',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary:
          'Preview an invitation: validates it and tells seats and price effect; creates nothing',
        body: InviteUserBody,
        response: { 200: InvitePreviewSchema, ...problems(400, 401, 403) },
      },
    },
    (req) => service.preview(req.principal!.accountId, req.body),
  );
}

/** `/v1/users/{userId}`: read, change the role of, and remove one. */
function userItemRoutes(app: App, service: UsersService): void {
  app.get(
    '/v1/users/:userId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get a user',
        params: Params,
        response: { 200: UserSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const user = await service.get(req.principal!.accountId, req.params.userId);
      setEtag(reply, user.version);
      return user;
    },
  );

  app.patch(
    '/v1/users/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change a user’s role (no version in the body; If-Match is honoured)',
        params: Params,
        headers: IfMatchHeaders,
        body: ChangeRoleBody,
        response: { 200: UserSchema, ...problems(400, 401, 403, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      const user = await service.changeRole(
        actorOf(req),
        req.params.userId,
        req.body.role,
        readIfMatch(req),
      );
      setEtag(reply, user.version);
      return user;
    },
  );

  app.delete(
    '/v1/users/:userId',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Remove a user; their sessions and tokens stop working at once',
        params: Params,
        response: { 204: Type.Null({ description: 'Removed.' }), ...problems(401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.userId);
      return reply.code(204).send(null);
    },
  );
}
