import { sql, type Kysely } from 'kysely';

/**
 * What a FINAL final invoice deducts, as rows (docs/invoicing.md, "Down payments and final
 * invoices"): one per deducted down payment with the gross it takes off (`gross_minor`), written
 * by the documents module in the transaction that makes the final invoice FINAL. The JSON
 * `documents.down_payment_deductions` stays the frozen snapshot the PDF and the e-invoice print;
 * this table answers "which final invoice deducts this down payment" (the Storno refusal, by its
 * index on the down payment) and "how much does this final invoice deduct" (open-amount sums).
 * Filled from the JSON of the FINAL final invoices already stored.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('document_deductions')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('final_document_id', 'text', (c) => c.notNull())
    .addColumn('down_payment_document_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('gross_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('document_deductions_pk', [
      'account_id',
      'final_document_id',
      'down_payment_document_id',
    ])
    .execute();
  await db.schema
    .createIndex('document_deductions_down_payment_idx')
    .on('document_deductions')
    .columns(['account_id', 'down_payment_document_id'])
    .execute();
  await backfillDeductions(db);
}

/**
 * The rows of the FINAL final invoices' stored deductions, not of their credit notes (which
 * copy the column). The JSON is parsed here, so both dialects fill alike; rows already there
 * are kept (idempotent).
 */
export async function backfillDeductions(db: Kysely<unknown>): Promise<void> {
  const { rows: finals } = await sql<LegacyFinal>`
    select id, account_id, down_payment_deductions, finalized_at, created_at from documents
    where billing_role = 'FINAL' and invoice_type = 'INVOICE' and status = 'FINAL'
      and down_payment_deductions is not null`.execute(db);
  for (const f of finals) {
    const deductions = JSON.parse(f.down_payment_deductions) as {
      documentId: string;
      grossMinor: number;
    }[];
    for (const [position, d] of deductions.entries())
      await sql`
        insert into document_deductions (account_id, final_document_id, down_payment_document_id,
          position, gross_minor, created_at)
        values (${f.account_id}, ${f.id}, ${d.documentId}, ${position}, ${d.grossMinor},
          ${f.finalized_at ?? f.created_at})
        on conflict do nothing`.execute(db);
  }
}

/** A FINAL final invoice as the backfill reads it. */
interface LegacyFinal {
  id: string;
  account_id: string;
  down_payment_deductions: string;
  finalized_at: string | null;
  created_at: string;
}
