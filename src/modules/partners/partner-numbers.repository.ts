import { CompiledQuery, sql, type RawBuilder } from 'kysely';
import { isPostgres } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { plannedEachRun } from '../../db/transactions.js';
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
 * Whether another partner of the account has the number `prefix` + `value`. A scalar subquery,
 * not `exists`: PostgreSQL turns an `exists` over many values into a hash join reading every
 * partner of the account (29 ms at 43,000 partners, against 0.3 ms). The statements holding it
 * are planned on every run (`plannedEachRun`): a plan kept from while the account had fewer
 * than a few hundred partners and no statistics read every partner of the account for each
 * value (an account index with the number as a filter, the same cost as the unique index
 * then), and kept that plan as the partners grew.
 */
const othersHave = (accountId: string, prefix: RawBuilder<unknown>, value: RawBuilder<unknown>) =>
  sql<boolean>`(select 1 from partners p where p.account_id = ${accountId}
    and p.partner_number = ${prefix} || cast(${value} as text) limit 1) is not null`;

/** Values taken from a sequence at once: `first` … `first + count - 1`, with its prefix. */
export interface TakenValues {
  prefix: string;
  first: number;
  /** Those of the values whose numbers other partners of the account have already. */
  taken: number[];
}

/**
 * Takes the next `count` values of a type's sequence (creating it with the default on first
 * use) in one statement, which also tells which of their numbers other partners of the account
 * already have: the caller skips those. Concurrent takers serialise on the row. More than one
 * value at once only on PostgreSQL (SQLite runs one statement at a time: nothing queues there).
 *
 * On PostgreSQL, called outside a transaction, the statement commits without waiting for its
 * WAL flush (`synchronous_commit` off for its own transaction only): the row lock is then held
 * for the statement, not for a disk flush as well, which had made every create of an account
 * wait in line for the one before it (one flush each, no group commit: ~500 creates/s at most
 * with a 2 ms flush). Safe: the create that uses the number commits synchronously later, which
 * flushes the WAL up to and past this increment; after a crash before that, the number was
 * never used, and the unique index on partners' numbers guards any number given twice.
 */
export async function takeNumbers(
  db: Executor,
  accountId: string,
  type: NumberedType,
  count = 1,
): Promise<TakenValues> {
  const postgres = isPostgres(db);
  if (count !== 1 && !postgres) throw new Error('takeNumbers: one value at a time on SQLite');
  const start = defaultSequence(type);
  // The sequence as created by the first take, then what each form asks for last.
  const created = [accountId, type, start.prefix, start.nextValue + count];
  const statement = postgres
    ? CompiledQuery.raw(db.isTransaction ? TAKE_PG_IN_TRANSACTION : TAKE_PG, [...created, count])
    : CompiledQuery.raw(TAKE_SQLITE, [...created, accountId]);
  const [row] = await plannedEachRun<{
    prefix: string;
    next_value: number | string;
    taken: number[] | string;
  }>(db, statement);
  if (!row) throw new Error('takeNumbers: the upsert answered no row');
  const taken = typeof row.taken === 'string' ? (JSON.parse(row.taken) as number[]) : row.taken;
  return {
    prefix: row.prefix,
    first: Number(row.next_value) - count,
    taken: taken.map(Number),
  };
}

// `takeNumbers`' statement written out once per form: built through the query builder on every
// call, it cost a tenth of a SQLite create's CPU (docs/benchmarks.md).
const TAKE_INSERT =
  'insert into partner_number_sequences (account_id, partner_type, prefix, next_value)';
const TAKE_CONFLICT =
  'on conflict (account_id, partner_type) do update set next_value = partner_number_sequences.next_value +';
/** `othersHave` as text, for the sequence's own prefix. */
const othersHaveText = (account: string, value: string) =>
  `(select 1 from partners p where p.account_id = ${account}
    and p.partner_number = partner_number_sequences.prefix || cast(${value} as text) limit 1) is not null`;
/** PostgreSQL: $1 account, $2 type, $3 prefix, $4 the value after the first take, $5 count. */
const takePg = (values: string) => `${TAKE_INSERT} ${values} ${TAKE_CONFLICT} $5
  returning prefix, next_value, array(select g from generate_series(
      partner_number_sequences.next_value - $5, partner_number_sequences.next_value - 1) as g
    where ${othersHaveText('$1', 'g')}) as taken`;
const TAKE_PG = takePg(
  "select $1, $2, $3, $4 from (select set_config('synchronous_commit', 'off', true)) as async_commit",
);
const TAKE_PG_IN_TRANSACTION = takePg('values ($1, $2, $3, $4)');
/** SQLite, one value: account, type, prefix, the value after the first take, account. */
const TAKE_SQLITE = `${TAKE_INSERT} values (?, ?, ?, ?) ${TAKE_CONFLICT} 1
  returning prefix, next_value, case when ${othersHaveText('?', 'partner_number_sequences.next_value - 1')}
    then json_array(partner_number_sequences.next_value - 1) else '[]' end as taken`;

/**
 * Moves a type's sequence past the run of numbers other partners have from its next value on,
 * in one statement that walks the run number by number on the unique index of partners'
 * numbers: a customer sequence that reaches the vendors' numbers (10001… meets 70001… after
 * 60,000 customers) or a block typed in by hand continues after it at once, instead of every
 * create trying the run's numbers one by one. Leaves the sequence as it is when its next number
 * is free, never moves it back (a concurrent take may have moved it further meanwhile), and
 * leaves a sequence that a PUT changed since the walk read it (another prefix, a lower value).
 */
export async function skipTakenRun(
  db: Executor,
  accountId: string,
  type: NumberedType,
): Promise<void> {
  const greatest = isPostgres(db) ? sql.raw('greatest') : sql.raw('max');
  const walk = sql`with recursive run(v, prefix) as (
      select s.next_value, s.prefix from partner_number_sequences s
        where s.account_id = ${accountId} and s.partner_type = ${type}
          and ${othersHave(accountId, sql`s.prefix`, sql`s.next_value`)}
      union all
      select r.v + 1, r.prefix from run r
        where ${othersHave(accountId, sql`r.prefix`, sql`r.v + 1`)}
    )
    update partner_number_sequences
      set next_value = ${greatest}(next_value, (select max(v) + 1 from run))
      where account_id = ${accountId} and partner_type = ${type}
        and exists (select 1 from run)
        -- Still the sequence walked: a PUT that changed it meanwhile is kept as it is.
        and prefix = (select prefix from run limit 1)
        and next_value >= (select min(v) from run)`;
  await plannedEachRun(db, walk.compile(db));
}
