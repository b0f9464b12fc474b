import type { Executor } from '../../db/records.js';

/**
 * The one writer of `setup_links`: one-time links that create the first account of an
 * installation without a mail. Only the SHA-256 of a link's token is stored.
 */

export async function insertSetupLink(
  db: Executor,
  row: { id: string; token_hash: string; created_at: string },
): Promise<void> {
  await db
    .insertInto('setup_links')
    .values({ ...row, used_at: null })
    .execute();
}

/** Whether an unused link has this token hash. */
export async function isOpenSetupLink(db: Executor, hash: string): Promise<boolean> {
  const row = await db
    .selectFrom('setup_links')
    .select('id')
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Spends the link with this hash (compare-and-set, so two tabs racing with one link create one
 * account) and every other open link with it: the installation has its owner now. False when
 * the link was unknown or already used.
 */
export async function spendSetupLinks(db: Executor, hash: string, at: string): Promise<boolean> {
  const spent = await db
    .updateTable('setup_links')
    .set({ used_at: at })
    .where('token_hash', '=', hash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  if (spent.numUpdatedRows === 0n) return false;
  await db.updateTable('setup_links').set({ used_at: at }).where('used_at', 'is', null).execute();
  return true;
}
