import { sql, type Kysely } from 'kysely';
import { storeJsonAnswer, text, type JsonShape } from '../json-object.js';
import { PARTNER_ANSWER as BEFORE } from './0021_partner_answers.js';

/**
 * Partner numbers (docs/partners.md): `partners.partner_number`, the human customer number
 * (Kundennummer) or vendor number (Lieferantennummer), unique per account; the per-account
 * sequences new partners take them from (`partner_number_sequences`, one row per partner type:
 * prefix and next value); and the DATEV option to book each customer on its own debtor
 * account (`datev_settings.partner_accounts`).
 *
 * Existing partners are numbered in creation order per account and type, customers from
 * 10001, vendors from 70001 (the ranges of DATEV's debtor and creditor accounts at account
 * length 4); each account's sequences continue after them. Versions stay: the records gain a
 * field, nobody changed them.
 */
export const PARTNER_ANSWER: JsonShape = {
  ...Object.fromEntries(
    Object.entries(BEFORE).filter(([key]) => key !== 'createdAt' && key !== 'updatedAt'),
  ),
  partnerNumber: text('partner_number'),
  createdAt: text('created_at'),
  updatedAt: text('updated_at'),
};

/** The first number of each partner type minus one: customers 10001…, vendors 70001…. */
export const NUMBER_BASE = { CUSTOMER: 10_000, VENDOR: 70_000 } as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('partners').addColumn('partner_number', 'text').execute();
  await sql`
    update partners set partner_number = numbered.partner_number
    from (
      select id, cast(
        (case type when 'VENDOR' then ${sql.lit(NUMBER_BASE.VENDOR)} else ${sql.lit(NUMBER_BASE.CUSTOMER)} end)
        + row_number() over (partition by account_id, type order by created_at, id)
        as text) as partner_number
      from partners
    ) as numbered
    where partners.id = numbered.id`.execute(db);
  await db.schema
    .createIndex('partners_number_uq')
    .on('partners')
    .columns(['account_id', 'partner_number'])
    .unique()
    .execute();

  // The next number per account and partner type; a row is created by the first partner of
  // the type (or by a PUT of the numbering), with the defaults above.
  await db.schema
    .createTable('partner_number_sequences')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('partner_type', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('next_value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('partner_number_sequences_pk', ['account_id', 'partner_type'])
    .execute();
  await sql`
    insert into partner_number_sequences (account_id, partner_type, prefix, next_value)
    select account_id, type, '',
      (case type when 'VENDOR' then ${sql.lit(NUMBER_BASE.VENDOR)} else ${sql.lit(NUMBER_BASE.CUSTOMER)} end)
      + count(*) + 1
    from partners group by account_id, type`.execute(db);

  await storeJsonAnswer(db, 'partners', 'answer_json', PARTNER_ANSWER, { columnExists: true });

  // 1: each customer's bookings go to its own debtor account (its number) where it fits.
  await db.schema
    .alterTable('datev_settings')
    .addColumn('partner_accounts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
