import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB } from '../db/schema.js';
import { MINUTE } from '../shared/clock.js';
import { safeEqual, sha256 } from '../shared/secrets.js';
import { AppError } from '../shared/errors.js';
import type { Access, Principal } from './types.js';

/** Where credentials are looked up: the auth module's repository, handed in by the app. */
export interface CredentialLookup {
  /** The id of an active client API key with this SHA-256 hash. */
  findApiKey: (db: Kysely<DB>, hash: string) => Promise<string | undefined>;
  /** The principal behind a live bearer token with this hash at `now`. */
  findBearer: (db: Kysely<DB>, hash: string, now: string) => Promise<Principal | undefined>;
  /** Records that a personal token was used. */
  touchToken: (db: Kysely<DB>, tokenId: string, at: string) => Promise<void>;
}

export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its access level, for the deny-by-default test. */
    routeTable: RouteAccess[];
  }
}

/** Routes a plugin registers (the docs UI) that are public by nature. */
const PLUGIN_PUBLIC_PREFIXES = ['/docs'];
const TOUCH_INTERVAL_MS = MINUTE;

const tokenInvalid = (detail: string) =>
  new AppError('token_invalid', detail, {
    headers: { 'www-authenticate': 'Bearer realm="kontor"' },
  });

/**
 * Deny by default (STYLE rule 4): a route that declares no access level fails the build, and
 * every request is checked against its route's level before validation runs: `apiKey` needs a
 * known `x-api-key`; `user` also a live bearer; `admin` also the admin role.
 */
export function registerAuth(
  app: FastifyInstance,
  ctx: AppContext,
  { findApiKey, findBearer, touchToken }: CredentialLookup,
): void {
  const envKeyHashes = ctx.config.apiKeys.map((k) => sha256(k));
  const touched = new Map<string, number>();

  const table: RouteAccess[] = [];
  app.decorate('routeTable', table);
  app.addHook('onRoute', (route) => {
    let access: Access | undefined = route.config?.access;
    if (access === undefined) {
      if (!PLUGIN_PUBLIC_PREFIXES.some((p) => route.url === p || route.url.startsWith(`${p}/`)))
        throw new Error(`Route ${String(route.method)} ${route.url} declares no access level`);
      access = 'public';
      route.config = { ...route.config, access };
    }
    for (const method of [route.method].flat()) table.push({ method, url: route.url, access });
  });

  async function apiKey(req: FastifyRequest): Promise<void> {
    const raw = req.headers['x-api-key'];
    if (typeof raw !== 'string' || raw.length === 0 || raw.length > 200)
      throw new AppError('api_key_invalid', 'Send a valid x-api-key header.');
    const hash = sha256(raw);
    const envIndex = envKeyHashes.findIndex((h) => safeEqual(h, hash));
    if (envIndex >= 0) {
      req.apiKeyId = `env_${envIndex}`;
      return;
    }
    const generation = ctx.credentials.begin();
    let id = ctx.credentials.getApiKey(hash);
    if (id === undefined) {
      id = await findApiKey(ctx.db, hash);
      if (id === undefined) throw new AppError('api_key_invalid', 'Send a valid x-api-key header.');
      ctx.credentials.putApiKey(hash, id, generation);
    }
    req.apiKeyId = id;
  }

  async function bearer(req: FastifyRequest): Promise<Principal> {
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9_]{10,200})$/.exec(header);
    if (!match) throw tokenInvalid('Send Authorization: Bearer <token>.');
    const hash = sha256(match[1]!);
    const now = ctx.clock.now();
    const nowIso = now.toISOString();
    const generation = ctx.credentials.begin();
    let principal = ctx.credentials.getPrincipal(hash);
    if (principal === undefined) {
      principal = await findBearer(ctx.db, hash, nowIso);
      if (principal === undefined) throw tokenInvalid('The token is unknown, expired or revoked.');
      ctx.credentials.putPrincipal(hash, principal, generation);
    } else if (principal.expiresAt !== null && principal.expiresAt <= nowIso) {
      throw tokenInvalid('The token is unknown, expired or revoked.');
    }
    const last = touched.get(principal.tokenId) ?? 0;
    if (principal.tokenKind === 'pat' && now.getTime() - last > TOUCH_INTERVAL_MS) {
      touched.set(principal.tokenId, now.getTime());
      if (touched.size > 50_000) touched.clear();
      touchToken(ctx.db, principal.tokenId, nowIso).catch((err: unknown) =>
        req.log.warn({ err }, 'could not record token use'),
      );
    }
    return principal;
  }

  // The one onRequest hook: the request id on the response, then the route's access check.
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
    const access = req.routeOptions.config.access;
    // No route matched: the not-found handler answers 404/405 without touching credentials.
    if (access === undefined && req.routeOptions.url === undefined) return;
    if (access === undefined)
      throw new AppError('forbidden', 'This route declares no access level.');
    if (access === 'public') return;
    await apiKey(req);
    if (access === 'apiKey') return;
    const principal = await bearer(req);
    req.principal = principal;
    if (access === 'admin' && principal.role !== 'admin')
      throw new AppError('forbidden', 'This operation needs the admin role.');
  });
}
