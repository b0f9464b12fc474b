import { sql } from 'kysely';
import { containsText } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { BILLING_CYCLES } from '../contracts/index.js';

/**
 * The stats' queries over budgets, contracts and notes: aggregates computed by the database,
 * scoped by account (STYLE rule 3). Only short, bounded lists (the next few items) are read
 * as rows.
 */

/** PostgreSQL answers sum(bigint) and count as numeric/int8 strings; no rows: null. */
function num(value: number | string | null | undefined): number {
  return value === null || value === undefined ? 0 : Number(value);
}

export interface BudgetUseRow {
  id: string;
  name: string;
  currency: string;
  monthlyLimit: number;
  spent: number;
}

/**
 * ACTIVE budget categories by name (at most `limit`), each with the sum of its entries dated
 * `from..to`: one grouped LEFT JOIN over the (account, category, date) index of the entries.
 */
export async function budgetUse(
  db: Executor,
  accountId: string,
  range: { from: string; to: string },
  limit: number,
): Promise<BudgetUseRow[]> {
  const rows = await db
    .selectFrom('budget_categories as c')
    .leftJoin('budget_entries as e', (join) =>
      join
        .onRef('e.account_id', '=', 'c.account_id')
        .onRef('e.category_id', '=', 'c.id')
        .on('e.entry_date', '>=', range.from)
        .on('e.entry_date', '<=', range.to),
    )
    .select((eb) => [
      'c.id',
      'c.name',
      'c.currency',
      'c.monthly_limit',
      eb.fn.sum<number | string | null>('e.amount').as('spent'),
    ])
    .where('c.account_id', '=', accountId)
    .where('c.active', '=', 1)
    .groupBy(['c.id', 'c.name', 'c.currency', 'c.monthly_limit'])
    .orderBy('c.name')
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    currency: r.currency,
    monthlyLimit: Number(r.monthly_limit),
    spent: num(r.spent),
  }));
}

export async function activeCategoryCount(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('budget_categories')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('active', '=', 1)
    .executeTakeFirst();
  return num(row?.n);
}

export type CycleKey = (typeof BILLING_CYCLES)[number] | 'NONE';

export interface ContractValueRow {
  cycle: CycleKey;
  currency: string;
  count: number;
  /** Sum of totalValue, minor units of `currency`. */
  total: number;
}

/**
 * ACTIVE contracts grouped by billing cycle and currency, with count and summed totalValue.
 * The cycle is read from the stored ContractAdvanced JSON, which the contracts module always
 * writes with `JSON.stringify` (no whitespace), so `"billingCycle":"YEARLY"` is an exact,
 * portable LIKE test on both databases; a contract without one is NONE.
 */
export async function contractValues(db: Executor, accountId: string): Promise<ContractValueRow[]> {
  const cycle = sql<string>`case ${sql.join(
    BILLING_CYCLES.map(
      (c) => sql`when ${containsText('advanced', `"billingCycle":"${c}"`)} then ${sql.lit(c)}`,
    ),
    sql` `,
  )} else 'NONE' end`;
  const classified = db
    .selectFrom('contracts')
    .select(['currency', 'total_value', cycle.as('cycle')])
    .where('account_id', '=', accountId)
    .where('status', '=', 'ACTIVE')
    .as('c');
  const rows = await db
    .selectFrom(classified)
    .select((eb) => [
      'c.cycle',
      'c.currency',
      eb.fn.countAll<number | string>().as('n'),
      eb.fn.sum<number | string | null>('c.total_value').as('total'),
    ])
    .groupBy(['c.cycle', 'c.currency'])
    .execute();
  return rows.map((r) => ({
    cycle: r.cycle as CycleKey,
    currency: r.currency,
    count: num(r.n),
    total: num(r.total),
  }));
}

/** Open REMINDER notes due `today..horizon` and before `today`, counted in one pass. */
export async function reminderCounts(
  db: Executor,
  accountId: string,
  today: string,
  horizon: string,
): Promise<{ upcoming: number; overdue: number }> {
  const row = await db
    .selectFrom('notes')
    .select((eb) => [
      eb.fn
        .sum<number | string | null>(
          eb.case().when('due_date', '>=', today).then(sql.lit(1)).else(sql.lit(0)).end(),
        )
        .as('upcoming'),
      eb.fn
        .sum<number | string | null>(
          eb.case().when('due_date', '<', today).then(sql.lit(1)).else(sql.lit(0)).end(),
        )
        .as('overdue'),
    ])
    .where('account_id', '=', accountId)
    .where('type', '=', 'REMINDER')
    .where('done', '=', 0)
    .where('due_date', 'is not', null)
    .where('due_date', '<=', horizon)
    .executeTakeFirst();
  return { upcoming: num(row?.upcoming), overdue: num(row?.overdue) };
}

export interface ReminderRow {
  id: string;
  title: string;
  due_date: string;
  parent_type: string;
  parent_id: string;
}

/** The first `limit` open REMINDER notes due `today..horizon`, by due date then id. */
export async function nextReminders(
  db: Executor,
  accountId: string,
  today: string,
  horizon: string,
  limit: number,
): Promise<ReminderRow[]> {
  const rows = await db
    .selectFrom('notes')
    .select(['id', 'title', 'due_date', 'parent_type', 'parent_id'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'REMINDER')
    .where('done', '=', 0)
    .where('due_date', '>=', today)
    .where('due_date', '<=', horizon)
    .orderBy('due_date')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, due_date: r.due_date! }));
}

export interface DeadlineCandidateRow {
  id: string;
  name: string;
  partner_name: string;
  end_date: string | null;
  advanced: string | null;
  cancellation_deadline: string;
}

/**
 * ACTIVE contracts whose cancellation deadline may lie in `today..horizon`: the stored
 * deadline (as of the contract's last write) is in that window, or it has passed on a
 * contract that renews automatically and may have rolled into a new term since. The caller
 * recomputes the current deadline of each; both kinds are narrow (the window, the renewing
 * contracts), and calendar-month arithmetic has no portable SQL form.
 */
export async function deadlineCandidates(
  db: Executor,
  accountId: string,
  today: string,
  horizon: string,
): Promise<DeadlineCandidateRow[]> {
  const rows = await db
    .selectFrom('contracts')
    .select(['id', 'name', 'partner_name', 'end_date', 'advanced', 'cancellation_deadline'])
    .where('account_id', '=', accountId)
    .where('status', '=', 'ACTIVE')
    .where('cancellation_deadline', 'is not', null)
    .where('cancellation_deadline', '<=', horizon)
    .where((eb) =>
      eb.or([eb('cancellation_deadline', '>=', today), eb('next_renewal_date', 'is not', null)]),
    )
    .execute();
  return rows.map((r) => ({ ...r, cancellation_deadline: r.cancellation_deadline! }));
}
