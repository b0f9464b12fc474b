import { sql, type ExpressionBuilder, type Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { CashAnchorsTable, DB } from '../../db/schema.js';

export type CashAnchorRow = Selectable<CashAnchorsTable>;

/**
 * The cash anchor and the payment aggregates behind every balance; every query is scoped by
 * account (STYLE rule 3) and reads settled payments through the index on
 * (account_id, status, currency, payment_date) that covers direction and amount too.
 */

export function findAnchor(db: Executor, accountId: string): Promise<CashAnchorRow | undefined> {
  return db
    .selectFrom('cash_anchors')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function insertAnchor(trx: Executor, row: CashAnchorRow): Promise<void> {
  await trx.insertInto('cash_anchors').values(row).execute();
}

/** The compare-and-set replacement: applied only where the stored version is `version`. */
export function updateAnchor(
  trx: Executor,
  accountId: string,
  version: number,
  values: Pick<CashAnchorRow, 'opening_balance' | 'currency' | 'effective_date' | 'updated_at'>,
): Promise<CashAnchorRow | undefined> {
  return trx
    .updateTable('cash_anchors')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** Minor-unit sums of one direction: `sum(amount)` over the rows of `direction`, else 0. */
function sumOf(eb: ExpressionBuilder<DB, 'payments'>, direction: 'INCOMING' | 'OUTGOING') {
  return eb.fn.sum<number | string | null>(
    eb.case().when('direction', '=', direction).then(eb.ref('amount')).else(sql.lit(0)).end(),
  );
}

/** PostgreSQL answers sum(bigint) as numeric, which arrives as a string; no rows: null. */
function num(value: number | string | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

export interface Flows {
  /** Minor units of settled INCOMING payments. */
  income: number;
  /** Minor units of settled OUTGOING payments. */
  expense: number;
}

/** Settled (MARKED) payments in `currency` dated `from..to`, both inclusive. */
export async function settledFlows(
  db: Executor,
  accountId: string,
  currency: string,
  from: string,
  to: string,
): Promise<Flows> {
  const row = await db
    .selectFrom('payments')
    .select((eb) => [sumOf(eb, 'INCOMING').as('income'), sumOf(eb, 'OUTGOING').as('expense')])
    .where('account_id', '=', accountId)
    .where('status', '=', 'MARKED')
    .where('currency', '=', currency)
    .where('payment_date', '>=', from)
    .where('payment_date', '<=', to)
    .executeTakeFirst();
  return { income: num(row?.income), expense: num(row?.expense) };
}

export interface DayFlows extends Flows {
  day: string;
}

/**
 * Settled payments in `currency` per day of `from..to` (only days that have some), in date
 * order: one grouped aggregate over the index, at most one row per day.
 */
export async function dailyFlows(
  db: Executor,
  accountId: string,
  currency: string,
  from: string,
  to: string,
): Promise<DayFlows[]> {
  const rows = await db
    .selectFrom('payments')
    .select((eb) => [
      'payment_date',
      sumOf(eb, 'INCOMING').as('income'),
      sumOf(eb, 'OUTGOING').as('expense'),
    ])
    .where('account_id', '=', accountId)
    .where('status', '=', 'MARKED')
    .where('currency', '=', currency)
    .where('payment_date', '>=', from)
    .where('payment_date', '<=', to)
    .groupBy('payment_date')
    .orderBy('payment_date')
    .execute();
  return rows.map((r) => ({
    day: r.payment_date,
    income: num(r.income),
    expense: num(r.expense),
  }));
}

export interface OpenTotals {
  receivables: { amount: number; count: number };
  payables: { amount: number; count: number };
}

/** PENDING payments in `currency`, summed and counted per direction. */
export async function openTotals(
  db: Executor,
  accountId: string,
  currency: string,
): Promise<OpenTotals> {
  const rows = await db
    .selectFrom('payments')
    .select((eb) => [
      'direction',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>('amount').as('total'),
    ])
    .where('account_id', '=', accountId)
    .where('status', '=', 'PENDING')
    .where('currency', '=', currency)
    .groupBy('direction')
    .execute();
  const of = (direction: string) => {
    const row = rows.find((r) => r.direction === direction);
    return { amount: num(row?.total), count: num(row?.n) };
  };
  return { receivables: of('INCOMING'), payables: of('OUTGOING') };
}
