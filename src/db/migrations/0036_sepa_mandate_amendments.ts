import type { Kysely } from 'kysely';

/**
 * SEPA mandate amendments, B2B and automatic collections (docs/sepa-domain.md).
 *
 * `sepa_mandates.scheme`: CORE or B2B (the mandates stored before are CORE).
 *
 * `sepa_mandate_amendments`: one row per change of a mandate's reference, debtor IBAN or
 * debtor name, holding the values before and after (the IBANs sealed and masked like the
 * mandate's). `pending` = 1 marks a change the debtor's bank has to learn of: the next
 * collection on the mandate carries it (`AmdmntInd`) and sets `carried_end_to_end_id` to its run
 * item; a return of that item puts it back.
 *
 * `sepa_runs.scheme`: the local instrument of a collection run's file (one per file).
 *
 * `sepa_settings.auto_collect`: 1 lets the daily schedule collect the due invoices of
 * direct-debit contracts; `auto_collected_on` is the day it last ran for the account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('sepa_mandates')
    .addColumn('scheme', 'text', (c) => c.notNull().defaultTo('CORE'))
    .execute();
  await db.schema
    .alterTable('sepa_runs')
    .addColumn('scheme', 'text', (c) => c.notNull().defaultTo('CORE'))
    .execute();
  await db.schema
    .alterTable('sepa_settings')
    .addColumn('auto_collect', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('sepa_settings').addColumn('auto_collected_on', 'text').execute();

  await db.schema
    .createTable('sepa_mandate_amendments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('mandate_id', 'text', (c) => c.notNull().references('sepa_mandates.id'))
    .addColumn('original_reference', 'text', (c) => c.notNull())
    .addColumn('original_iban_sealed', 'text', (c) => c.notNull())
    .addColumn('original_iban_masked', 'text', (c) => c.notNull())
    .addColumn('original_bic', 'text')
    .addColumn('original_debtor_name', 'text', (c) => c.notNull())
    .addColumn('reference', 'text', (c) => c.notNull())
    .addColumn('iban_masked', 'text', (c) => c.notNull())
    .addColumn('bic', 'text')
    .addColumn('debtor_name', 'text', (c) => c.notNull())
    .addColumn('pending', 'integer', (c) => c.notNull())
    .addColumn('carried_end_to_end_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sepa_mandate_amendments_mandate_idx')
    .on('sepa_mandate_amendments')
    .columns(['account_id', 'mandate_id', 'id'])
    .execute();
}
