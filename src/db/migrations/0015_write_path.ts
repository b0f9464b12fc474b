import type { Kysely } from 'kysely';

/**
 * The write path (issue 12).
 *
 * Tag tables: the secondary index led with `account_id`, so `delete … where account_id = ? and
 * owner_id = ?` (every create and tag change) was planned on it and scanned every tag of the
 * account. Leading with `tag` keeps it for the tag filter (`tag = ? and account_id = ?`) and
 * leaves the owner's own lookups to the primary key `(owner_id, tag)`.
 *
 * `audit_pending`: on PostgreSQL a write's audit event lands here in the write's transaction,
 * without touching the account's chain head; it is chained into `audit_events` right after the
 * commit, in batches (see `src/shared/audit.ts`), so writers of one account no longer queue on
 * the head's row lock for the length of their transactions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const [table, owner] of [
    ['partner_tags', 'partner_id'],
    ['product_tags', 'product_id'],
    ['contract_tags', 'contract_id'],
  ] as const) {
    const base = table.replace('_tags', '');
    await db.schema.dropIndex(`${base}_tags_account_tag_idx`).execute();
    await db.schema
      .createIndex(`${base}_tags_tag_idx`)
      .on(table)
      .columns(['tag', 'account_id', owner])
      .execute();
  }

  await db.schema
    .createTable('audit_pending')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('token_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('changes', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('ip', 'text')
    .execute();
  await db.schema
    .createIndex('audit_pending_account_idx')
    .on('audit_pending')
    .columns(['account_id', 'id'])
    .execute();
}
