import type { Kysely } from 'kysely';

/**
 * The account's logo (issue 4, decisions §9): an uploaded image of the account that generated
 * documents show when their template has `showLogo`. The foreign key is the backstop of the
 * delete check (a file in use as the logo cannot be deleted).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('logo_file_id', 'text', (c) => c.references('files.id'))
    .execute();
}
