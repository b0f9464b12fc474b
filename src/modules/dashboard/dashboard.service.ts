import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { assertIsoDate, invalidField } from '../../http/field-rules.js';
import { isoDate } from '../../shared/dates.js';
import { toMajor } from '../../shared/money.js';
import { findAccount, type AccountRow } from '../account/index.js';
import { monthRange } from '../budgets/index.js';
import { computeTerms, type ContractAdvanced } from '../contracts/index.js';
import { applicableAnchor, balanceOn } from './balance.js';
import {
  addDays,
  addMonths,
  bucketsOf,
  isoWeekStart,
  monthStart,
  type Interval,
} from './buckets.js';
import * as repo from './dashboard.repository.js';
import { majorUnits } from './major-units.js';
import {
  DEADLINE_WINDOW_DAYS,
  MAX_BUDGET_CATEGORIES,
  MAX_DATE,
  MIN_DATE,
  MAX_RANGE_MONTHS,
  NEXT_ITEMS,
  REMINDER_WINDOW_DAYS,
  type Stats,
  type Timeseries,
  type TimeseriesParams,
} from './dashboard.schemas.js';
import * as stats from './stats.repository.js';

/**
 * The dashboard's read side (decisions §12, docs/dashboard.md). Every figure is an aggregate
 * computed by the database over indexed columns; JavaScript only adds up per-day sums (never
 * payment rows) and converts minor to major units. "Today" is the UTC calendar day.
 */
export class DashboardService {
  constructor(private readonly ctx: AppContext) {}

  private today(): string {
    return isoDate(this.ctx.clock.now());
  }

  private async account(accountId: string): Promise<AccountRow> {
    const account = await findAccount(this.ctx.db, accountId);
    if (!account) throw new AppError('not_found', 'Account not found.');
    return account;
  }

  async stats(accountId: string): Promise<Stats> {
    const db = this.ctx.db;
    const today = this.today();
    const account = await this.account(accountId);
    const currency = account.currency;
    const major = (minor: number) => toMajor(minor, currency);
    const anchorRow = await repo.findAnchor(db, accountId);
    const anchor = applicableAnchor(anchorRow, currency);

    const thisMonthKey = today.slice(0, 7);
    const lastMonthKey = addMonths(monthStart(today), -1).slice(0, 7);
    const flowOf = async (month: string) => {
      const range = monthRange(month);
      const f = await repo.settledFlows(db, accountId, currency, range.from, range.to);
      return {
        month,
        income: major(f.income),
        expense: major(f.expense),
        net: major(f.income - f.expense),
      };
    };
    const pending = await repo.pendingTotals(db, accountId, currency);
    const open = await repo.openInvoiceTotals(db, accountId, currency, today);
    const tally = (t: repo.Tally) => ({ amount: major(t.amount), count: t.count });

    return {
      asOf: today,
      currency,
      balance: anchor ? major(await balanceOn(db, accountId, anchor, today)) : null,
      cashAnchor: anchorRow
        ? {
            openingBalance: toMajor(Number(anchorRow.opening_balance), anchorRow.currency),
            currency: anchorRow.currency,
            effectiveDate: anchorRow.effective_date,
          }
        : null,
      receivables: tally(open.receivables),
      overdueReceivables: tally(open.overdueReceivables),
      payables: tally(open.payables),
      overduePayables: tally(open.overduePayables),
      pendingIncomingPayments: tally(pending.incoming),
      pendingOutgoingPayments: tally(pending.outgoing),
      thisMonth: await flowOf(thisMonthKey),
      lastMonth: await flowOf(lastMonthKey),
      budgetsSuppressed: account.budgets_suppressed === 1,
      budgets:
        account.budgets_suppressed === 1 ? null : await this.budgets(accountId, thisMonthKey),
      contracts: await this.contracts(accountId, currency),
      reminders: await this.reminders(accountId, today),
      cancellationDeadlines: await this.deadlines(accountId, today),
    };
  }

  private async budgets(accountId: string, month: string): Promise<NonNullable<Stats['budgets']>> {
    const rows = await stats.budgetUse(
      this.ctx.db,
      accountId,
      monthRange(month),
      MAX_BUDGET_CATEGORIES,
    );
    const truncated =
      rows.length === MAX_BUDGET_CATEGORIES &&
      (await stats.activeCategoryCount(this.ctx.db, accountId)) > MAX_BUDGET_CATEGORIES;
    return {
      month,
      truncated,
      categories: rows.map((r) => ({
        categoryId: r.id,
        name: r.name,
        currency: r.currency,
        limit: toMajor(r.monthlyLimit, r.currency),
        spent: toMajor(r.spent, r.currency),
        remaining: toMajor(r.monthlyLimit - r.spent, r.currency),
        overLimit: r.spent > r.monthlyLimit,
      })),
    };
  }

  private async contracts(accountId: string, currency: string): Promise<Stats['contracts']> {
    const rows = await stats.contractValues(this.ctx.db, accountId);
    const mine = (cycle: stats.CycleKey) =>
      rows.find((r) => r.cycle === cycle && r.currency === currency) ?? { count: 0, total: 0 };
    const monthly = mine('MONTHLY');
    const quarterly = mine('QUARTERLY');
    const yearly = mine('YEARLY');
    // One rounding for the whole sum: (12·M + 4·Q + Y) / 12, half-up (values are never
    // negative). BigInt keeps the intermediate exact however large the sums grow.
    const twelfths =
      12n * BigInt(monthly.total) + 4n * BigInt(quarterly.total) + BigInt(yearly.total);
    const monthlyValue = Number((twelfths + 6n) / 12n);
    const oneTime = mine('ONE_TIME');
    return {
      activeCount: rows.reduce((n, r) => n + r.count, 0),
      monthlyValue: toMajor(monthlyValue, currency),
      recurringCount: monthly.count + quarterly.count + yearly.count,
      oneTimeCount: oneTime.count,
      oneTimeValue: toMajor(oneTime.total, currency),
      withoutBillingCycleCount: mine('NONE').count,
      otherCurrencyCount: rows
        .filter((r) => r.currency !== currency)
        .reduce((n, r) => n + r.count, 0),
    };
  }

  private async reminders(accountId: string, today: string): Promise<Stats['reminders']> {
    const horizon = addDays(today, REMINDER_WINDOW_DAYS);
    const counts = await stats.reminderCounts(this.ctx.db, accountId, today, horizon);
    const next = await stats.nextReminders(this.ctx.db, accountId, today, horizon, NEXT_ITEMS);
    return {
      count: counts.upcoming,
      overdueCount: counts.overdue,
      next: next.map((r) => ({
        noteId: r.id,
        title: r.title,
        dueDate: r.due_date,
        parentType: r.parent_type as 'PARTNER' | 'CONTRACT',
        parentId: r.parent_id,
      })),
    };
  }

  private async deadlines(
    accountId: string,
    today: string,
  ): Promise<Stats['cancellationDeadlines']> {
    const horizon = addDays(today, DEADLINE_WINDOW_DAYS);
    const candidates = await stats.deadlineCandidates(this.ctx.db, accountId, today, horizon);
    const due = candidates
      .map((c) => {
        const advanced = c.advanced === null ? {} : (JSON.parse(c.advanced) as ContractAdvanced);
        // The stored deadline dates from the contract's last write; an auto-renewing contract
        // may have rolled into a new term since, so it is recomputed for today.
        const deadline = computeTerms(
          { endDate: c.end_date, ...advanced },
          today,
        ).cancellationDeadline;
        return {
          contractId: c.id,
          name: c.name,
          partnerName: c.partner_name,
          cancellationDeadline: deadline,
        };
      })
      .filter(
        (d): d is typeof d & { cancellationDeadline: string } =>
          d.cancellationDeadline !== null &&
          d.cancellationDeadline >= today &&
          d.cancellationDeadline <= horizon,
      )
      .sort((a, b) =>
        a.cancellationDeadline === b.cancellationDeadline
          ? a.contractId.localeCompare(b.contractId)
          : a.cancellationDeadline.localeCompare(b.cancellationDeadline),
      );
    return { count: due.length, next: due.slice(0, NEXT_ITEMS) };
  }

  async timeseries(accountId: string, query: TimeseriesParams): Promise<Timeseries> {
    const today = this.today();
    const interval: Interval = query.interval ?? 'month';
    assertSeriesDate(query.from, '/querystring/from');
    assertSeriesDate(query.to, '/querystring/to');
    const to = query.to ?? today;
    const from = query.from ?? defaultFrom(to, interval);
    if (to < from)
      throw invalidField(
        '/querystring/to',
        `must be on or after from (${from})${query.to === undefined ? `; it defaults to today, ${today}` : ''}`,
        'out_of_range',
      );
    const last = addDays(addMonths(from, MAX_RANGE_MONTHS), -1);
    if (to > last)
      throw invalidField(
        '/querystring/to',
        `must be at most 10 years after from: ${last} at the latest for from ${from}`,
        'out_of_range',
      );

    const db = this.ctx.db;
    const account = await this.account(accountId);
    const currency = account.currency;
    const anchor = applicableAnchor(await repo.findAnchor(db, accountId), currency);
    const opening = anchor ? await balanceOn(db, accountId, anchor, addDays(from, -1)) : null;
    const days = await repo.dailyFlows(db, accountId, currency, from, to);

    const major = majorUnits(currency);
    let balance = opening ?? 0;
    let i = 0;
    const buckets = bucketsOf(from, to, interval).map((bucket) => {
      let income = 0;
      let expense = 0;
      for (; i < days.length && days[i]!.day <= bucket.end; i++) {
        income += days[i]!.income;
        expense += days[i]!.expense;
      }
      balance += income - expense;
      return {
        start: bucket.start,
        end: bucket.end,
        partial: bucket.partial,
        income: major(income),
        expense: major(expense),
        net: major(income - expense),
        balance: opening === null ? null : major(balance),
      };
    });
    return {
      from,
      to,
      interval,
      currency,
      openingBalance: opening === null ? null : major(opening),
      buckets,
    };
  }
}

/** 400 unless a given `from`/`to` is a real calendar date within the supported years. */
function assertSeriesDate(value: string | undefined, path: string): void {
  assertIsoDate(value, path);
  if (value !== undefined && (value < MIN_DATE || value > MAX_DATE))
    throw invalidField(path, `must be between ${MIN_DATE} and ${MAX_DATE}`, 'out_of_range');
}

/** The default start: 30 days, 12 ISO weeks or 12 calendar months ending with `to`. */
function defaultFrom(to: string, interval: Interval): string {
  switch (interval) {
    case 'day':
      return addDays(to, -29);
    case 'week':
      return addDays(isoWeekStart(to), -77);
    case 'month':
      return addMonths(monthStart(to), -11);
  }
}
