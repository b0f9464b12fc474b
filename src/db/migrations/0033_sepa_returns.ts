import type { Kysely } from 'kysely';

/**
 * The SEPA round trip (docs/sepa-domain.md, "Round trip"): a run item remembers when a bank
 * statement returned it and why; a statement line keeps the return reason its file names.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sepa_run_items').addColumn('returned_on', 'text').execute();
  await db.schema.alterTable('sepa_run_items').addColumn('return_reason', 'text').execute();
  await db.schema
    .alterTable('bank_import_transactions')
    .addColumn('return_reason', 'text')
    .execute();
}
