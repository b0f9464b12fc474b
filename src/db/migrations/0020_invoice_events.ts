import { sql, type Kysely } from 'kysely';

/**
 * Invoice events (issue 14, docs/webhooks.md).
 *
 * `documents.paid_at`: when a FINAL invoice's settled payments first covered its gross total
 * (cleared when a payment is undone): `document.paid` is emitted exactly when it is set.
 * Invoices already paid are back-filled (their last change as the time), so none of them
 * announces itself as paid, or overdue, after the upgrade.
 *
 * `documents.overdue_at`: the day the overdue scan announced the invoice (`document.overdue`),
 * once. The partial index holds only the invoices the scan still has to look at.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('documents').addColumn('paid_at', 'text').execute();
  await db.schema.alterTable('documents').addColumn('overdue_at', 'text').execute();
  await sql`
    update documents set paid_at = updated_at
    where document_type = 'INVOICE' and status = 'FINAL' and invoice_type = 'INVOICE'
      and gross_total > 0
      and gross_total <= (
        select coalesce(sum(case when p.direction = 'INCOMING' then p.amount else -p.amount end), 0)
        from payments p
        where p.account_id = documents.account_id and p.document_id = documents.id
          and p.status = 'MARKED' and p.currency = documents.currency
      )`.execute(db);
  // Invoices overdue already are not announced after the upgrade: only those due from now on.
  const today = new Date().toISOString().slice(0, 10);
  await sql`
    update documents set overdue_at = ${today}
    where document_type = 'INVOICE' and status = 'FINAL' and due_date < ${today}`.execute(db);
  await db.schema
    .createIndex('documents_overdue_scan_idx')
    .on('documents')
    .columns(['due_date', 'id'])
    .where(sql.ref('document_type'), '=', 'INVOICE')
    .where(sql.ref('status'), '=', 'FINAL')
    .where(sql.ref('invoice_type'), '=', 'INVOICE')
    .where(sql.ref('cancelled_by_document_id'), 'is', null)
    .where(sql.ref('paid_at'), 'is', null)
    .where(sql.ref('overdue_at'), 'is', null)
    .execute();
}
