import type { Kysely } from 'kysely';

/**
 * DATEV export settings (issue 14, docs/datev.md): one row per account that has configured
 * its hand-off to the tax advisor. Consultant and client number, chart of accounts, fiscal
 * year start, account length, the debtor and bank accounts, and the revenue account per tax
 * rate (JSON). Without a row the export answers 422 naming what to configure.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('datev_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('consultant_number', 'integer', (c) => c.notNull())
    .addColumn('client_number', 'integer', (c) => c.notNull())
    // SKR03 or SKR04.
    .addColumn('chart', 'text', (c) => c.notNull())
    .addColumn('fiscal_year_start_month', 'integer', (c) => c.notNull())
    .addColumn('account_length', 'integer', (c) => c.notNull())
    // Null: the chart's default for the account length (collective debtor, bank).
    .addColumn('debtor_account', 'integer')
    .addColumn('bank_account', 'integer')
    // JSON array of {taxRateId, account, taxKey}.
    .addColumn('account_mapping', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
