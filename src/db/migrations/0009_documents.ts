import type { Kysely } from 'kysely';

/** Documents, their number sequences, and the durable job queue (issue 4). */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('documents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('search_name', 'text', (c) => c.notNull())
    .addColumn('document_number', 'text')
    .addColumn('contract_id', 'text', (c) => c.references('contracts.id'))
    .addColumn('contract_name', 'text')
    .addColumn('partner_id', 'text', (c) => c.references('partners.id'))
    .addColumn('partner_name', 'text')
    .addColumn('creation_date', 'text', (c) => c.notNull())
    .addColumn('due_date', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('template_id', 'text', (c) => c.references('document_templates.id'))
    // UPLOADED: the uploaded file. GENERATED: the rendered PDF (null until rendered).
    .addColumn('file_id', 'text', (c) => c.references('files.id'))
    .addColumn('file_type', 'text')
    .addColumn('pdf_sha256', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    // JSON: the invoice's line items as given, and the computed totals per tax rate.
    .addColumn('line_items', 'text', (c) => c.notNull())
    .addColumn('tax_breakdown', 'text', (c) => c.notNull())
    .addColumn('net_total', 'bigint', (c) => c.notNull())
    .addColumn('tax_total', 'bigint', (c) => c.notNull())
    .addColumn('gross_total', 'bigint', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('processing_status', 'text')
    .addColumn('processing_error', 'text')
    .addColumn('page_count', 'integer')
    // JSON: what the analysis of an uploaded file found (text excerpt, e-invoice data).
    .addColumn('analysis', 'text')
    .addColumn('finalized_at', 'text')
    .addColumn('sent_at', 'text')
    .addColumn('sent_to', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('documents_account_idx')
    .on('documents')
    .columns(['account_id', 'id'])
    .execute();
  // Numbers are unique per account and document type (decisions §7); drafts have none.
  await db.schema
    .createIndex('documents_number_uq')
    .on('documents')
    .columns(['account_id', 'document_type', 'document_number'])
    .unique()
    .execute();
  await db.schema
    .createIndex('documents_file_idx')
    .on('documents')
    .columns(['account_id', 'file_id'])
    .execute();

  // The last number given per account, document type and year: incremented in the
  // finalizing transaction, so a number is taken only when the document becomes FINAL and
  // concurrent finalizations serialise on the row.
  await db.schema
    .createTable('document_sequences')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('document_type', 'text', (c) => c.notNull())
    .addColumn('year', 'integer', (c) => c.notNull())
    .addColumn('last_value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_sequences_pk', ['account_id', 'document_type', 'year'])
    .execute();

  // Background jobs, enqueued in the transaction of the write that needs them, so a job
  // exists exactly when its write committed; claimed by compare-and-set, so any number of
  // workers (processes, replicas) share the table.
  await db.schema
    .createTable('jobs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('run_after', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('jobs_due_idx').on('jobs').columns(['status', 'run_after']).execute();
}
