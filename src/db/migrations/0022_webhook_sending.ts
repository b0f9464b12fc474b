import { sql, type Kysely } from 'kysely';

/**
 * Fair webhook delivery (docs/webhooks.md, "Fairness").
 *
 * `webhook_deliveries.sending_until`: the lease of the attempt in flight (null when none). A
 * delivery job takes the lease before it sends and clears it when it records the outcome; the
 * leases of an account are what its in-flight count, and so its share of the job slots, is
 * read from. A worker that dies leaves a lease that runs out.
 *
 * The partial indexes hold an account's deliveries still to send (its next one: the longest
 * due) and its leases (few rows at a time).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_deliveries').addColumn('sending_until', 'text').execute();
  await db.schema
    .createIndex('webhook_deliveries_due_idx')
    .on('webhook_deliveries')
    .columns(['account_id', 'next_attempt_at', 'id'])
    .where(sql.ref('status'), '=', 'PENDING')
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_sending_idx')
    .on('webhook_deliveries')
    .columns(['account_id', 'sending_until'])
    .where(sql.ref('sending_until'), 'is not', null)
    .execute();
}
