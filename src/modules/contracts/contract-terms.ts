/**
 * Contract term arithmetic on ISO `YYYY-MM-DD` dates: pure functions, no clock, no database.
 * Dates are calendar dates (no time zone); all arithmetic runs on UTC midnights.
 */
import { addDays } from '../../shared/dates.js';

export { addDays };

/** Renewal term when `autoRenew` is set without `renewalMonths`. */
export const DEFAULT_RENEWAL_MONTHS = 12;

/** The term fields of a contract that the derived dates depend on. */
export interface TermInput {
  endDate: string | null;
  autoRenew?: boolean;
  renewalMonths?: number;
  noticePeriodDays?: number;
}

export interface Terms {
  /** Last day to give notice for the current term; null without an end date. */
  cancellationDeadline: string | null;
  /** End of the current term when the contract renews automatically; else null. */
  nextRenewalDate: string | null;
}

function parts(date: string): [number, number, number] {
  const [y, m, d] = date.split('-').map(Number);
  return [y!, m!, d!];
}

function format(y: number, m: number, d: number): string {
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function daysInMonth(y: number, m: number): number {
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
}

/**
 * `date` plus `months` calendar months, clamped to the end of the target month:
 * 2024-01-31 + 1 → 2024-02-29, 2023-01-31 + 1 → 2023-02-28, 2024-02-29 + 12 → 2025-02-28.
 */
export function addMonths(date: string, months: number): string {
  const [y, m, d] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return format(year, month, Math.min(d, daysInMonth(year, month)));
}

/**
 * The month `months` after `date`'s, on day `day` of it or its last day when shorter: the
 * steps of a billing plan anchored on the 31st go 01-31, 02-28, 03-31, never drifting to the 28th.
 */
export function addMonthsOnDay(date: string, months: number, day: number): string {
  const [y, m] = parts(date);
  const index = y * 12 + (m - 1) + months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return format(year, month, Math.min(day, daysInMonth(year, month)));
}

/** Whole calendar months from `from` to `to`, ignoring the day of month (may be negative). */
function monthsBetween(from: string, to: string): number {
  const [fy, fm] = parts(from);
  const [ty, tm] = parts(to);
  return (ty - fy) * 12 + (tm - fm);
}

/**
 * The end of the term that is current on `today`: `endDate`, or, for a contract that renews
 * automatically and whose end date has passed, `endDate + k × renewalMonths` for the smallest
 * k that reaches `today`. Each renewal is counted from `endDate` itself rather than from the
 * previous (possibly clamped) term end, so a term ending on the 31st keeps ending on the last
 * day of the month instead of drifting to the 28th.
 */
export function currentTermEnd(input: TermInput, today: string): string | null {
  const { endDate } = input;
  if (endDate === null) return null;
  if (!input.autoRenew || endDate >= today) return endDate;
  const step = input.renewalMonths ?? DEFAULT_RENEWAL_MONTHS;
  // Jump to the last renewal that starts no later than today's month (so decades of monthly
  // renewals stay O(1)), then step to the first term end on or after today.
  let k = Math.max(1, Math.floor(monthsBetween(endDate, today) / step));
  let end = addMonths(endDate, k * step);
  while (end < today) end = addMonths(endDate, ++k * step);
  return end;
}

/**
 * `cancellationDeadline` and `nextRenewalDate` as of `today` (decisions §7): the current term
 * ends at `endDate`, rolled forward by `renewalMonths` while it lies before `today` when the
 * contract renews automatically; notice is due `noticePeriodDays` before that term end.
 */
export function computeTerms(input: TermInput, today: string): Terms {
  const termEnd = currentTermEnd(input, today);
  if (termEnd === null) return { cancellationDeadline: null, nextRenewalDate: null };
  return {
    cancellationDeadline: addDays(termEnd, -(input.noticePeriodDays ?? 0)),
    nextRenewalDate: input.autoRenew ? termEnd : null,
  };
}
