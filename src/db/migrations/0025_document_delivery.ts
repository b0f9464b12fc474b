import type { Kysely } from 'kysely';

/**
 * `documents.sent_delivery`: where the last send of a document put the mail — `outbox` (a
 * file in the local outbox, nothing left the machine) or `smtp` (a mail server accepted it).
 * Null for documents never sent, and for those sent before it was recorded.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('sent_delivery', 'text').execute();
}
