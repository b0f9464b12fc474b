import type { Kysely } from 'kysely';

/** Notes and reminders, reminder deliveries, newsletter subscriptions, webhook events (issue 3). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('parent_type', 'text', (c) => c.notNull())
    .addColumn('parent_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('content', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('done', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('notes_account_idx')
    .on('notes')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('notes_parent_idx')
    .on('notes')
    .columns(['account_id', 'parent_id'])
    .execute();
  await db.schema
    .createIndex('notes_due_idx')
    .on('notes')
    .columns(['type', 'done', 'due_date'])
    .execute();

  // One row per reminder mail: inserting it is the claim, so each is sent once, whichever
  // scheduler gets there first.
  await db.schema
    .createTable('reminder_deliveries')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text', (c) => c.notNull())
    .addColumn('due_key', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addPrimaryKeyConstraint('reminder_deliveries_pk', ['kind', 'subject_id', 'due_key'])
    .execute();

  await db.schema
    .createTable('newsletter_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('confirmed_at', 'text')
    .addColumn('unsubscribed_at', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Deliveries already processed, by the provider's event id: a replay is answered, not applied.
  await db.schema
    .createTable('webhook_events')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('webhook_events_pk', ['provider', 'event_id'])
    .execute();
}
