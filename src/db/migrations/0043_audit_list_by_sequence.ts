import type { Kysely } from 'kysely';

/**
 * The audit trail's list reads an account's events newest first in the chain's own order, by
 * sequence number, through the unique (account, sequence) index every event already has. The
 * (account, id) index served the same list in id order; it goes, and with it one index entry
 * that every write of the whole product wrote with its event (on SQLite one page of its WAL).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('audit_events_account_idx').execute();
}
