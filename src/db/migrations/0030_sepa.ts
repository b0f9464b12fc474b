import type { Kysely } from 'kysely';

/**
 * SEPA (docs/sepa.md), written only by the sepa module.
 *
 * `sepa_mandates`: SEPA Core direct-debit mandates of partners. The debtor's IBAN is sealed
 * (AES-256-GCM under a key derived from the app secret) and kept masked beside it for answers.
 * The mandate reference is unique per account. `sequence_state` says which sequence type the
 * next collection uses (FIRST, RECURRING, FINAL, ONE_OFF; COMPLETED after a final or one-off
 * collection).
 *
 * `sepa_bank_accounts`: a partner's (supplier's) bank account for transfers, sealed and masked
 * the same way; one per partner.
 *
 * `sepa_settings`: the account's pre-notification period; no row means the default.
 *
 * `sepa_runs` and `sepa_run_items`: a collection (pain.008) or transfer (pain.001) run with the
 * file it produced, and one item per invoice with its end-to-end id (unique per account, so a
 * bank statement line can be matched by it).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('sepa_mandates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('signed_on', 'text', (c) => c.notNull())
    .addColumn('iban_sealed', 'text', (c) => c.notNull())
    .addColumn('iban_masked', 'text', (c) => c.notNull())
    .addColumn('bic', 'text')
    .addColumn('debtor_name', 'text', (c) => c.notNull())
    .addColumn('sequence_state', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_collection_date', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sepa_mandates_reference_uq')
    .on('sepa_mandates')
    .columns(['account_id', 'reference'])
    .unique()
    .execute();
  await db.schema
    .createIndex('sepa_mandates_partner_idx')
    .on('sepa_mandates')
    .columns(['account_id', 'partner_id', 'id'])
    .execute();

  await db.schema
    .createTable('sepa_bank_accounts')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('partner_id', 'text', (c) => c.notNull())
    .addColumn('holder_name', 'text', (c) => c.notNull())
    .addColumn('iban_sealed', 'text', (c) => c.notNull())
    .addColumn('iban_masked', 'text', (c) => c.notNull())
    .addColumn('bic', 'text')
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sepa_bank_accounts_pk', ['account_id', 'partner_id'])
    .execute();

  await db.schema
    .createTable('sepa_settings')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('pre_notification_days', 'integer', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('sepa_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('execution_date', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('total_minor', 'bigint', (c) => c.notNull())
    .addColumn('item_count', 'integer', (c) => c.notNull())
    .addColumn('file_xml', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sepa_runs_account_idx')
    .on('sepa_runs')
    .columns(['account_id', 'kind', 'id'])
    .execute();

  await db.schema
    .createTable('sepa_run_items')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('run_id', 'text', (c) => c.notNull().references('sepa_runs.id'))
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('document_number', 'text')
    .addColumn('partner_id', 'text')
    .addColumn('mandate_id', 'text')
    .addColumn('mandate_reference', 'text')
    .addColumn('end_to_end_id', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('sequence_type', 'text')
    .addColumn('execution_date', 'text', (c) => c.notNull())
    .addColumn('iban_masked', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text')
    .addColumn('skonto', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sepa_run_items_e2e_uq')
    .on('sepa_run_items')
    .columns(['account_id', 'end_to_end_id'])
    .unique()
    .execute();
  await db.schema
    .createIndex('sepa_run_items_run_idx')
    .on('sepa_run_items')
    .columns(['account_id', 'run_id'])
    .execute();
  await db.schema
    .createIndex('sepa_run_items_document_idx')
    .on('sepa_run_items')
    .columns(['account_id', 'document_id'])
    .execute();
}
