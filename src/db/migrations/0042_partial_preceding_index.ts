import { sql, type Kysely } from 'kysely';

/**
 * The credit notes and Stornos of an invoice are found by (account, preceding document): the
 * figures trigger's credit-note sum (0039) on every recompute, dunning's re-check, the credited
 * totals of a page. Most documents precede nothing, so the index now holds only those that do.
 *
 * The reason is the plan, not the size. In a database whose tables have no statistics yet (a new
 * installation, an account moving in, before autovacuum's first ANALYZE), every index that
 * starts with `account_id` costs PostgreSQL's planner the same floor, and a plan cached then
 * (the trigger's, or a prepared statement's generic plan) took the partner index and read
 * every document of the account for each recompute: a bulk load of 12,000 invoices in one
 * account took 156 s. The partial index is smaller than the others in every estimate, so it is
 * the cheaper plan from the first row on; every reader compares `preceding_document_id` with
 * `=` or `in`, which both databases take as implying that it is not null.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('documents_preceding_idx').execute();
  await db.schema
    .createIndex('documents_preceding_idx')
    .on('documents')
    .columns(['account_id', 'preceding_document_id'])
    .where(sql.ref('preceding_document_id'), 'is not', null)
    .execute();
}
