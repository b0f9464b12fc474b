import { sql, type Kysely } from 'kysely';

/**
 * Indexes of the lists the web app lives on (docs/benchmarks.md, "The lists at 100,000
 * invoices"); at that size each list read its way through the whole account before:
 * - a partner's documents, newest first (`GET /v1/documents?partnerId=…`): by account, partner
 *   and id, so the page is the first rows of one index range — no index had the partner, so
 *   SQLite walked every document of the account by id and PostgreSQL scanned the table;
 * - the open FINAL invoices (neither paid nor cancelled), twice, both partial, so they hold the
 *   open items only: by id for the `open` and `overdue` tabs, with the due date, so `overdue`
 *   skips the open invoices not yet due without reading their rows (before, SQLite took the
 *   dunning index by due date, read every invoice ever due, paid ones too, and sorted them by
 *   id); and by currency with what the dashboard's open totals read (source, due date, gross
 *   total), so they read the open items only instead of every invoice of the account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('documents_partner_idx')
    .on('documents')
    .columns(['account_id', 'partner_id', 'id'])
    .execute();
  for (const [name, columns] of [
    // The constant columns make SQLite take it over (account_id, id), which orders by id too.
    [
      'documents_open_idx',
      ['account_id', 'document_type', 'status', 'invoice_type', 'id', 'due_date'],
    ],
    [
      'documents_open_totals_idx',
      [
        'account_id',
        'document_type',
        'status',
        'invoice_type',
        'currency',
        'source',
        'due_date',
        'gross_total',
        'id',
      ],
    ],
  ] as const)
    await db.schema
      .createIndex(name)
      .on('documents')
      .columns([...columns])
      .where(sql.ref('document_type'), '=', 'INVOICE')
      .where(sql.ref('status'), '=', 'FINAL')
      .where(sql.ref('invoice_type'), '=', 'INVOICE')
      .where(sql.ref('cancelled_by_document_id'), 'is', null)
      .where(sql.ref('paid_at'), 'is', null)
      .execute();
}
