import type { Kysely } from 'kysely';

/** Document templates (issue 4): letters and offers, with their compiled preview HTML. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('document_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('content_source', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('header_source', 'text')
    .addColumn('header_visibility', 'text', (c) => c.notNull())
    .addColumn('footer_source', 'text')
    .addColumn('footer_visibility', 'text', (c) => c.notNull())
    .addColumn('show_logo', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('logo_position', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('system_key', 'text')
    .addColumn('compiled_header_html', 'text')
    .addColumn('compiled_content_html', 'text', (c) => c.notNull())
    .addColumn('compiled_footer_html', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('document_templates_account_idx')
    .on('document_templates')
    .columns(['account_id', 'id'])
    .execute();
  // One system template per key and account; NULL keys (user templates) never collide.
  await db.schema
    .createIndex('document_templates_system_key_uq')
    .on('document_templates')
    .columns(['account_id', 'system_key'])
    .unique()
    .execute();
}
