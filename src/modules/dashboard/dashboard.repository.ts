import { sql, type Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { CashAnchorsTable } from '../../db/schema.js';

export type CashAnchorRow = Selectable<CashAnchorsTable>;

/**
 * The cash anchor and the payment aggregates behind every balance; every query is scoped by
 * account (STYLE rule 3). Settled money is read from the days the database keeps
 * (`payment_day_flows`); pending payments through the index on (account_id, status, currency,
 * payment_date) that covers direction and amount too.
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

/**
 * Settled (MARKED) payments in `currency` dated `from..to`, both inclusive: the sum of the days'
 * rows the database keeps (`payment_day_flows`, migration 0040), at most one per day.
 */
export async function settledFlows(
  db: Executor,
  accountId: string,
  currency: string,
  from: string,
  to: string,
): Promise<Flows> {
  const row = await db
    .selectFrom('payment_day_flows')
    .select((eb) => [
      eb.fn.sum<number | string | null>('income').as('income'),
      eb.fn.sum<number | string | null>('expense').as('expense'),
    ])
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .executeTakeFirst();
  return { income: num(row?.income), expense: num(row?.expense) };
}

export interface DayFlows extends Flows {
  day: string;
}

/**
 * Settled payments in `currency` per day of `from..to` (the days that ever had some), in date
 * order: the rows the database keeps per day (`payment_day_flows`; on PostgreSQL a day may be
 * several rows, added up here).
 */
export async function dailyFlows(
  db: Executor,
  accountId: string,
  currency: string,
  from: string,
  to: string,
): Promise<DayFlows[]> {
  const rows = await db
    .selectFrom('payment_day_flows')
    .select((eb) => [
      'day',
      eb.fn.sum<number | string>('income').as('income'),
      eb.fn.sum<number | string>('expense').as('expense'),
    ])
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('day')
    .orderBy('day')
    .execute();
  return rows.map((r) => ({ day: r.day, income: num(r.income), expense: num(r.expense) }));
}

/** A sum of minor units and how many records it covers. */
export interface Tally {
  amount: number;
  count: number;
}

export interface PendingTotals {
  incoming: Tally;
  outgoing: Tally;
}

/** PENDING payments in `currency`, summed and counted per direction. */
export async function pendingTotals(
  db: Executor,
  accountId: string,
  currency: string,
): Promise<PendingTotals> {
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
  return { incoming: of('INCOMING'), outgoing: of('OUTGOING') };
}

export interface OpenInvoiceTotals {
  /** Invoices this account issued (GENERATED): what customers still owe. */
  receivables: Tally;
  overdueReceivables: Tally;
  /** Invoices it received (UPLOADED, a supplier's bill): what it still owes. */
  payables: Tally;
  overduePayables: Tally;
}

/**
 * The open amounts of the FINAL invoices in `currency` that are neither paid nor cancelled
 * (the open items of `GET /v1/documents?open=true`), per kind and whether they are past their
 * due date on `today`. An invoice's open amount is its `openAmount`: its gross total less the
 * down payments it deducts (a final invoice), less its settled (MARKED) payments in its
 * currency — counted like its `paymentStatus`, whichever way they went — and less its FINAL
 * credit notes; only invoices with something left count. The database keeps those sums per
 * source and due date (`open_invoice_totals`, migration 0041): one row per due date is read.
 */
export async function openInvoiceTotals(
  db: Executor,
  accountId: string,
  currency: string,
  today: string,
): Promise<OpenInvoiceTotals> {
  const rows = await db
    .selectFrom('open_invoice_totals')
    .select((eb) => [
      'source',
      // No due date is kept as '9999-12-31': never past.
      sql<number>`case when due_date < ${today} then 1 else 0 end`.as('overdue'),
      eb.fn.sum<number | string | null>('amount').as('amount'),
      eb.fn.sum<number | string | null>('count').as('n'),
    ])
    .where('account_id', '=', accountId)
    .where('currency', '=', currency)
    .groupBy(['source', 'overdue'])
    .execute();
  const tally = (source: string, overdueOnly: boolean): Tally => {
    const mine = rows.filter(
      (r) => r.source === source && (!overdueOnly || Number(r.overdue) === 1),
    );
    return {
      amount: mine.reduce((n, r) => n + num(r.amount), 0),
      count: mine.reduce((n, r) => n + num(r.n), 0),
    };
  };
  return {
    receivables: tally('GENERATED', false),
    overdueReceivables: tally('GENERATED', true),
    payables: tally('UPLOADED', false),
    overduePayables: tally('UPLOADED', true),
  };
}
