import type { Kysely } from 'kysely';

/**
 * Down payments and final invoices (docs/invoicing.md, "Down payments and final invoices"):
 * an invoice's `billing_role` (`DOWN_PAYMENT` for an Abschlagsrechnung, `FINAL` for the
 * Schlussrechnung, null for every other document) and, on a final invoice, the down payments it
 * deducts (`down_payment_deductions`, JSON: number, date, net, VAT per rate and gross of each).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of ['billing_role', 'down_payment_deductions'])
    await db.schema.alterTable('documents').addColumn(column, 'text').execute();
}
