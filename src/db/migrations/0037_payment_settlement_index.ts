import type { Kysely } from 'kysely';

/**
 * What an invoice's payments settle (the settled sum of `paymentStatus`, a payment write's
 * settlement, dunning's re-check, the `paymentStatus` filter) is read by account, document,
 * status and currency, summing direction and amount. With only (account, document) indexed,
 * SQLite's planner took the dashboard's (account, status, currency, …) index for one invoice
 * and read every settled payment of the account each time: a statement settling n invoices
 * cost n². This index answers those reads from the index alone, and replaces the
 * (account, document) one, which is its prefix.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('payments_account_document_settled_idx')
    .on('payments')
    .columns(['account_id', 'document_id', 'status', 'currency', 'direction', 'amount'])
    .execute();
  await db.schema.dropIndex('payments_account_document_idx').execute();
}
