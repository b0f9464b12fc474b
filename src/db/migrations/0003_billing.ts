import type { Kysely } from 'kysely';

/** The account's billing method (issue 3): card reference or encrypted bank account. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('account_billing')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('billing_method', 'text', (c) => c.notNull())
    .addColumn('card', 'text')
    .addColumn('bank_sealed', 'text')
    .addColumn('bank_masked', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
