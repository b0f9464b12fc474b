import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { problems } from '../../http/schemas.js';
import {
  AcceptedSchema,
  ConfirmBody,
  ForgotBody,
  LoginBody,
  RefreshBody,
  RegisterBody,
  ResetBody,
  StatusSchema,
  TokensSchema,
} from './auth.schemas.js';
import { AuthService } from './auth.service.js';
import { meta } from './auth.support.js';
import { PasswordRecoveryService } from './password-recovery.service.js';
import { webSessionRoutes } from './web-session.routes.js';

const tags = ['auth'];

/** `/v1/auth/*`: x-api-key only, except logout, which ends the caller's own session. */
export function authRoutes(app: App, ctx: AppContext): void {
  const service = new AuthService(ctx);
  const recovery = new PasswordRecoveryService(ctx);

  registrationRoutes(app, service);
  sessionRoutes(app, service);
  recoveryRoutes(app, recovery);
  webSessionRoutes(app, ctx, service);
}

/** Registering an account and confirming its owner’s address. */
function registrationRoutes(app: App, service: AuthService): void {
  app.post(
    '/v1/auth/register',
    {
      config: { access: 'apiKey' },
      schema: {
        tags,
        summary: 'Create an account and its first admin; mails a 6-digit confirmation code',
        body: RegisterBody,
        response: { 202: AcceptedSchema, ...problems(400, 401, 429) },
      },
    },
    async (req, reply) => reply.code(202).send(await service.register(req.body, meta(req))),
  );

  app.post(
    '/v1/auth/confirm',
    {
      config: { access: 'apiKey', webClient: true },
      schema: {
        tags,
        summary: 'Confirm the email with the code from the registration mail',
        body: ConfirmBody,
        response: { 200: StatusSchema, ...problems(400, 401, 429) },
      },
    },
    (req) => service.confirm(req.body, meta(req)),
  );
}

/** Sessions: login, refresh and logout. */
function sessionRoutes(app: App, service: AuthService): void {
  app.post(
    '/v1/auth/login',
    {
      config: { access: 'apiKey' },
      schema: {
        tags,
        summary: 'Sign in: a 15-minute access token and a rotating 30-day refresh token',
        body: LoginBody,
        response: { 200: TokensSchema, ...problems(400, 401, 403, 429) },
      },
    },
    (req) => service.login(req.body, meta(req)),
  );

  app.post(
    '/v1/auth/refresh',
    {
      config: { access: 'apiKey' },
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new pair; re-using a spent one ends the session',
        body: RefreshBody,
        response: { 200: TokensSchema, ...problems(400, 401) },
      },
    },
    (req) => service.refresh(req.body.refreshToken, meta(req)),
  );

  app.post(
    '/v1/auth/logout',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'End the current session (bearer: the session access token)',
        response: { 204: Type.Null({ description: 'Signed out.' }), ...problems(400, 401) },
      },
    },
    async (req, reply) => {
      await service.logout(req.principal!, meta(req));
      return reply.code(204).send(null);
    },
  );
}

/** Password recovery: the mail with the link, and the new password. */
function recoveryRoutes(app: App, recovery: PasswordRecoveryService): void {
  app.post(
    '/v1/auth/forgot-password',
    {
      config: { access: 'apiKey', webClient: true },
      schema: {
        tags,
        summary: 'Mail a single-use reset code; answers the same for unknown emails',
        body: ForgotBody,
        response: { 202: AcceptedSchema, ...problems(400, 401, 429) },
      },
    },
    async (req, reply) =>
      reply.code(202).send(await recovery.forgotPassword(req.body.email, meta(req))),
  );

  app.post(
    '/v1/auth/reset-password',
    {
      config: { access: 'apiKey', webClient: true },
      schema: {
        tags,
        summary:
          'Set a new password with a reset or invitation code; ends all sessions and, by default, deletes the personal API tokens of the user',
        body: ResetBody,
        response: { 200: StatusSchema, ...problems(400, 401, 429) },
      },
    },
    (req) => recovery.resetPassword(req.body, meta(req)),
  );
}
