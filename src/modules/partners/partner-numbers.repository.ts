import { sql } from 'kysely';
import { isPostgres } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { NUMBER_BASE } from '../../db/migrations/0024_partner_numbers.js';

/** A partner type's sequence as stored (`partner_number_sequences`). */
export interface NumberSequence {
  prefix: string;
  nextValue: number;
}

export type NumberedType = keyof typeof NUMBER_BASE;

/** The sequence a type starts with before anything is configured: 10001 / 70001, no prefix. */
export const defaultSequence = (type: NumberedType): NumberSequence => ({
  prefix: '',
  nextValue: NUMBER_BASE[type] + 1,
});

/** The number a sequence gives for a value. */
export const formatNumber = (prefix: string, value: number) => `${prefix}${value}`;

/** The account's stored sequences by type (a type without a row has the default). */
export async function findSequences(
  db: Executor,
  accountId: string,
): Promise<Partial<Record<NumberedType, NumberSequence>>> {
  const rows = await db
    .selectFrom('partner_number_sequences')
    .select(['partner_type', 'prefix', 'next_value'])
    .where('account_id', '=', accountId)
    .execute();
  return Object.fromEntries(
    rows.map((r) => [r.partner_type, { prefix: r.prefix, nextValue: Number(r.next_value) }]),
  );
}

/** Creates or replaces a type's sequence. */
export async function putSequence(
  db: Executor,
  accountId: string,
  type: NumberedType,
  sequence: NumberSequence,
): Promise<void> {
  await db
    .insertInto('partner_number_sequences')
    .values({
      account_id: accountId,
      partner_type: type,
      prefix: sequence.prefix,
      next_value: sequence.nextValue,
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'partner_type'])
        .doUpdateSet({ prefix: sequence.prefix, next_value: sequence.nextValue }),
    )
    .execute();
}

/**
 * Takes the next value of a type's sequence (creating it with the default on first use) in
 * one statement, which also tells whether another partner of the account already has the
 * number it makes: the caller then takes the next one. Concurrent takers serialise on the row.
 *
 * On PostgreSQL, called outside a transaction, the statement commits without waiting for its
 * WAL flush (`synchronous_commit` off for its own transaction only): the row lock is then held
 * for the statement, not for a disk flush as well, which had made every create of an account
 * wait in line for the one before it (one flush each, no group commit: ~500 creates/s at most
 * with a 2 ms flush). Safe: the create that uses the number commits synchronously later, which
 * flushes the WAL up to and past this increment; after a crash before that, the number was
 * never used, and the unique index on partners' numbers guards any number given twice.
 */
export async function takeNumber(
  db: Executor,
  accountId: string,
  type: NumberedType,
): Promise<{ number: string; taken: boolean }> {
  const start = defaultSequence(type);
  const values = {
    account_id: accountId,
    partner_type: type,
    prefix: start.prefix,
    next_value: start.nextValue + 1,
  };
  const insert = db.insertInto('partner_number_sequences');
  const upsert =
    isPostgres(db) && !db.isTransaction
      ? insert.columns(['account_id', 'partner_type', 'prefix', 'next_value']).expression(
          sql`select ${values.account_id}, ${values.partner_type}, ${values.prefix}, ${values.next_value}
              from (select set_config('synchronous_commit', 'off', true)) as async_commit`,
        )
      : insert.values(values);
  const row = await upsert
    .onConflict((oc) =>
      oc.columns(['account_id', 'partner_type']).doUpdateSet((eb) => ({
        next_value: eb('partner_number_sequences.next_value', '+', 1),
      })),
    )
    .returning([
      'prefix',
      'next_value',
      sql<number | boolean>`exists (select 1 from partners p
        where p.account_id = ${accountId}
          and p.partner_number = partner_number_sequences.prefix
            || cast(partner_number_sequences.next_value - 1 as text))`.as('taken'),
    ])
    .executeTakeFirstOrThrow();
  return {
    number: formatNumber(row.prefix, Number(row.next_value) - 1),
    taken: Boolean(Number(row.taken)),
  };
}
