import { addDays } from '../../shared/dates.js';

/**
 * The TARGET2 calendar SEPA collections and transfers settle on: every day but Saturdays,
 * Sundays, 1 January, Good Friday, Easter Monday, 1 May, 25 and 26 December.
 */

/** Easter Sunday of a year (anonymous Gregorian algorithm), `YYYY-MM-DD`. */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Whether `date` (YYYY-MM-DD) is a TARGET2 business day. */
export function isBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  const md = date.slice(5);
  if (md === '01-01' || md === '05-01' || md === '12-25' || md === '12-26') return false;
  const easter = easterSunday(Number(date.slice(0, 4)));
  return date !== addDays(easter, -2) && date !== addDays(easter, 1);
}

/** `date` itself when it is a business day, else the next one. */
export function businessDayOnOrAfter(date: string): string {
  let day = date;
  while (!isBusinessDay(day)) day = addDays(day, 1);
  return day;
}

/** The first business day after `date`. */
export function nextBusinessDay(date: string): string {
  return businessDayOnOrAfter(addDays(date, 1));
}

/** `date` itself when it is a business day, else the one before. */
export function businessDayOnOrBefore(date: string): string {
  let day = date;
  while (!isBusinessDay(day)) day = addDays(day, -1);
  return day;
}

const later = (a: string, b: string) => (a > b ? a : b);

/**
 * TARGET2 business days a file reaches the bank before its collection date, per scheme: the
 * EPC SDD B2B rulebook asks D-1 for every collection; the SDD Core rulebook asked D-5 (first)
 * and D-2 (recurrent) until November 2016 and D-1 since (rulebook 9.0, which German banks
 * apply). Both are D-1 today; the map keeps the rule per scheme where it is applied.
 */
export const LEAD_BUSINESS_DAYS: Record<'CORE' | 'B2B', number> = { CORE: 1, B2B: 1 };

/** The `days`-th business day after `date`. */
export function businessDaysAfter(date: string, days: number): string {
  let day = date;
  for (let i = 0; i < days; i++) day = nextBusinessDay(day);
  return day;
}

/**
 * The earliest collection date of an invoice (docs/sepa.md, "Collection date"): not before its
 * due date (or its date when it has none), not before the pre-notification period has passed
 * since the debtor was notified, and at least the scheme's lead time (D-1) in business days
 * after the day the file is made; rolled forward to a business day.
 */
export function earliestCollectionDate(f: {
  today: string;
  dueDate: string | null;
  invoiceDate: string;
  notifiedOn: string;
  preNotificationDays: number;
  scheme?: 'CORE' | 'B2B';
}): string {
  const due = f.dueDate ?? f.invoiceDate;
  const lead = businessDaysAfter(f.today, LEAD_BUSINESS_DAYS[f.scheme ?? 'CORE']);
  return businessDayOnOrAfter(
    later(later(due, addDays(f.notifiedOn, f.preNotificationDays)), lead),
  );
}
