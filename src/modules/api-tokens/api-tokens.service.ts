import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import type { Principal } from '../../http/types.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { isIsoDate, parseTimestamp } from '../../shared/dates.js';
import { newId } from '../../shared/ids.js';
import { newSecret } from '../../shared/secrets.js';
import { lockAccount } from '../account/index.js';
import {
  countActivePersonalTokens,
  deletePersonalTokens,
  insertTokens,
  listPersonalTokens,
  type TokenRow,
} from '../users/index.js';
import type { ApiToken, CreateApiToken, ListApiTokens } from './api-tokens.schemas.js';

/**
 * Active personal tokens a user may hold. Limits count per user and account, so more tokens
 * buy no more requests; the cap keeps a leaked session from minting an unbounded number of
 * long-lived credentials and the list short enough to review.
 */
export const MAX_ACTIVE_TOKENS = 50;

function present(row: TokenRow): ApiToken {
  return {
    id: row.id,
    name: row.name ?? '',
    prefix: row.prefix,
    userId: row.user_id,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
  };
}

/**
 * The latest expiry an RFC 3339 string with a 4-digit year can hold. Later instants serialise
 * as `+010000-…`, which fails the response schema (500 on create and on every later list) and
 * sorts before any real timestamp, so the token would count as expired at once.
 */
const MAX_EXPIRY_MS = Date.parse('9999-12-31T23:59:59.999Z');

function parseExpiry(value: string | undefined, now: Date): string | null {
  if (value === undefined) return null;
  const invalid = (message: string) =>
    new AppError('validation_failed', `expiresAt ${message}.`, {
      errors: [{ path: '/body/expiresAt', message, code: 'invalid_value' }],
    });
  let at: number | undefined;
  // A date means the end of that day; the last day there is ends at the last representable ms.
  if (isIsoDate(value)) at = Math.min(Date.parse(`${value}T00:00:00Z`) + 86_400_000, MAX_EXPIRY_MS);
  else at = parseTimestamp(value);
  if (at === undefined) throw invalid('must be an RFC 3339 timestamp or a YYYY-MM-DD date');
  if (at > MAX_EXPIRY_MS) throw invalid('must be before the year 10000');
  if (at <= now.getTime()) throw invalid('must be in the future');
  return new Date(at).toISOString();
}

/**
 * Deletes every personal API token of a user inside the caller's transaction, with one
 * `api_token.deleted` event each (`reason` in the changes), and answers the deleted ids. The
 * caller invalidates the credential cache once the transaction has committed.
 */
export async function deleteUserApiTokens(
  trx: Transaction<DB>,
  actor: Actor,
  user: { accountId: string; userId: string },
  reason: string,
  now: Date,
): Promise<string[]> {
  const deleted = await deletePersonalTokens(trx, user.accountId, { userId: user.userId });
  for (const row of deleted)
    await appendAudit(
      trx,
      actor,
      {
        action: 'api_token.deleted',
        resourceType: 'api_token',
        resourceId: row.id,
        changes: { ...present(row), reason },
      },
      now,
    );
  return deleted.map((row) => row.id);
}

/**
 * Personal API tokens (decisions §3): the secret is shown once and only its SHA-256 is kept.
 * Users see and delete their own; admins every token of the account.
 */
export class ApiTokensService {
  constructor(private readonly ctx: AppContext) {}

  async list(
    principal: Principal,
    q: ListApiTokens,
  ): Promise<{ data: ApiToken[]; nextCursor: string | null }> {
    const limit = q.limit ?? 25;
    // A user sees their own tokens; an admin every token, or one user's with `userId`.
    const own = principal.role !== 'admin';
    if (own && q.userId !== undefined && q.userId !== principal.userId)
      return { data: [], nextCursor: null };
    const rows = await listPersonalTokens(this.ctx.db, principal.accountId, {
      userId: own ? principal.userId : q.userId,
      after: decodeCursor(q.cursor),
      limit: limit + 1,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(present), nextCursor: page.nextCursor };
  }

  async create(
    actor: Actor,
    principal: Principal,
    input: CreateApiToken,
  ): Promise<ApiToken & { token: string }> {
    const now = this.ctx.clock.now();
    const secret = newSecret('kpat');
    const row: TokenRow = {
      id: newId('apiToken'),
      account_id: principal.accountId,
      user_id: principal.userId,
      kind: 'pat',
      session_id: null,
      name: input.name,
      prefix: secret.display,
      token_hash: secret.hash,
      created_at: now.toISOString(),
      expires_at: parseExpiry(input.expiresAt, now),
      last_used_at: null,
      used_at: null,
      revoked_at: null,
    };
    const token = present(row);
    await this.ctx.db.transaction().execute(async (trx) => {
      // Under the account row's lock, so two concurrent creates cannot both take the last slot.
      await lockAccount(trx, principal.accountId);
      const active = await countActivePersonalTokens(
        trx,
        principal.accountId,
        principal.userId,
        now.toISOString(),
      );
      if (active >= MAX_ACTIVE_TOKENS)
        throw new AppError(
          'token_limit_reached',
          `A user may hold ${MAX_ACTIVE_TOKENS} active personal API tokens. Delete one you no longer use with DELETE /v1/api-tokens/{tokenId}.`,
        );
      await insertTokens(trx, [row]);
      await appendAudit(
        trx,
        actor,
        {
          action: 'api_token.created',
          resourceType: 'api_token',
          resourceId: row.id,
          changes: token,
        },
        now,
      );
    });
    return { ...token, token: secret.secret };
  }

  /** Deletes the token; the credential cache forgets it before this returns. */
  async remove(actor: Actor, principal: Principal, tokenId: string): Promise<void> {
    const now = this.ctx.clock.now();
    await this.ctx.db.transaction().execute(async (trx) => {
      const [deleted] = await deletePersonalTokens(trx, principal.accountId, {
        tokenId,
        userId: principal.role === 'admin' ? undefined : principal.userId,
      });
      if (!deleted) throw notFound('API token');
      await appendAudit(
        trx,
        actor,
        {
          action: 'api_token.deleted',
          resourceType: 'api_token',
          resourceId: tokenId,
          changes: present(deleted),
        },
        now,
      );
    });
    await this.ctx.credentials.invalidate({ type: 'token', id: tokenId });
  }
}
