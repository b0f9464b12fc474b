import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Principal, Role } from '../../http/types.js';
import { touchToken } from '../users/index.js';

/**
 * The lookups behind every authenticated request. These are the only unscoped finders in
 * Kontor: a credential is what tells us the account in the first place.
 */

/** The principal of a live bearer (personal token or session access token), or undefined. */
export async function findBearer(
  db: Kysely<DB>,
  hash: string,
  now: string,
): Promise<Principal | undefined> {
  const row = await db
    .selectFrom('auth_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('sessions as s', 's.id', 't.session_id')
    .select([
      't.id',
      't.account_id',
      't.user_id',
      't.kind',
      't.session_id',
      't.expires_at',
      't.revoked_at',
      'u.role',
      'u.status',
      's.revoked_at as session_revoked_at',
      's.expires_at as session_expires_at',
      's.client',
    ])
    .where('t.token_hash', '=', hash)
    .where('t.kind', 'in', ['pat', 'access'])
    .executeTakeFirst();
  if (!row || row.revoked_at !== null || row.status !== 'ACTIVE') return undefined;
  if (row.expires_at !== null && row.expires_at <= now) return undefined;
  if (
    row.kind === 'access' &&
    (row.session_revoked_at !== null || (row.session_expires_at ?? '') <= now)
  )
    return undefined;
  return {
    accountId: row.account_id,
    userId: row.user_id,
    role: row.role as Role,
    tokenId: row.id,
    tokenKind: row.kind as 'pat' | 'access',
    sessionId: row.session_id,
    expiresAt: row.expires_at,
    client: row.client === 'web' ? 'web' : 'api',
  };
}

export async function findApiKey(db: Kysely<DB>, hash: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .select('id')
    .where('key_hash', '=', hash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row?.id;
}

/** The lookups the HTTP layer's access check runs (`registerAuth`). */
export const credentialLookup = { findApiKey, findBearer, touchToken };
