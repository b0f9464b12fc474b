import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import { hmac, safeEqual, sixDigitCode } from '../../shared/secrets.js';

export type CodePurpose = 'confirm' | 'reset' | 'invite';

/** A code allows this many wrong guesses, then it is spent. */
const MAX_ATTEMPTS = 5;

function codeHash(secret: string, userId: string, purpose: CodePurpose, code: string): string {
  return hmac(secret, `${userId}:${purpose}:${code}`);
}

/**
 * Issues a 6-digit, single-use code. Only a keyed hash is stored, so a database leak does not
 * hand out codes (a plain hash of a 6-digit code would be reversed in a second); earlier
 * unused codes of the same purpose stop working.
 */
export async function issueCode(
  trx: Transaction<DB> | Kysely<DB>,
  secret: string,
  user: { id: string; account_id: string },
  purpose: CodePurpose,
  now: Date,
  ttlMs: number,
  payload: string | null = null,
): Promise<string> {
  const code = sixDigitCode();
  await trx
    .updateTable('auth_codes')
    .set({ used_at: now.toISOString() })
    .where('user_id', '=', user.id)
    .where('purpose', '=', purpose)
    .where('used_at', 'is', null)
    .execute();
  await trx
    .insertInto('auth_codes')
    .values({
      id: newId('authCode'),
      account_id: user.account_id,
      user_id: user.id,
      purpose,
      code_hash: codeHash(secret, user.id, purpose, code),
      payload,
      attempts: 0,
      expires_at: new Date(now.getTime() + ttlMs).toISOString(),
      used_at: null,
      created_at: now.toISOString(),
    })
    .execute();
  return code;
}

/**
 * Spends the user's live code of one of `purposes` when `code` matches and answers its purpose
 * and payload; a wrong guess counts an attempt. The spend is a compare-and-set on `used_at`, so a code works once even when
 * two requests race.
 */
export async function consumeCode(
  trx: Transaction<DB>,
  secret: string,
  userId: string,
  purposes: CodePurpose[],
  code: string,
  now: Date,
): Promise<{ purpose: CodePurpose; payload: string | null } | undefined> {
  const live = await trx
    .selectFrom('auth_codes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('purpose', 'in', purposes)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now.toISOString())
    .where('attempts', '<', MAX_ATTEMPTS)
    .execute();
  for (const row of live) {
    if (safeEqual(row.code_hash, codeHash(secret, userId, row.purpose as CodePurpose, code))) {
      const spent = await trx
        .updateTable('auth_codes')
        .set({ used_at: now.toISOString() })
        .where('id', '=', row.id)
        .where('used_at', 'is', null)
        .executeTakeFirst();
      return spent.numUpdatedRows > 0n
        ? { purpose: row.purpose as CodePurpose, payload: row.payload }
        : undefined;
    }
  }
  if (live.length > 0)
    await trx
      .updateTable('auth_codes')
      .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
      .where(
        'id',
        'in',
        live.map((r) => r.id),
      )
      .execute();
  return undefined;
}
