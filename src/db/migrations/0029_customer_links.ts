import type { Kysely } from 'kysely';

/**
 * The customer's page (docs/customer-page.md), written only by the customer-pages module:
 * `customer_links`, one signed link to one FINAL document (only the SHA-256 of its token is
 * stored), with its expiry, revocation and when it was viewed; `customer_link_settings`, per
 * account whether sending a document puts a link into the mail and how long such a link lives.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('customer_links')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('created_by', 'text')
    .addColumn('first_viewed_at', 'text')
    .addColumn('last_viewed_at', 'text')
    .addColumn('view_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('customer_links_document')
    .on('customer_links')
    .columns(['account_id', 'document_id', 'id'])
    .execute();
  await db.schema
    .createTable('customer_link_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('valid_days', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
