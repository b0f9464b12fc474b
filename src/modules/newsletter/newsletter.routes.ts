import { Type } from 'typebox';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { page, PAGE_HEADERS, prefersJson } from './newsletter.pages.js';
import {
  LinkQuery,
  LinkResultSchema,
  OwnSubscriptionSchema,
  SignupAcceptedSchema,
  SignupBody,
  UpdateOwnSubscriptionBody,
  type LinkResult,
} from './newsletter.schemas.js';
import { NewsletterService } from './newsletter.service.js';

const tags = ['newsletter'];

const RESULT_PAGES: Record<LinkResult['status'], [string, string]> = {
  subscribed: [
    'Subscription confirmed',
    'Thank you. You will receive the Kontor newsletter at this address. Every issue carries a link to unsubscribe.',
  ],
  unsubscribed: [
    'Unsubscribed',
    'You will not receive the Kontor newsletter at this address any more.',
  ],
};

/** A link answer: a small HTML page for people, `{status}` JSON for clients that prefer it. */
function answer(req: FastifyRequest, reply: FastifyReply, result: LinkResult) {
  reply.headers(PAGE_HEADERS);
  if (prefersJson(req.headers.accept)) return reply.type('application/json').send(result);
  const [title, message] = RESULT_PAGES[result.status];
  return reply.type('text/html; charset=utf-8').send(page(title, message));
}

const PAGE = Type.String({ description: 'A small self-contained page.' });

/** People get a page for a bad link too (`linkErrorPage`); JSON clients get the problem. */
const linkResponses = {
  200: {
    description: 'Done (the same answer when repeated).',
    content: {
      'application/json': { schema: LinkResultSchema },
      'text/html': { schema: PAGE },
    },
  },
  400: {
    description:
      'The link is tampered, expired or unknown (link_invalid), or the token is missing or malformed (validation_failed): a page, or the problem when Accept prefers application/json.',
    content: {
      'application/problem+json': { schema: Type.Ref('Problem') },
      'text/html': { schema: PAGE },
    },
  },
};

/**
 * `/v1/newsletter/*` and `/v1/me/newsletter-subscription` (decisions §14). Signup needs the
 * api key only; the mailed links are public and authorised by their signed token.
 */
export function newsletterRoutes(app: App, ctx: AppContext): void {
  const service = new NewsletterService(ctx);

  subscriptionRoutes(app, service);

  // The link routes share a scope: their form parser (RFC 8058 one-click POSTs) and their
  // HTML error pages must not leak into other modules.
  app.register((scope, _opts, done) => {
    // The one-click body is always `List-Unsubscribe=One-Click`; the token in the URL is
    // what counts, so the body is read (within a small limit) and dropped.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_req, _body, done) => done(null, undefined),
    );

    scope.setErrorHandler(linkErrorPage);
    linkRoutes(scope, service);
    done();
  });
}

/** Signing up (double opt-in) and a user's own subscription. */
function subscriptionRoutes(app: App, service: NewsletterService): void {
  app.post(
    '/v1/newsletter/signup',
    {
      config: { access: 'apiKey' },
      schema: {
        tags,
        summary: 'Sign up for the newsletter; mails a confirm link (double opt-in)',
        description:
          'Answers 202 with the same body whether the address is new, pending or already subscribed. At most 3 confirmation mails per address and hour (further signups are accepted silently); 20 signups per IP and hour, then 429.',
        body: SignupBody,
        response: { 202: SignupAcceptedSchema, ...problems(400, 401, 429) },
      },
    },
    async (req, reply) => reply.code(202).send(await service.signup(req.body.email, req.ip)),
  );

  app.patch(
    '/v1/me/newsletter-subscription',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Subscribe or unsubscribe the caller’s own email',
        body: UpdateOwnSubscriptionBody,
        response: { 200: OwnSubscriptionSchema, ...problems(400, 401, 404) },
      },
    },
    (req) => service.setOwn(actorOf(req), req.body),
  );
}

/**
 * People following a link get an HTML page for a bad link too; JSON clients keep the RFC 9457
 * problem from the app's handler.
 */
function linkErrorPage(
  err: FastifyError | AppError,
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const status = err instanceof AppError ? err.status : (err.statusCode ?? 500);
  if (prefersJson(req.headers.accept) || status >= 500) throw err;
  const title =
    err instanceof AppError && err.code === 'link_invalid' ? err.title : 'Invalid request';
  const message =
    err instanceof AppError && err.code === 'link_invalid'
      ? err.message
      : 'This link could not be used. Please check that it was copied completely.';
  reply.headers(PAGE_HEADERS);
  if (err instanceof AppError)
    for (const [k, v] of Object.entries(err.extras.headers ?? {})) reply.header(k, v);
  return reply.code(status).type('text/html; charset=utf-8').send(page(title, message));
}

/** The mailed links: confirm a signup, unsubscribe (the page, and the one-click POST). */
function linkRoutes(typed: App, service: NewsletterService): void {
  // No automatic HEAD twins: a link checker's HEAD must not confirm or unsubscribe anyone.
  typed.get(
    '/v1/newsletter/confirm',
    {
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Confirm a signup (the link from the confirmation mail)',
        description:
          'Authorised by the signed token (valid 7 days). Answers an HTML page, or `{status}` when Accept prefers application/json. 400 `link_invalid` for a tampered, expired or unknown link.',
        querystring: LinkQuery,
        response: linkResponses,
      },
    },
    async (req, reply) => answer(req, reply, await service.confirm(req.query.token)),
  );

  typed.get(
    '/v1/newsletter/unsubscribe',
    {
      exposeHeadRoute: false,
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'Unsubscribe (the link from every newsletter)',
        description:
          'Authorised by the signed token (valid 90 days). Idempotent. HTML page, or `{status}` when Accept prefers application/json.',
        querystring: LinkQuery,
        response: linkResponses,
      },
    },
    async (req, reply) => answer(req, reply, await service.unsubscribe(req.query.token)),
  );

  typed.post(
    '/v1/newsletter/unsubscribe',
    {
      config: { access: 'public' },
      schema: {
        tags,
        summary: 'One-click unsubscribe (RFC 8058 `List-Unsubscribe-Post`)',
        description:
          'Mail providers POST `List-Unsubscribe=One-Click` as application/x-www-form-urlencoded to the `List-Unsubscribe` address; the token in the query authorises it.',
        querystring: LinkQuery,
        response: linkResponses,
      },
    },
    async (req, reply) => answer(req, reply, await service.unsubscribe(req.query.token)),
  );
}
