import type { Kysely } from 'kysely';

/** Licenses (plan status and period) and durable monthly request counts (issue 3). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('licenses')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_period_end', 'text')
    .addColumn('provider_subscription_id', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('usage_monthly')
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_monthly_pk', ['account_id', 'month'])
    .execute();
}
