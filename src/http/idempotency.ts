import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import { DAY, HOUR, MINUTE } from '../shared/clock.js';
import { deriveKey, seal, sha256, unseal } from '../shared/secrets.js';
import { AppError } from '../shared/errors.js';

const TTL_MS = DAY;
/** A `running` key older than this belongs to a request that died; a retry may take it over. */
const STALE_MS = 5 * MINUTE;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'etag', 'location', 'retry-after'];
const RELEASED_STATUSES = (status: number) => status === 400 || status === 429 || status >= 500;

function scopeOf(req: FastifyRequest): string | undefined {
  if (req.principal) return `${req.principal.accountId}:${req.principal.userId}`;
  if (req.apiKeyId) return `key:${req.apiKeyId}`;
  return undefined;
}

type KeyRow = Selectable<DB['idempotency_keys']>;

/** The `idempotency_keys` table: this file is its one writer. */
function keyStore(db: Kysely<DB>) {
  const one = (scope: string, key: string) =>
    db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key);
  return {
    /** Claims the key; false when a row for it exists already (the primary key decides). */
    async claim(row: Insertable<DB['idempotency_keys']>): Promise<boolean> {
      try {
        await db.insertInto('idempotency_keys').values(row).execute();
        return true;
      } catch (err) {
        if (isUniqueViolation(err)) return false;
        throw err;
      }
    },
    find: (scope: string, key: string): Promise<KeyRow | undefined> =>
      db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scope)
        .where('key', '=', key)
        .executeTakeFirst(),
    /** Drops one claim (only the one created at `createdAt`, when given). */
    async release(scope: string, key: string, createdAt?: string): Promise<void> {
      await (
        createdAt === undefined
          ? one(scope, key)
          : one(scope, key).where('created_at', '=', createdAt)
      ).execute();
    },
    async complete(
      scope: string,
      key: string,
      answer: Pick<KeyRow, 'status_code' | 'response_headers' | 'response_body'>,
    ): Promise<void> {
      await db
        .updateTable('idempotency_keys')
        .set({ state: 'done', ...answer })
        .where('scope', '=', scope)
        .where('key', '=', key)
        .execute();
    },
    async purge(before: string): Promise<void> {
      await db.deleteFrom('idempotency_keys').where('expires_at', '<=', before).execute();
    },
  };
}

/** The header's value, or a 400 naming it when it is not 1–255 visible ASCII characters. */
function readKey(value: string | string[]): string {
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  throw new AppError(
    'validation_failed',
    'Idempotency-Key must be 1–255 visible ASCII characters.',
    {
      errors: [
        {
          path: '/headers/idempotency-key',
          message: 'must be 1–255 visible ASCII characters',
          code: 'invalid_format',
        },
      ],
    },
  );
}

const inProgress = (headers?: Record<string, string>) =>
  new AppError(
    'idempotency_in_progress',
    'A request with this Idempotency-Key is still running.',
    headers ? { headers } : undefined,
  );

/**
 * What a claim that exists already means for this request: `retake` when it expired or its
 * request died (the caller drops it and claims again), the stored answer when it is done,
 * 422 for another request under the same key, 409 while it still runs.
 */
function judgeExisting(existing: KeyRow, requestHash: string, now: Date): 'retake' | KeyRow {
  const expired = existing.expires_at <= now.toISOString();
  const stale =
    existing.state === 'running' && Date.parse(existing.created_at) + STALE_MS <= now.getTime();
  if (expired || stale) return 'retake';
  if (existing.request_hash !== requestHash)
    throw new AppError(
      'idempotency_key_reused',
      'This Idempotency-Key was used with a different request. Use a new key for a new request.',
    );
  if (existing.state === 'running') throw inProgress({ 'retry-after': '1' });
  return existing;
}

/**
 * `Idempotency-Key` on every POST (decisions §6). After authentication and validation, the
 * key is claimed with an INSERT (the primary key makes concurrent claims lose cleanly). A
 * finished request replays its stored response for 24 h; the same key with another body is
 * 422; a key whose request is still running is 409. Answers 400, 429 and ≥ 500 release the
 * key so the client can retry. Keys are scoped to the account and user (or the API key before sign-in).
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  // Stored responses may hold secrets shown once (a new API token, login tokens): sealed at rest.
  const secret = deriveKey(ctx.appSecret, 'idempotency-responses');
  const store = keyStore(ctx.db);

  const preHandler = claimKey(ctx, store, secret);
  const onSend = keepAnswer(store, secret);

  // Only POST routes behind authentication carry the hooks: GETs pay nothing for them.
  app.addHook('onRoute', (route) => {
    const methods = [route.method].flat();
    if (
      !methods.includes('POST') ||
      route.config?.access === 'public' ||
      route.config?.access === undefined
    )
      return;
    route.preHandler = [...[route.preHandler ?? []].flat(), preHandler];
    route.onSend = [...[route.onSend ?? []].flat(), onSend];
  });

  // Expired keys are purged hourly; a replica that misses a run loses nothing.
  const timer = setInterval(() => {
    store
      .purge(ctx.clock.now().toISOString())
      .catch((err: unknown) => ctx.logger.warn({ err }, 'idempotency key purge failed'));
  }, HOUR);
  timer.unref();
  app.addHook('onClose', () => clearInterval(timer));
}

function replay(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  headers: string | null,
  body: string,
): FastifyReply {
  req.idempotency = { scope: '', key: '', replayed: true };
  for (const [k, v] of Object.entries(JSON.parse(headers ?? '{}') as Record<string, string>))
    reply.header(k, v);
  reply.header('idempotent-replayed', 'true');
  return reply
    .code(status)
    .serializer((x) => x as string)
    .send(body);
}

type KeyStore = ReturnType<typeof keyStore>;

/** The preHandler: claims the request's key, or replays / refuses on an existing claim. */
function claimKey(ctx: AppContext, store: KeyStore, secret: Buffer) {
  return async (req: FastifyRequest, reply: FastifyReply) => {
    const header = req.headers['idempotency-key'];
    if (header === undefined) return;
    const scope = scopeOf(req);
    if (scope === undefined) return;
    const key = readKey(header);
    const requestHash = sha256(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`);
    const now = ctx.clock.now();
    const row = {
      scope,
      key,
      method: req.method,
      path: req.url,
      request_hash: requestHash,
      state: 'running',
      status_code: null,
      response_headers: null,
      response_body: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + TTL_MS).toISOString(),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await store.claim(row)) {
        req.idempotency = { scope, key, replayed: false };
        return;
      }
      const existing = await store.find(scope, key);
      if (!existing) continue; // released meanwhile: claim again
      const verdict = judgeExisting(existing, requestHash, now);
      if (verdict === 'retake') {
        await store.release(scope, key, existing.created_at);
        continue;
      }
      const body = verdict.response_body === null ? '' : unseal(secret, verdict.response_body);
      return replay(req, reply, verdict.status_code ?? 200, verdict.response_headers, body);
    }
    throw inProgress();
  };
}

/** The onSend hook: stores the answer under the claimed key, or releases the key. */
function keepAnswer(store: KeyStore, secret: Buffer) {
  return async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = req.idempotency;
    if (!claim || claim.replayed) return payload;
    // Nothing is stored for answers a corrected or later retry should not be held to: 400
    // (the request was invalid, whether the schema or the service said so), 429 and 5xx.
    if (
      RELEASED_STATUSES(reply.statusCode) ||
      (typeof payload !== 'string' && payload !== null && payload !== undefined)
    ) {
      await store.release(claim.scope, claim.key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await store.complete(claim.scope, claim.key, {
      status_code: reply.statusCode,
      response_headers: JSON.stringify(headers),
      response_body: seal(secret, payload ?? ''),
    });
    return payload;
  };
}
