import { sql, type ExpressionBuilder, type QueryCreator, type Selectable } from 'kysely';
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
 * down payments it deducts (a final invoice, `document_deductions`), less its settled (MARKED)
 * payments in its currency — counted like its `paymentStatus`, whichever way they went — and
 * less its FINAL credit notes; only invoices with something left count. One aggregate over
 * correlated sums, indexed by account and document on both tables. The payments' status and
 * currency are judged inside the sum, not in its WHERE: there SQLite's planner would prefer
 * the covering (account, status, currency, …) index of the balances and read every settled
 * payment of the account once per invoice (34 s instead of milliseconds for 10 000 invoices).
 */
export async function openInvoiceTotals(
  db: Executor,
  accountId: string,
  currency: string,
  today: string,
): Promise<OpenInvoiceTotals> {
  const open = (qb: QueryCreator<DB>) =>
    qb
      .selectFrom('documents as d')
      .select([
        'd.source',
        sql<number>`case when d.due_date is not null and d.due_date < ${today} then 1 else 0 end`.as(
          'overdue',
        ),
        sql<number | string>`d.gross_total
        - (select coalesce(sum(dd.gross_minor), 0) from document_deductions dd
             where dd.account_id = d.account_id and dd.final_document_id = d.id)
        - (select coalesce(sum(c.gross_total), 0) from documents c
             where c.account_id = d.account_id and c.preceding_document_id = d.id
               and c.invoice_type = 'CREDIT_NOTE' and c.status = 'FINAL')
        - abs((select coalesce(sum(case
               when p.status <> 'MARKED' or p.currency <> d.currency then 0
               when p.direction = 'INCOMING' then p.amount else -p.amount end), 0)
             from payments p
             where p.account_id = d.account_id and p.document_id = d.id))`.as('open'),
      ])
      .where('d.account_id', '=', accountId)
      .where('d.document_type', '=', 'INVOICE')
      .where('d.invoice_type', '=', 'INVOICE')
      .where('d.status', '=', 'FINAL')
      .where('d.cancelled_by_document_id', 'is', null)
      .where('d.paid_at', 'is', null)
      .where('d.currency', '=', currency);
  // Materialized: each open amount is summed once. Inlined, its three correlated sums were
  // evaluated once per use in the outer sums (three times per invoice on SQLite).
  const rows = await db
    .with((cte) => cte('o').materialized(), open)
    .selectFrom('o')
    .select((eb) => [
      'o.source',
      'o.overdue',
      eb.fn
        .sum<number | string | null>(sql`case when o.open > 0 then o.open else 0 end`)
        .as('amount'),
      eb.fn.sum<number | string | null>(sql`case when o.open > 0 then 1 else 0 end`).as('n'),
    ])
    .groupBy(['o.source', 'o.overdue'])
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
