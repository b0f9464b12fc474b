/** Date-only values are ISO `YYYY-MM-DD` on the wire and in the database (decisions §6). */

export const ISO_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/** True for a real calendar date in `YYYY-MM-DD` form (rejects 2026-02-30). */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** The UTC calendar date of a timestamp. */
export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/** Formats an ISO date for people, in the account's `dateFormat`. */
export function formatDate(value: string, format: 'DD.MM.YYYY' | 'DD/MM/YYYY'): string {
  const [y, m, d] = value.split('-');
  const sep = format === 'DD.MM.YYYY' ? '.' : '/';
  return `${d}${sep}${m}${sep}${y}`;
}

/** True for an RFC 3339 timestamp with a zone (`2026-11-21T10:00:00Z`, `…+01:00`). */
export function isTimestamp(value: string): boolean {
  return (
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value) &&
    !Number.isNaN(Date.parse(value))
  );
}
