import type { Kysely } from 'kysely';

/** Files: uploaded and generated file records (issue 4). The bytes live in the file storage. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('files')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('key', 'text', (c) => c.notNull().unique())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('rejection_reason', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('upload_expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Listing (newest first by id) and the storage sum per account.
  await db.schema
    .createIndex('files_account_idx')
    .on('files')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('files_account_status_idx')
    .on('files')
    .columns(['account_id', 'status'])
    .execute();
}
