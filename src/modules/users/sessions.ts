import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { DAY, MINUTE } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import { newSecret } from '../../shared/secrets.js';
import * as repo from './credentials.repository.js';

export const ACCESS_TTL_MS = 15 * MINUTE;
export const REFRESH_TTL_MS = 30 * DAY;

export interface IssuedTokens {
  sessionId: string;
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  refreshExpiresAt: string;
}

async function issuePair(
  trx: Transaction<DB>,
  user: { id: string; account_id: string },
  sessionId: string,
  now: Date,
): Promise<IssuedTokens> {
  const access = newSecret('kat');
  const refresh = newSecret('krt');
  const refreshExpiresAt = new Date(now.getTime() + REFRESH_TTL_MS).toISOString();
  const base = {
    account_id: user.account_id,
    user_id: user.id,
    session_id: sessionId,
    name: null,
    created_at: now.toISOString(),
    last_used_at: null,
    used_at: null,
    revoked_at: null,
  };
  await repo.insertTokens(trx, [
    {
      ...base,
      id: newId('apiToken'),
      kind: 'access',
      prefix: access.display,
      token_hash: access.hash,
      expires_at: new Date(now.getTime() + ACCESS_TTL_MS).toISOString(),
    },
    {
      ...base,
      id: newId('apiToken'),
      kind: 'refresh',
      prefix: refresh.display,
      token_hash: refresh.hash,
      expires_at: refreshExpiresAt,
    },
  ]);
  // The session lives as long as its newest refresh token (sliding 30 days).
  await repo.extendSession(trx, sessionId, refreshExpiresAt);
  return {
    sessionId,
    accessToken: access.secret,
    refreshToken: refresh.secret,
    expiresIn: ACCESS_TTL_MS / 1000,
    refreshExpiresAt,
  };
}

/** Which client holds a session's tokens: the caller (`api`) or the web app (`web`). */
export type SessionClient = 'api' | 'web';

/** Starts a session with a 15-minute access token and a 30-day refresh token. */
export async function startSession(
  trx: Transaction<DB>,
  user: { id: string; account_id: string },
  now: Date,
  meta: { ip: string | null; userAgent: string | null },
  client: SessionClient = 'api',
): Promise<IssuedTokens> {
  const sessionId = newId('session');
  await repo.insertSession(trx, {
    id: sessionId,
    account_id: user.account_id,
    user_id: user.id,
    ip: meta.ip,
    user_agent: meta.userAgent?.slice(0, 300) ?? null,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + REFRESH_TTL_MS).toISOString(),
    revoked_at: null,
    revoked_reason: null,
    client,
  });
  return issuePair(trx, user, sessionId, now);
}

export type RefreshOutcome =
  | { kind: 'rotated'; tokens: IssuedTokens; userId: string; accountId: string }
  | { kind: 'reused'; sessionId: string; userId: string; accountId: string }
  | { kind: 'invalid' };

/**
 * Rotates a refresh token: the presented one is spent (compare-and-set on `used_at`) and a new
 * pair is issued. Presenting a spent token again means it leaked: the caller revokes the whole
 * session.
 */
export async function rotateRefresh(
  trx: Transaction<DB>,
  hash: string,
  now: Date,
  client: SessionClient = 'api',
): Promise<RefreshOutcome> {
  const row = await repo.findRefreshToken(trx, hash);
  // A session is refreshed only by the client that holds it: an API refresh token never
  // becomes a web session (whose access token stands in for the client key), nor the reverse.
  if (!row || row.session_id === null || row.client !== client) return { kind: 'invalid' };
  if (row.session_revoked_at !== null || row.revoked_at !== null || row.status !== 'ACTIVE')
    return { kind: 'invalid' };
  if (row.used_at !== null)
    return {
      kind: 'reused',
      sessionId: row.session_id,
      userId: row.user_id,
      accountId: row.account_id,
    };
  if (row.expires_at !== null && row.expires_at <= now.toISOString()) return { kind: 'invalid' };
  if (!(await repo.spendToken(trx, row.id, now.toISOString())))
    return {
      kind: 'reused',
      sessionId: row.session_id,
      userId: row.user_id,
      accountId: row.account_id,
    };
  const tokens = await issuePair(
    trx,
    { id: row.user_id, account_id: row.account_id },
    row.session_id,
    now,
  );
  return { kind: 'rotated', tokens, userId: row.user_id, accountId: row.account_id };
}

/** The live session a refresh token belongs to (spent or not), or undefined. */
export async function sessionOfRefreshToken(
  trx: Transaction<DB>,
  hash: string,
  client: SessionClient,
): Promise<{ sessionId: string; userId: string; accountId: string } | undefined> {
  const row = await repo.findRefreshToken(trx, hash);
  if (!row || row.session_id === null || row.client !== client) return undefined;
  if (row.session_revoked_at !== null) return undefined;
  return { sessionId: row.session_id, userId: row.user_id, accountId: row.account_id };
}

/** Ends sessions (one, or all of a user) and every token issued to them. */
export async function revokeSessions(
  trx: Transaction<DB>,
  where: { sessionId: string } | { userId: string },
  reason: string,
  now: Date,
): Promise<string[]> {
  return repo.revokeSessionRows(trx, where, reason, now.toISOString());
}
