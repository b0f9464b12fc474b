import { sql, type Kysely } from 'kysely';

/**
 * Lawful invoices and e-invoices (issue 10): the seller's master data on the account, the
 * buyer's e-invoicing data on partners, VAT categories on tax rates, the §14 UStG fields of
 * invoices, credit notes (Storno) and the frozen party data a FINAL invoice's e-invoice is
 * built from.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // The company (seller) master data as one JSON object; it shares the account's version.
  await db.schema.alterTable('accounts').addColumn('company', 'text').execute();

  for (const [name, type] of [
    ['vat_id', 'text'],
    ['buyer_reference', 'text'],
    // JSON {scheme, value}: the buyer's electronic address (BT-49).
    ['electronic_address', 'text'],
    ['einvoice_format', 'text'],
    ['language', 'text'],
  ] as const)
    await db.schema.alterTable('partners').addColumn(name, type).execute();

  await db.schema
    .alterTable('tax_rates')
    .addColumn('category', 'text', (c) => c.notNull().defaultTo('S'))
    .execute();
  await db.schema.alterTable('tax_rates').addColumn('exemption_reason', 'text').execute();
  await db.schema.alterTable('tax_rates').addColumn('exemption_code', 'text').execute();

  for (const [name, type] of [
    ['delivery_date', 'text'],
    ['service_period_from', 'text'],
    ['service_period_to', 'text'],
    ['buyer_reference', 'text'],
    ['order_reference', 'text'],
    ['payment_terms', 'text'],
    // Cash discount: percent in basis points (2 % = 200) and days.
    ['skonto_bp', 'integer'],
    ['skonto_days', 'integer'],
    ['note', 'text'],
    ['preceding_document_id', 'text'],
    ['cancelled_by_document_id', 'text'],
    // JSON: seller and buyer as they were when the invoice became FINAL (GoBD: the e-invoice
    // of a FINAL invoice never changes when master data changes later).
    ['einvoice_parties', 'text'],
  ] as const)
    await db.schema.alterTable('documents').addColumn(name, type).execute();
  await db.schema
    .alterTable('documents')
    .addColumn('invoice_type', 'text', (c) => c.notNull().defaultTo('INVOICE'))
    .execute();
  // A FINAL invoice is cancelled at most once: the second Storno loses on this index.
  await db.schema
    .createIndex('documents_preceding_idx')
    .on('documents')
    .columns(['account_id', 'preceding_document_id'])
    .execute();
  // Existing 0 % rates are valid zero rates (Z): category S needs a rate above 0 (BR-S-5).
  await sql`update tax_rates set category = 'Z' where rate_bp = 0`.execute(db);
}
