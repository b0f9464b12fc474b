import { sql, type Kysely } from 'kysely';

/**
 * Dunning (Mahnwesen, issue 14, docs/dunning.md).
 *
 * `documents`: an invoice's dunning level (0 none, 1 payment reminder, 2-4 dunning letters),
 * the day of its last letter, and whether it is blocked from dunning. Indexed for the run's
 * scan of an account's open FINAL invoices by due date.
 *
 * `partners`: blocked from dunning, and whether the partner is a consumer (§13 BGB), which
 * sets the default interest (§288 BGB: base rate + 5 points, businesses + 9) and whether
 * the EUR 40 flat fee of §288 (5) BGB may be claimed (businesses only). Null: unknown.
 *
 * `dunning_settings`: the account's levels, flat fee and schedule switch; no row means the
 * defaults.
 *
 * `dunning_notices`: one row per letter sent for an invoice and level. Its primary key
 * `(invoice_id, level)` makes a level reach an invoice once, however many processes run the
 * schedule and however often a run is repeated.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('documents')
    .addColumn('dunning_level', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('documents').addColumn('last_dunned_at', 'text').execute();
  await db.schema
    .alterTable('documents')
    .addColumn('dunning_blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The run's scan: open FINAL invoices of an account by due date. Partial, so it holds only
  // invoices that can still be dunned.
  await db.schema
    .createIndex('documents_dunning_idx')
    .on('documents')
    .columns(['account_id', 'due_date', 'id'])
    .where(sql.ref('document_type'), '=', 'INVOICE')
    .where(sql.ref('status'), '=', 'FINAL')
    .where(sql.ref('invoice_type'), '=', 'INVOICE')
    .where(sql.ref('cancelled_by_document_id'), 'is', null)
    .execute();

  await db.schema
    .alterTable('partners')
    .addColumn('dunning_blocked', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('partners').addColumn('consumer', 'integer').execute();

  await db.schema
    .createTable('dunning_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // JSON array of {kind, daysAfter, fee (minor units), defaultInterest}, level 1 first.
    .addColumn('levels', 'text', (c) => c.notNull())
    .addColumn('flat_fee', 'integer', (c) => c.notNull())
    .addColumn('payment_days', 'integer', (c) => c.notNull())
    // The last day the schedule ran the account: claimed by one replica per day.
    .addColumn('last_run_on', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('dunning_notices')
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull().references('documents.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('as_of', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('open_minor', 'bigint', (c) => c.notNull())
    .addColumn('fee_minor', 'bigint', (c) => c.notNull())
    .addColumn('interest_minor', 'bigint', (c) => c.notNull())
    .addColumn('flat_fee_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('dunning_notices_pk', ['invoice_id', 'level'])
    .execute();
  await db.schema
    .createIndex('dunning_notices_account_idx')
    .on('dunning_notices')
    .columns(['account_id', 'document_id'])
    .execute();
}
