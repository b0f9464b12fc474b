/**
 * Text helpers shared by the MT940 and CSV statement parsers: encoding detection, decimal
 * amounts to integer minor units, and calendar dates. Everything works on strings; amounts
 * never pass through floating point.
 */
import { isCurrency, minorDigits } from '../../../shared/money.js';

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';

export interface DecodedText {
  text: string;
  encoding: TextEncoding;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Bytes → text. A UTF-16 byte order mark wins; otherwise valid UTF-8 (with or without BOM)
 * is UTF-8 and anything else is Windows-1252, the superset of ISO-8859-1 German banks use
 * for 8-bit exports (umlauts, `€` at 0x80). The BOM is never part of the text.
 */
export function decodeText(bytes: Uint8Array): DecodedText {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: new TextDecoder('utf-16le').decode(bytes.subarray(2)), encoding: 'utf-16le' };
  }
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) {
    return { text: new TextDecoder('utf-16be').decode(bytes.subarray(2)), encoding: 'utf-16be' };
  }
  try {
    // `fatal` makes the decoder refuse invalid sequences; it strips a leading BOM itself.
    return { text: utf8.decode(bytes), encoding: 'utf-8' };
  } catch {
    return { text: decodeWindows1252(bytes), encoding: 'windows-1252' };
  }
}

/** Windows-1252 at 0x80–0x9F (where it differs from ISO-8859-1); unassigned bytes stay. */
const CP1252_HIGH = [
  '€',
  '\u0081',
  '‚',
  'ƒ',
  '„',
  '…',
  '†',
  '‡',
  'ˆ',
  '‰',
  'Š',
  '‹',
  'Œ',
  '\u008d',
  'Ž',
  '\u008f',
  '\u0090',
  '‘',
  '’',
  '“',
  '”',
  '•',
  '–',
  '—',
  '˜',
  '™',
  'š',
  '›',
  'œ',
  '\u009d',
  'ž',
  'Ÿ',
];

/**
 * Windows-1252 → text. Node 20's `TextDecoder('windows-1252')` decodes as ISO-8859-1
 * (0x80 stays U+0080 instead of `€`), so the 32 differing code points are mapped here.
 */
export function decodeWindows1252(bytes: Uint8Array): string {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  return latin1.replace(/[\u0080-\u009f]/g, (c) => CP1252_HIGH[c.charCodeAt(0) - 0x80] ?? c);
}

/** Minor-unit digits of a currency; unknown (or historic, e.g. DEM) currencies count as 2. */
export function currencyDigits(currency: string): number {
  return isCurrency(currency) ? minorDigits(currency) : 2;
}

/**
 * A plain decimal string (`1234`, `1234.5`, `0.07`; digits with one optional `.`) →
 * non-negative integer minor units of `currency`, or a reason why not. Extra decimals are
 * accepted only when they are zeros (`12.300` EUR).
 */
export function decimalToMinor(
  decimal: string,
  currency: string,
): { ok: true; minor: number } | { ok: false; reason: string } {
  const match = /^(\d*)(?:\.(\d*))?$/.exec(decimal);
  if (!match || decimal === '' || decimal === '.') {
    return { ok: false, reason: `"${decimal}" is not an amount` };
  }
  const whole = match[1] ?? '';
  let fraction = match[2] ?? '';
  const digits = currencyDigits(currency);
  if (fraction.length > digits) {
    if (/[^0]/.test(fraction.slice(digits))) {
      return {
        ok: false,
        reason: `"${decimal}" has more decimals than ${currency} allows (${digits})`,
      };
    }
    fraction = fraction.slice(0, digits);
  }
  const minor = Number(`${whole === '' ? '0' : whole}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor)) return { ok: false, reason: `"${decimal}" is too large` };
  return { ok: true, minor };
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1] ?? 0;
}

/**
 * Year, month, day → `YYYY-MM-DD`, or null when it is no date. With `clampMonthEnd`, a day
 * past the end of the month but ≤ 31 becomes the month's last day: German banks count
 * interest 30/360 and really state value dates such as 30.02.
 */
export function isoFromParts(
  year: number,
  month: number,
  day: number,
  clampMonthEnd = false,
): string | null {
  if (!Number.isInteger(year) || year < 1900 || year > 2199) return null;
  if (!Number.isInteger(month) || month < 1 || month > 12) return null;
  const last = daysInMonth(year, month);
  let d = day;
  if (!Number.isInteger(d) || d < 1 || d > 31) return null;
  if (d > last) {
    if (!clampMonthEnd) return null;
    d = last;
  }
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Two-digit year → four digits (SWIFT convention: 80–99 are 19xx, the rest 20xx). */
export function fullYear(twoDigits: number): number {
  return twoDigits >= 80 ? 1900 + twoDigits : 2000 + twoDigits;
}

/** Collapses runs of whitespace (including line breaks and NBSP) to one space and trims. */
export function normaliseSpace(text: string): string {
  // Most texts are clean already; testing is far cheaper than rebuilding them.
  if (!NEEDS_NORMALISING.test(text)) return text;
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}
const NEEDS_NORMALISING = /^\s|\s$|\s\s|[^\S ]/;

const IBAN_PATTERN = /^[A-Z]{2}\d{2}[A-Z0-9]{10,30}$/;
const BIC_PATTERN = /^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/;

/** The value as an IBAN (spaces removed, upper case), or null when it is not shaped like one. */
export function asIban(value: string | null | undefined): string | null {
  if (!value) return null;
  const compact = value.replace(/[\s\u00a0]/g, '').toUpperCase();
  return IBAN_PATTERN.test(compact) ? compact : null;
}

/** The value as a BIC (upper case), or null when it is not shaped like one. */
export function asBic(value: string | null | undefined): string | null {
  if (!value) return null;
  const compact = value.replace(/[\s\u00a0]/g, '').toUpperCase();
  return BIC_PATTERN.test(compact) ? compact : null;
}
