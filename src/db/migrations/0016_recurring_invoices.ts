import type { Kysely } from 'kysely';

/**
 * Recurring invoices (issue 14).
 *
 * `contracts.billing`: the contract's billing plan as JSON; `billing_next_date` the date of
 * its next invoice while the plan runs (null without a plan, while paused and once it ended),
 * indexed for the run's "what is due up to this day" scan across accounts.
 *
 * `contract_invoices`: one row per contract and billed period, written in the transaction
 * that creates the period's invoice. Its primary key `(contract_id, period_start)` is what
 * makes a period billed exactly once, however many processes run the schedule at once and
 * however often a run is repeated after a crash.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('contracts').addColumn('billing', 'text').execute();
  await db.schema.alterTable('contracts').addColumn('billing_next_date', 'text').execute();
  await db.schema
    .createIndex('contracts_billing_next_idx')
    .on('contracts')
    .columns(['billing_next_date', 'id'])
    .execute();

  await db.schema
    .createTable('contract_invoices')
    .addColumn('contract_id', 'text', (c) => c.notNull().references('contracts.id'))
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('invoice_date', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('contract_invoices_pk', ['contract_id', 'period_start'])
    .execute();
  await db.schema
    .createIndex('contract_invoices_document_idx')
    .on('contract_invoices')
    .columns(['document_id'])
    .execute();
}
