import type { Kysely } from 'kysely';

/** Payments and the dashboard's cash anchor (issue 5, decisions §10, §12). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('payments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('direction', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.references('documents.id'))
    .addColumn('document_number', 'text')
    .addColumn('contract_id', 'text', (c) => c.references('contracts.id'))
    .addColumn('contract_name', 'text')
    .addColumn('partner_id', 'text', (c) => c.references('partners.id'))
    .addColumn('partner_name', 'text')
    // Positive integer minor units; `direction` says which way the money went.
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('payment_date', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('payment_method', 'text')
    .addColumn('provider_payment_intent_id', 'text', (c) => c.unique())
    .addColumn('failure_reason', 'text')
    .addColumn('marked_at', 'text')
    // MANUAL (the API), PROVIDER (a webhook), IMPORT (a finalized bank statement import).
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text')
    // Folded partner name, contract name and document number for `q` (accent-insensitive
    // search alike on both databases); written by the payments module with every name change.
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('payments_account_idx')
    .on('payments')
    .columns(['account_id', 'id'])
    .execute();
  // Dashboard balances and time series: settled payments by day.
  await db.schema
    .createIndex('payments_account_status_date_idx')
    .on('payments')
    .columns(['account_id', 'status', 'payment_date'])
    .execute();
  await db.schema
    .createIndex('payments_account_document_idx')
    .on('payments')
    .columns(['account_id', 'document_id'])
    .execute();
  // Filters and the in-use checks before a partner or contract is deleted.
  await db.schema
    .createIndex('payments_account_partner_idx')
    .on('payments')
    .columns(['account_id', 'partner_id'])
    .execute();
  await db.schema
    .createIndex('payments_account_contract_idx')
    .on('payments')
    .columns(['account_id', 'contract_id'])
    .execute();

  await db.schema
    .createTable('cash_anchors')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('opening_balance', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('effective_date', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
