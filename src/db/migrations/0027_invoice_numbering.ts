import type { Kysely } from 'kysely';

/**
 * `invoice_numbering`: the account's own number formats for invoices and credit notes
 * (docs/invoicing.md §8), written only by the documents module. No row means the defaults
 * `{YYYY}-{0000}` and `GS-{YYYY}-{0000}`. The sequences stay in `document_sequences`: a custom
 * format counts in a row of its own (`document_type` `INVOICE:<format>`), so changing the
 * format never renumbers a FINAL invoice and going back to a format continues its count.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invoice_numbering')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('invoice_format', 'text', (c) => c.notNull())
    .addColumn('credit_note_format', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
