import type { Kysely } from 'kysely';

/**
 * Indexes of the dashboard (issue 5, decisions §12), so every figure is an index range scan
 * within one account:
 * - settled payments per account, status, currency and day, covering direction and amount:
 *   balances and time series read the index alone, never the table;
 * - open REMINDER notes of an account by due date;
 * - ACTIVE contracts of an account by cancellation deadline.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('payments_dashboard_idx')
    .on('payments')
    .columns(['account_id', 'status', 'currency', 'payment_date', 'direction', 'amount'])
    .execute();
  await db.schema
    .createIndex('notes_account_reminders_idx')
    .on('notes')
    .columns(['account_id', 'type', 'done', 'due_date'])
    .execute();
  await db.schema
    .createIndex('contracts_account_deadline_idx')
    .on('contracts')
    .columns(['account_id', 'status', 'cancellation_deadline'])
    .execute();
}
