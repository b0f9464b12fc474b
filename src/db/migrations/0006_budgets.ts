import type { Kysely } from 'kysely';

/** Budget categories and entries (decisions §12). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('budget_categories')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('monthly_limit', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // JSON array of the keywords as written; matching folds case and umlauts.
    .addColumn('keywords', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // The foreign keys of entries name (account, category): an entry cannot point into
    // another account's category.
    .addUniqueConstraint('budget_categories_account_id_uq', ['account_id', 'id'])
    .execute();
  // Names are unique per account, compared case- and accent-insensitively.
  await db.schema
    .createIndex('budget_categories_name_uq')
    .on('budget_categories')
    .columns(['account_id', 'search_name'])
    .unique()
    .execute();

  await db.schema
    .createTable('budget_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('category_id', 'text', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('entry_date', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text')
    .addColumn('vendor_name', 'text')
    // MANUAL (POST /v1/budget-entries) or IMPORT (a finalized bank statement import).
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('import_id', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint(
      'budget_entries_category_fk',
      ['account_id', 'category_id'],
      'budget_categories',
      ['account_id', 'id'],
    )
    .execute();
  await db.schema
    .createIndex('budget_entries_account_idx')
    .on('budget_entries')
    .columns(['account_id', 'id'])
    .execute();
  // Spent per category and month: a range scan on (account, category, date).
  await db.schema
    .createIndex('budget_entries_category_date_idx')
    .on('budget_entries')
    .columns(['account_id', 'category_id', 'entry_date'])
    .execute();
}
