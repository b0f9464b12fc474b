import { Type } from 'typebox';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { problems } from '../../http/schemas.js';
import { WEB_CLIENT_HEADER } from '../../http/auth.js';
import { AppError } from '../../shared/errors.js';
import { EmailField } from '../users/index.js';
import { LoginBody, TokensSchema, type Tokens } from './auth.schemas.js';
import type { AuthService } from './auth.service.js';
import { meta } from './auth.support.js';
import { WebSessionService } from './web-session.service.js';

const tags = ['web'];
/** The refresh token's cookie: sent only to the session routes below, never readable by script. */
export const SESSION_COOKIE = 'kontor_session';
const COOKIE_PATH = '/v1/web/session';

const WebSessionSchema = Type.Omit(TokensSchema, ['refreshToken'], {
  additionalProperties: false,
  description:
    'A web sign-in: the access token for the page’s memory; the refresh token is in the HttpOnly cookie `kontor_session`.',
});

const SetupBody = Type.Object(
  {
    token: Type.String({
      minLength: 10,
      maxLength: 200,
      description: 'The token of the setup link printed at the first start.',
    }),
    email: EmailField,
    password: Type.String({
      minLength: 1,
      maxLength: 1024,
      description:
        'At least 12 characters (configurable), at most 256; common passwords are refused.',
    }),
    name: Type.String({ minLength: 1, maxLength: 200, description: 'Your name.' }),
    companyName: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The business the account is for.',
    }),
  },
  { additionalProperties: false },
);

const SetupCheckBody = Type.Object(
  { token: Type.String({ minLength: 10, maxLength: 200, description: 'The setup link’s token.' }) },
  { additionalProperties: false },
);

/**
 * Every cookie-authenticated request must carry `x-kontor-client: web`: a cross-site form
 * cannot send a custom header, and a cross-site script could only with a CORS preflight,
 * which Kontor never grants. A browser's `Origin`, when sent, must be Kontor's own.
 */
function webClientOnly(ctx: AppContext): onRequestHookHandler {
  const own = new URL(ctx.config.publicUrl).origin;
  return (req, _reply, done) => {
    if (req.headers[WEB_CLIENT_HEADER] !== 'web')
      return done(new AppError('client_header_missing', 'Send the header x-kontor-client: web.'));
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== own && origin !== `${req.protocol}://${req.host}`)
      return done(new AppError('forbidden', `Requests from ${origin} are not accepted.`));
    done();
  };
}

/** The cookie that carries a web session's refresh token, and the answers that set it. */
function sessionCookies(ctx: AppContext) {
  const secure = ctx.config.publicUrl.startsWith('https:');
  const set = (reply: FastifyReply, value: string, expires: Date) =>
    reply.header(
      'set-cookie',
      stringifySetCookie({
        name: SESSION_COOKIE,
        value,
        httpOnly: true,
        sameSite: 'strict',
        secure,
        path: COOKIE_PATH,
        expires,
      }),
    );
  return {
    clear: (reply: FastifyReply) => set(reply, '', new Date(0)),
    /** The session's answer: the access token in the body, the refresh token as the cookie. */
    signedIn: (reply: FastifyReply, tokens: Tokens) => {
      const { refreshToken, ...session } = tokens;
      set(reply, refreshToken, new Date(tokens.refreshExpiresAt));
      return reply.header('cache-control', 'no-store').send(session);
    },
    /** The refresh token the request's cookie holds, when it has a plausible one. */
    token: (req: FastifyRequest) => {
      const token = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
      return token !== undefined && token.length >= 10 && token.length <= 200 ? token : undefined;
    },
  };
}

/** The web app's session routes and the one-time setup link (docs/web.md). */
export function webSessionRoutes(app: App, ctx: AppContext, auth: AuthService): void {
  const service = new WebSessionService(ctx, auth);
  const cookies = sessionCookies(ctx);
  const onRequest = webClientOnly(ctx);
  sessionRoutes(app, service, cookies, onRequest);
  setupRoutes(app, service, cookies, onRequest);
}

const config = { access: 'public' as const, webClient: true };
const cookieConfig = { ...config, webSession: true };
type Cookies = ReturnType<typeof sessionCookies>;

/** Sign in, refresh and sign out. */
function sessionRoutes(
  app: App,
  service: WebSessionService,
  cookies: Cookies,
  onRequest: onRequestHookHandler,
): void {
  app.post(
    '/v1/web/session',
    {
      config,
      onRequest,
      schema: {
        tags,
        summary:
          'Web sign-in: the access token in the answer, the refresh token as an HttpOnly cookie',
        body: LoginBody,
        response: { 200: WebSessionSchema, ...problems(400, 401, 403, 429) },
      },
    },
    async (req, reply) => cookies.signedIn(reply, await service.signIn(req.body, meta(req))),
  );

  app.post(
    '/v1/web/session/refresh',
    {
      config: cookieConfig,
      onRequest,
      schema: {
        tags,
        summary: 'Web session: a new access token for the cookie’s refresh token (rotated)',
        response: { 200: WebSessionSchema, ...problems(401, 403) },
      },
    },
    async (req, reply) => {
      const token = cookies.token(req);
      try {
        if (token === undefined) throw new AppError('token_invalid', 'Not signed in.');
        return cookies.signedIn(reply, await service.refresh(token, meta(req)));
      } catch (err) {
        if (err instanceof AppError && err.code === 'token_invalid') cookies.clear(reply);
        throw err;
      }
    },
  );

  app.delete(
    '/v1/web/session',
    {
      config: cookieConfig,
      onRequest,
      schema: {
        tags,
        summary: 'Web sign-out: ends the cookie’s session and clears the cookie',
        response: { 204: Type.Null({ description: 'Signed out.' }), ...problems(403) },
      },
    },
    async (req, reply) => {
      const token = cookies.token(req);
      if (token !== undefined) await service.signOut(token, meta(req));
      cookies.clear(reply);
      return reply.code(204).send(null);
    },
  );
}

/** The one-time setup link: whether it still works, and the first account from it. */
function setupRoutes(
  app: App,
  service: WebSessionService,
  cookies: Cookies,
  onRequest: onRequestHookHandler,
): void {
  app.post(
    '/v1/web/setup/check',
    {
      config,
      onRequest,
      schema: {
        tags,
        summary: 'Whether a setup link can still create the first account',
        body: SetupCheckBody,
        response: {
          200: Type.Object({ status: Type.Literal('open') }, { additionalProperties: false }),
          ...problems(400, 403, 404),
        },
      },
    },
    (req) => service.checkSetupLink(req.body.token),
  );

  app.post(
    '/v1/web/setup',
    {
      config,
      onRequest,
      schema: {
        tags,
        summary:
          'Create the first account with the one-time setup link (no mail needed) and sign its owner in',
        body: SetupBody,
        response: { 200: WebSessionSchema, ...problems(400, 403, 404, 429) },
      },
    },
    async (req, reply) => cookies.signedIn(reply, await service.setup(req.body, meta(req))),
  );
}
