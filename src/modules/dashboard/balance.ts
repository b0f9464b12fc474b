import type { Executor } from '../../db/records.js';
import { addDays } from './buckets.js';
import { settledFlows, type CashAnchorRow } from './dashboard.repository.js';

/**
 * The balance rule (decisions §12, docs/dashboard.md): the anchor is the bank balance at the
 * end of its `effective_date`, so every payment dated on or before that day is inside it.
 *
 *   D after the anchor date:   balance(D) = anchor + settled net of the days (anchor date, D]
 *   D before the anchor date:  balance(D) = anchor − settled net of the days (D, anchor date]
 *
 * Both are one formula, `anchor − cum(anchorDate) + cum(D)` with `cum(X)` the settled net of
 * everything dated on or before X, so balances on both sides of the anchor fit together and a
 * time series can run across it. Settled net = MARKED INCOMING − MARKED OUTGOING in the
 * anchor's currency (payments in other currencies are not in this bank account).
 */

/** A cash anchor that applies: in the account currency, amounts in minor units. */
export interface Anchor {
  openingBalance: number;
  currency: string;
  effectiveDate: string;
}

/** The stored anchor when it is in the account currency, else undefined (not applied). */
export function applicableAnchor(
  row: CashAnchorRow | undefined,
  accountCurrency: string,
): Anchor | undefined {
  if (!row || row.currency !== accountCurrency) return undefined;
  return {
    openingBalance: Number(row.opening_balance),
    currency: row.currency,
    effectiveDate: row.effective_date,
  };
}

/** Balance in minor units at the end of `day`: one indexed aggregate between the two days. */
export async function balanceOn(
  db: Executor,
  accountId: string,
  anchor: Anchor,
  day: string,
): Promise<number> {
  const { openingBalance, currency, effectiveDate } = anchor;
  if (day === effectiveDate) return openingBalance;
  if (day > effectiveDate) {
    const f = await settledFlows(db, accountId, currency, addDays(effectiveDate, 1), day);
    return openingBalance + f.income - f.expense;
  }
  const f = await settledFlows(db, accountId, currency, addDays(day, 1), effectiveDate);
  return openingBalance - (f.income - f.expense);
}
