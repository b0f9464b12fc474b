import type { FastifyInstance, FastifyRequest, preHandlerHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { DB } from '../db/schema.js';
import { MINUTE } from '../shared/clock.js';
import { sha256 } from '../shared/secrets.js';
import { AppError } from '../shared/errors.js';
import type { Access, AdminWhen, Principal } from './types.js';

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
  /** On a `user` route: which requests need the admin role after all (`AdminWhen.what`). */
  adminWhen?: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its access level, for the deny-by-default test. */
    routeTable: RouteAccess[];
  }
}

/** Routes a plugin registers (the docs UI, the web app's assets) that are public by nature. */
const PLUGIN_PUBLIC_PREFIXES = ['/docs', '/assets'];
const TOUCH_INTERVAL_MS = MINUTE;

/** The header the web app sends instead of a client key (a cross-site form cannot send it). */
export const WEB_CLIENT_HEADER = 'x-kontor-client';
/** The client id of the web app's requests (idempotency scope, logs). */
const WEB_CLIENT_ID = 'web';

/** A principal the web client header may stand beside: only a web session's. */
function webPrincipal(principal: Principal): Principal {
  if (principal.client !== 'web')
    throw new AppError(
      'api_key_invalid',
      'Send a valid x-api-key header: x-kontor-client: web is accepted only with the access token of a web sign-in.',
    );
  return principal;
}

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
  lookup: CredentialLookup,
): void {
  collectRouteAccess(app);
  const access = new AccessCheck(ctx, lookup);

  // The one onRequest hook: the request id on the response, then the route's access check;
  // a callback hook, so a request whose credentials are cached costs no promise.
  app.addHook('onRequest', (req, reply, done) => {
    reply.header('x-request-id', req.id);
    let pending: Promise<void> | undefined;
    try {
      pending = access.check(req);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  });
}

/**
 * Every route's access level into `app.routeTable`; a route without one fails the build. A
 * `user` route with `adminWhen` gets its role check as the first preHandler: it needs the
 * validated body, and runs before the idempotency claim so a refused request stores nothing.
 */
function collectRouteAccess(app: FastifyInstance): void {
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
    const adminWhen = route.config?.adminWhen;
    if (adminWhen !== undefined) {
      if (access !== 'user')
        throw new Error(`Route ${String(route.method)} ${route.url}: adminWhen needs access user`);
      route.preHandler = [adminCheck(adminWhen), ...[route.preHandler ?? []].flat()];
    }
    for (const method of [route.method].flat())
      table.push({ method, url: route.url, access, adminWhen: adminWhen?.what });
  });
}

function adminCheck(adminWhen: AdminWhen): preHandlerHookHandler {
  return (req, _reply, done) => {
    if (req.principal?.role !== 'admin' && adminWhen.test(req))
      done(new AppError('forbidden', `${capitalise(adminWhen.what)} needs the admin role.`));
    else done();
  };
}

const capitalise = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A request's credentials against its route's access level: the client key, then the bearer
 * and its role. Synchronous when every credential is cached (most requests); a query
 * otherwise.
 */
class AccessCheck {
  // Hashes of high-entropy keys: looking one up by its hash tells nothing about the key.
  private readonly envKeyIndex: Map<string, number>;
  /** When each personal token's use was last recorded by this process. */
  private readonly touched = new Map<string, number>();
  // The hash of a connection's last credential headers: a keep-alive client sends the same
  // header on every request and pays one SHA-256 per connection instead of per request. Only
  // the hash is kept; every request still goes through the cache (revocation stays immediate).
  private readonly lastHash = new WeakMap<object, { raw: string; hash: string }[]>();

  constructor(
    private readonly ctx: AppContext,
    private readonly lookup: CredentialLookup,
  ) {
    this.envKeyIndex = new Map(ctx.config.apiKeys.map((k, i) => [sha256(k), i]));
  }

  /** The route's access check: undefined when settled at once, else its pending lookup. */
  check(req: FastifyRequest): Promise<void> | undefined {
    // Read once: Fastify builds `routeOptions` anew on every access.
    const route = req.routeOptions;
    const access = route.config.access;
    // No route matched: the not-found handler answers 404/405 without touching credentials.
    if (access === undefined && route.url === undefined) return undefined;
    if (access === undefined)
      throw new AppError('forbidden', 'This route declares no access level.');
    if (access === 'public') return undefined;
    if (req.headers['x-api-key'] === undefined && req.headers[WEB_CLIENT_HEADER] === 'web')
      return this.webClient(req, access, route.config.webClient === true);
    const keyLookup = this.apiKey(req);
    if (keyLookup !== undefined) return keyLookup.then(() => this.checkBearer(req, access));
    return this.checkBearer(req, access);
  }

  /**
   * The web app's requests (docs/web.md): no client key, which a browser could not keep
   * secret. On `apiKey` routes marked `webClient` (password recovery) the header stands in
   * for the key; on user routes only a web session's access token is accepted with it, so the
   * header grants nothing on its own and a personal API token still needs its client's key.
   */
  private webClient(
    req: FastifyRequest,
    access: Access,
    webClientRoute: boolean,
  ): Promise<void> | undefined {
    if (access === 'apiKey') {
      if (!webClientRoute) throw new AppError('api_key_invalid', 'Send a valid x-api-key header.');
      req.apiKeyId = WEB_CLIENT_ID;
      return undefined;
    }
    req.apiKeyId = WEB_CLIENT_ID;
    const principal = this.bearer(req);
    if (principal instanceof Promise)
      return principal.then((p) => this.admit(req, webPrincipal(p), access));
    this.admit(req, webPrincipal(principal), access);
    return undefined;
  }

  private hashOnce(req: FastifyRequest, slot: 0 | 1, raw: string): string {
    let memo = this.lastHash.get(req.raw.socket);
    if (memo === undefined) this.lastHash.set(req.raw.socket, (memo = []));
    const last = memo[slot];
    if (last?.raw === raw) return last.hash;
    const hash = sha256(raw);
    memo[slot] = { raw, hash };
    return hash;
  }

  /** Resolves the client key: at once from the caches, by a query otherwise. */
  private apiKey(req: FastifyRequest): Promise<void> | undefined {
    const raw = req.headers['x-api-key'];
    if (typeof raw !== 'string' || raw.length === 0 || raw.length > 200)
      throw new AppError('api_key_invalid', 'Send a valid x-api-key header.');
    const hash = this.hashOnce(req, 0, raw);
    const envIndex = this.envKeyIndex.get(hash);
    if (envIndex !== undefined) {
      req.apiKeyId = `env_${envIndex}`;
      return undefined;
    }
    const { credentials, db } = this.ctx;
    const generation = credentials.begin();
    const cached = credentials.getApiKey(hash);
    if (cached !== undefined) {
      req.apiKeyId = cached;
      return undefined;
    }
    return this.lookup.findApiKey(db, hash).then((id) => {
      if (id === undefined) throw new AppError('api_key_invalid', 'Send a valid x-api-key header.');
      credentials.putApiKey(hash, id, generation);
      req.apiKeyId = id;
    });
  }

  private checkBearer(req: FastifyRequest, access: Access): Promise<void> | undefined {
    if (access === 'apiKey') return undefined;
    const principal = this.bearer(req);
    if (principal instanceof Promise) return principal.then((p) => this.admit(req, p, access));
    this.admit(req, principal, access);
    return undefined;
  }

  /** The principal behind the bearer token: at once from the cache, by a query otherwise. */
  private bearer(req: FastifyRequest): Principal | Promise<Principal> {
    const header = req.headers.authorization;
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9_]{10,200})$/.exec(header);
    if (!match) throw tokenInvalid('Send Authorization: Bearer <token>.');
    const hash = this.hashOnce(req, 1, match[1]!);
    const { credentials, clock, db } = this.ctx;
    const now = clock.now();
    const generation = credentials.begin();
    const cached = credentials.getPrincipal(hash);
    if (cached === undefined) {
      const nowIso = now.toISOString();
      return this.lookup.findBearer(db, hash, nowIso).then((principal) => {
        if (principal === undefined)
          throw tokenInvalid('The token is unknown, expired or revoked.');
        credentials.putPrincipal(hash, principal, generation);
        return this.used(req, principal, now);
      });
    }
    // The time as text only for a token that expires (a cached principal is otherwise live).
    if (cached.expiresAt !== null && cached.expiresAt <= now.toISOString())
      throw tokenInvalid('The token is unknown, expired or revoked.');
    return this.used(req, cached, now);
  }

  /** Records a personal token's use, at most once a minute per token and process. */
  private used(req: FastifyRequest, principal: Principal, now: Date): Principal {
    if (principal.tokenKind !== 'pat') return principal;
    const last = this.touched.get(principal.tokenId) ?? 0;
    if (now.getTime() - last > TOUCH_INTERVAL_MS) {
      this.touched.set(principal.tokenId, now.getTime());
      if (this.touched.size > 50_000) this.touched.clear();
      this.lookup
        .touchToken(this.ctx.db, principal.tokenId, now.toISOString())
        .catch((err: unknown) => req.log.warn({ err }, 'could not record token use'));
    }
    return principal;
  }

  private admit(req: FastifyRequest, principal: Principal, access: Access): void {
    req.principal = principal;
    if (access === 'admin' && principal.role !== 'admin')
      throw new AppError('forbidden', 'This operation needs the admin role.');
  }
}
