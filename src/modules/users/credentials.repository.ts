import type { Insertable, Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { AuthCodesTable, AuthTokensTable, DB } from '../../db/schema.js';

export type TokenRow = Selectable<AuthTokensTable>;
export type CodeRow = Selectable<AuthCodesTable>;

/**
 * Every query on what proves a user: tokens (personal, access, refresh), sessions and one-time
 * codes. This file is the one writer of `auth_tokens`, `sessions` and `auth_codes`; the
 * api-tokens module keeps personal tokens through it, auth's credential check reads them.
 */

// --- tokens ---

export async function insertTokens(
  trx: Executor,
  rows: Insertable<DB['auth_tokens']>[],
): Promise<void> {
  await trx.insertInto('auth_tokens').values(rows).execute();
}

/** Spends a token (a refresh token's rotation): false when it was spent meanwhile. */
export async function spendToken(trx: Executor, id: string, at: string): Promise<boolean> {
  const spent = await trx
    .updateTable('auth_tokens')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return spent.numUpdatedRows > 0n;
}

/** Records that a personal token was used (at most once a minute per token, by the caller). */
export async function touchToken(db: Executor, tokenId: string, at: string): Promise<void> {
  await db.updateTable('auth_tokens').set({ last_used_at: at }).where('id', '=', tokenId).execute();
}

/** A refresh token by hash with its session's and user's state. */
export function findRefreshToken(trx: Executor, hash: string) {
  return trx
    .selectFrom('auth_tokens as t')
    .innerJoin('sessions as s', 's.id', 't.session_id')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select([
      't.id',
      't.account_id',
      't.user_id',
      't.session_id',
      't.expires_at',
      't.used_at',
      't.revoked_at',
      's.revoked_at as session_revoked_at',
      's.client',
      'u.status',
    ])
    .where('t.token_hash', '=', hash)
    .where('t.kind', '=', 'refresh')
    .executeTakeFirst();
}

/** Personal tokens of the account, of one user unless `userId` is undefined; newest first. */
export function listPersonalTokens(
  db: Executor,
  accountId: string,
  q: { userId: string | undefined; after: string | undefined; limit: number },
): Promise<TokenRow[]> {
  let query = db
    .selectFrom('auth_tokens')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('kind', '=', 'pat');
  if (q.userId !== undefined) query = query.where('user_id', '=', q.userId);
  if (q.after !== undefined) query = query.where('id', '<', q.after);
  return query.orderBy('id', 'desc').limit(q.limit).execute();
}

/** Personal tokens of a user that are neither revoked nor expired at `now`. */
export async function countActivePersonalTokens(
  db: Executor,
  accountId: string,
  userId: string,
  now: string,
): Promise<number> {
  const row = await db
    .selectFrom('auth_tokens')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('user_id', '=', userId)
    .where('kind', '=', 'pat')
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes personal tokens: one (`tokenId`), limited to `userId` when given, or all of `userId`. */
export function deletePersonalTokens(
  db: Executor,
  accountId: string,
  where: { tokenId?: string; userId?: string },
): Promise<TokenRow[]> {
  let query = db
    .deleteFrom('auth_tokens')
    .where('account_id', '=', accountId)
    .where('kind', '=', 'pat');
  if (where.tokenId !== undefined) query = query.where('id', '=', where.tokenId);
  if (where.userId !== undefined) query = query.where('user_id', '=', where.userId);
  return query.returningAll().execute();
}

// --- sessions ---

export async function insertSession(trx: Executor, row: Insertable<DB['sessions']>): Promise<void> {
  await trx.insertInto('sessions').values(row).execute();
}

/** The session lives as long as its newest refresh token. */
export async function extendSession(trx: Executor, id: string, expiresAt: string): Promise<void> {
  await trx.updateTable('sessions').set({ expires_at: expiresAt }).where('id', '=', id).execute();
}

/** Revokes live sessions (one, or all of a user) and their tokens; answers the session ids. */
export async function revokeSessionRows(
  trx: Executor,
  where: { sessionId: string } | { userId: string },
  reason: string,
  at: string,
): Promise<string[]> {
  let query = trx
    .updateTable('sessions')
    .set({ revoked_at: at, revoked_reason: reason })
    .where('revoked_at', 'is', null);
  query =
    'sessionId' in where
      ? query.where('id', '=', where.sessionId)
      : query.where('user_id', '=', where.userId);
  const ids = (await query.returning('id').execute()).map((r) => r.id);
  if (ids.length > 0)
    await trx
      .updateTable('auth_tokens')
      .set({ revoked_at: at })
      .where('session_id', 'in', ids)
      .where('revoked_at', 'is', null)
      .execute();
  return ids;
}

// --- one-time codes ---

/** Earlier unused codes of the purpose stop working. */
export async function retireCodes(
  trx: Executor,
  userId: string,
  purpose: string,
  at: string,
): Promise<void> {
  await trx
    .updateTable('auth_codes')
    .set({ used_at: at })
    .where('user_id', '=', userId)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
}

export async function insertCode(trx: Executor, row: Insertable<DB['auth_codes']>): Promise<void> {
  await trx.insertInto('auth_codes').values(row).execute();
}

/** Unspent, unexpired codes of the user for `purposes` with guesses left. */
export function liveCodes(
  trx: Executor,
  userId: string,
  purposes: string[],
  now: string,
  maxAttempts: number,
): Promise<CodeRow[]> {
  return trx
    .selectFrom('auth_codes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', maxAttempts)
    .execute();
}

/** Spends a code (compare-and-set on `used_at`): false when another request spent it first. */
export async function spendCode(trx: Executor, id: string, at: string): Promise<boolean> {
  const spent = await trx
    .updateTable('auth_codes')
    .set({ used_at: at })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return spent.numUpdatedRows > 0n;
}

/** A wrong guess: one more attempt on each of the codes it could have been. */
export async function countAttempt(trx: Executor, ids: string[]): Promise<void> {
  await trx
    .updateTable('auth_codes')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', 'in', ids)
    .execute();
}

/** Everything that proves a user, deleted with the user. */
export async function deleteUserCredentials(
  trx: Executor,
  accountId: string,
  userId: string,
): Promise<void> {
  for (const table of ['auth_tokens', 'sessions', 'auth_codes'] as const)
    await trx
      .deleteFrom(table)
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .execute();
}
