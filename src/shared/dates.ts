/** Date-only values are ISO `YYYY-MM-DD` on the wire and in the database (decisions §6). */

export const ISO_DATE_PATTERN = '^\\d{4}-\\d{2}-\\d{2}$';

/**
 * The dates a document (invoice, credit note, offer, letter) may carry: none before
 * 2000-01-01, none after 2099-12-31. An invoice of the last century cannot be booked (GoBD
 * keeps ten years) and a year past 2099 is a typing error; the document's own date is held
 * closer still (`latestDocumentDate`).
 */
export const DOCUMENT_DATE_MIN = '2000-01-01';
export const DOCUMENT_DATE_MAX = '2099-12-31';
/** The year range above as a JSON-schema pattern; the `date` format checks the rest. */
/** A calendar month, `YYYY-MM`. */
export const MONTH_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])$';

export const DOCUMENT_DATE_PATTERN = '^20\\d{2}-';

/** True for a real calendar date in `YYYY-MM-DD` form (rejects 2026-02-30). */
export function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** `date` (YYYY-MM-DD) plus `days` (negative: minus), across month and year ends. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number);
  return isoDate(new Date(Date.UTC(y!, m! - 1, d! + days)));
}

/**
 * The latest date a document may be dated on when issued `today`: one year ahead (the same day
 * of the next year; 29 February goes to 1 March). Pre-dating further is a typing error, not
 * a plan: an invoice is issued when the supply is made (§14 (4) UStG).
 */
export function latestDocumentDate(today: string): string {
  const [y, m, d] = today.split('-').map(Number);
  return isoDate(new Date(Date.UTC(y! + 1, m! - 1, d)));
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
function looksLikeTimestamp(value: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i.test(value);
}

/**
 * Milliseconds of an RFC 3339 timestamp, or undefined. `Date.parse` rolls impossible values
 * over (`2026-02-30` → March 2, `T24:00` → next day); this refuses them by checking that the
 * parsed instant, seen in the value's own offset, shows the same wall-clock fields.
 */
export function parseTimestamp(value: string): number | undefined {
  if (!looksLikeTimestamp(value) || !isIsoDate(value.slice(0, 10))) return undefined;
  const ms = Date.parse(value);
  // An offset past ±23:59 (`+99:00`) has the shape but is no instant: Date.parse gives NaN.
  if (Number.isNaN(ms)) return undefined;
  const zone = /(Z|([+-])(\d{2}):(\d{2}))$/i.exec(value);
  if (!zone) return undefined;
  const offsetMs =
    zone[2] === undefined
      ? 0
      : (zone[2] === '-' ? -1 : 1) * (Number(zone[3]) * 60 + Number(zone[4])) * 60_000;
  const wall = new Date(ms + offsetMs).toISOString().slice(0, 19);
  return wall === value.slice(0, 19).toUpperCase() ? ms : undefined;
}

/** True for a real RFC 3339 timestamp with a zone; impossible dates and times are refused. */
export function isTimestamp(value: string): boolean {
  return parseTimestamp(value) !== undefined;
}
