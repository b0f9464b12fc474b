import type { Kysely } from 'kysely';

/**
 * Quotes and order confirmations (docs/invoicing.md, "Quotes and order confirmations"):
 * a quote's validity date and outcome on `documents` (`quote_status` OPEN, ACCEPTED, DECLINED
 * or EXPIRED, null on other documents; who decided and when), the document a quote or order
 * confirmation was converted from (`origin_document_id`), the contract reference (BT-12) an
 * invoice converted from a quote cites (`contract_reference`), and the number formats of both types
 * on `invoice_numbering` (null: the defaults `AN-{YYYY}-{0000}` and `AB-{YYYY}-{0000}`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of [
    'valid_until',
    'quote_status',
    'quote_decided_at',
    'quote_decided_by',
    'origin_document_id',
    'contract_reference',
  ])
    await db.schema.alterTable('documents').addColumn(column, 'text').execute();
  await db.schema
    .createIndex('documents_origin')
    .on('documents')
    .columns(['account_id', 'origin_document_id'])
    .execute();
  for (const column of ['quote_format', 'order_confirmation_format'])
    await db.schema.alterTable('invoice_numbering').addColumn(column, 'text').execute();
}
