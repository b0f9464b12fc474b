import { addDays, addMonths } from '../contracts/index.js';

/**
 * Calendar arithmetic of the dashboard on ISO `YYYY-MM-DD` dates: pure functions, no clock, no
 * database. Dates are calendar days (no time zone); arithmetic runs on UTC midnights, so
 * month ends, leap days and year boundaries come from the calendar itself.
 */

export { addDays, addMonths };

export const INTERVALS = ['day', 'week', 'month'] as const;
export type Interval = (typeof INTERVALS)[number];

/** One bucket of a time series: the calendar period clipped to the requested range. */
export interface Bucket {
  start: string;
  end: string;
  /** True when the calendar period reaches outside `from..to` and was clipped to it. */
  partial: boolean;
}

/** The Monday of the ISO week holding `date` (ISO 8601: weeks run Monday to Sunday). */
export function isoWeekStart(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay(); // 0 = Sunday
  return addDays(date, -((weekday + 6) % 7));
}

/** First day of the month holding `date`. */
export function monthStart(date: string): string {
  return `${date.slice(0, 7)}-01`;
}

/** Last day of the month holding `date` (28, 29, 30 or 31). */
export function monthEnd(date: string): string {
  return addDays(addMonths(monthStart(date), 1), -1);
}

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 (negative before), and back: integer arithmetic per bucket. */
const dayNumber = (date: string): number => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The calendar period of `interval` holding day number `day`, as day numbers. */
function periodOf(day: number, interval: Interval): [number, number] {
  switch (interval) {
    case 'day':
      return [day, day];
    case 'week': {
      // 1970-01-01 was a Thursday: index 3 counting from Monday.
      const start = day - ((((day + 3) % 7) + 7) % 7);
      return [start, start + 6];
    }
    case 'month': {
      const at = new Date(day * DAY_MS);
      const [y, m] = [at.getUTCFullYear(), at.getUTCMonth()];
      return [Date.UTC(y, m, 1) / DAY_MS, Date.UTC(y, m + 1, 0) / DAY_MS];
    }
  }
}

/**
 * The buckets covering `from..to` (both inclusive, `from <= to`, years 1900–2999) in calendar
 * order: days, ISO weeks (Monday–Sunday) or calendar months. The first and last bucket are
 * clipped to the range and flagged `partial` when their period reaches outside it.
 */
export function bucketsOf(from: string, to: string, interval: Interval): Bucket[] {
  const buckets: Bucket[] = [];
  const last = dayNumber(to);
  for (let day = dayNumber(from); day <= last;) {
    const [start, end] = periodOf(day, interval);
    const clippedEnd = Math.min(end, last);
    const startDate = dateOf(day);
    buckets.push({
      start: startDate,
      end: clippedEnd === day ? startDate : dateOf(clippedEnd),
      partial: day !== start || clippedEnd !== end,
    });
    day = clippedEnd + 1;
  }
  return buckets;
}

/** Whole days from `from` to `to` plus one: how many daily buckets `from..to` holds. */
export function daysInclusive(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}
