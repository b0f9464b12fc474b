import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import { hmac, safeEqual, sixDigitCode } from '../../shared/secrets.js';
import * as repo from './credentials.repository.js';

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
  await repo.retireCodes(trx, user.id, purpose, now.toISOString());
  await repo.insertCode(trx, {
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
  });
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
  const live = await repo.liveCodes(trx, userId, purposes, now.toISOString(), MAX_ATTEMPTS);
  for (const row of live) {
    if (safeEqual(row.code_hash, codeHash(secret, userId, row.purpose as CodePurpose, code))) {
      return (await repo.spendCode(trx, row.id, now.toISOString()))
        ? { purpose: row.purpose as CodePurpose, payload: row.payload }
        : undefined;
    }
  }
  if (live.length > 0)
    await repo.countAttempt(
      trx,
      live.map((r) => r.id),
    );
  return undefined;
}
