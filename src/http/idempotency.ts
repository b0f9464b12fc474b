import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/dialect.js';
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

/**
 * `Idempotency-Key` on every POST (decisions §6). After authentication and validation, the
 * key is claimed with an INSERT (the primary key makes concurrent claims lose cleanly). A
 * finished request replays its stored response for 24 h; the same key with another body is
 * 422; a key whose request is still running is 409. Answers 400, 429 and ≥ 500 release the
 * key so the client can retry. Keys are scoped to the account and user (or the API key before sign-in).
 */
export function registerIdempotency(app: FastifyInstance, ctx: AppContext): void {
  // Stored responses may hold secrets shown once (a new API token, login tokens): sealed at rest.
  const key = deriveKey(ctx.appSecret, 'idempotency-responses');
  const preHandler = async (req: FastifyRequest, reply: FastifyReply) => {
    const idemKey = req.headers['idempotency-key'];
    if (idemKey === undefined) return;
    const scope = scopeOf(req);
    if (scope === undefined) return;
    if (typeof idemKey !== 'string' || !KEY_PATTERN.test(idemKey))
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
    const requestHash = sha256(`${req.method} ${req.url}\n${JSON.stringify(req.body ?? null)}`);
    const now = ctx.clock.now();
    const row = {
      scope,
      key: idemKey,
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
      try {
        await ctx.db.insertInto('idempotency_keys').values(row).execute();
        req.idempotency = { scope, key: idemKey, replayed: false };
        return;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
      }
      const existing = await ctx.db
        .selectFrom('idempotency_keys')
        .selectAll()
        .where('scope', '=', scope)
        .where('key', '=', idemKey)
        .executeTakeFirst();
      if (!existing) continue; // released meanwhile: claim again
      const expired = existing.expires_at <= row.created_at;
      const stale =
        existing.state === 'running' && Date.parse(existing.created_at) + STALE_MS <= now.getTime();
      if (expired || stale) {
        await ctx.db
          .deleteFrom('idempotency_keys')
          .where('scope', '=', scope)
          .where('key', '=', idemKey)
          .where('created_at', '=', existing.created_at)
          .execute();
        continue;
      }
      if (existing.request_hash !== requestHash)
        throw new AppError(
          'idempotency_key_reused',
          'This Idempotency-Key was used with a different request. Use a new key for a new request.',
        );
      if (existing.state === 'running')
        throw new AppError(
          'idempotency_in_progress',
          'A request with this Idempotency-Key is still running.',
          {
            headers: { 'retry-after': '1' },
          },
        );
      const body = existing.response_body === null ? '' : unseal(key, existing.response_body);
      return replay(req, reply, existing.status_code ?? 200, existing.response_headers, body);
    }
    throw new AppError(
      'idempotency_in_progress',
      'A request with this Idempotency-Key is still running.',
    );
  };

  const onSend = async (req: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = req.idempotency;
    if (!claim || claim.replayed) return payload;
    const where = ctx.db
      .deleteFrom('idempotency_keys')
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key);
    // Nothing is stored for answers a corrected or later retry should not be held to: 400
    // (the request was invalid, whether the schema or the service said so), 429 and 5xx.
    if (
      RELEASED_STATUSES(reply.statusCode) ||
      (typeof payload !== 'string' && payload !== null && payload !== undefined)
    ) {
      await where.execute();
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await ctx.db
      .updateTable('idempotency_keys')
      .set({
        state: 'done',
        status_code: reply.statusCode,
        response_headers: JSON.stringify(headers),
        response_body: seal(key, payload ?? ''),
      })
      .where('scope', '=', claim.scope)
      .where('key', '=', claim.key)
      .execute();
    return payload;
  };

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
    ctx.db
      .deleteFrom('idempotency_keys')
      .where('expires_at', '<=', ctx.clock.now().toISOString())
      .execute()
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
