import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Actor } from '../shared/audit.js';

/** The Fastify instance routes register on: TypeBox schemas type requests and replies. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** Who may call a route (STYLE rule 4). Every route declares one; none is the default. */
export type Access = 'public' | 'apiKey' | 'user' | 'admin';

export type Role = 'admin' | 'user';

/**
 * On a `user` route, the requests that need the admin role after all, decided from the
 * validated request: a real billing or dunning run issues documents and mails customers, its
 * dry run only reads.
 */
export interface AdminWhen {
  /** Which requests need an admin, in words (the 403's detail, OpenAPI, docs/auth.md). */
  what: string;
  /** Whether this request is one of them; asked after body validation. */
  test: (req: FastifyRequest) => boolean;
}

/**
 * A run (billing, dunning) that issues documents and mails customers needs an admin; its dry
 * run, which writes nothing, is open to every user.
 */
export const REAL_RUN: AdminWhen = {
  what: 'a real run (`dryRun` not true)',
  test: (req) => (req.body as { dryRun?: unknown } | null | undefined)?.dryRun !== true,
};

/** The authenticated caller behind a bearer token. */
export interface Principal {
  accountId: string;
  userId: string;
  role: Role;
  tokenId: string;
  tokenKind: 'pat' | 'access';
  sessionId: string | null;
  /** When the credential stops working (ISO timestamp), if ever. */
  expiresAt: string | null;
  /**
   * `web` for an access token of the web app's sign-in: it stands in for the client key
   * (`x-kontor-client: web`, docs/web.md); `api` for every other bearer.
   */
  client: 'api' | 'web';
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    adminWhen?: AdminWhen;
    /**
     * On an `apiKey` route: the web app may call it with `x-kontor-client: web` instead of a
     * client key (password recovery, which needs a secret the person has). On a `public`
     * route: it is one of the web app's own (`/v1/web/*`), which need that header.
     */
    webClient?: boolean;
    /** On a `public` web route: it reads the session cookie (OpenAPI security only). */
    webSession?: boolean;
    /**
     * Its success answers are built by a presenter in exactly the schema's shape, so
     * `JSON.stringify` writes them rather than the schema's serializer (src/app.ts).
     */
    builtAnswers?: boolean;
  }
  interface FastifyRequest {
    principal?: Principal;
    apiKeyId?: string;
    idempotency?: { scope: string; key: string; replayed: boolean };
  }
}

/** The audit actor of an authenticated request. */
export function actorOf(req: { principal?: Principal; id: string; ip: string }): Actor {
  const p = req.principal;
  if (!p) throw new Error('actorOf called on a request without a principal');
  return {
    accountId: p.accountId,
    userId: p.userId,
    tokenId: p.tokenId,
    type: 'user',
    requestId: req.id,
    ip: req.ip,
  };
}
