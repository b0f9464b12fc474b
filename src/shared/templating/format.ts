/**
 * How documents write dates, numbers and money for people, in the account's `dateFormat` and
 * `numberFormat` (decisions §6). Pure functions on decimal strings: amounts are integer minor
 * units and numbers are re-read from their shortest decimal representation, so no binary
 * floating-point arithmetic touches a printed figure.
 */
import { isIsoDate, parseTimestamp } from '../dates.js';
import { minorDigits } from '../money.js';

export const DATE_FORMATS = ['DD.MM.YYYY', 'DD/MM/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];
export const NUMBER_FORMATS = ['1.234,56', '1,234.56'] as const;
export type NumberFormat = (typeof NUMBER_FORMATS)[number];

const MONTHS_DE = [
  'Januar',
  'Februar',
  'März',
  'April',
  'Mai',
  'Juni',
  'Juli',
  'August',
  'September',
  'Oktober',
  'November',
  'Dezember',
];

/** `YYYY-MM-DD` of an ISO date or an RFC 3339 timestamp (its UTC date), else undefined. */
export function toIsoDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  if (isIsoDate(value)) return value;
  const ms = parseTimestamp(value);
  return ms === undefined ? undefined : new Date(ms).toISOString().slice(0, 10);
}

/**
 * An ISO date for people: `21.11.2026` or `21/11/2026`; `long` writes the German long form
 * `21. November 2026` (the wording of the letters). Undefined when the value is not a date.
 */
export function formatDisplayDate(
  value: unknown,
  format: DateFormat,
  style: 'short' | 'long' = 'short',
): string | undefined {
  const iso = toIsoDate(value);
  if (iso === undefined) return undefined;
  const [y, m, d] = iso.split('-') as [string, string, string];
  if (style === 'long') return `${Number(d)}. ${MONTHS_DE[Number(m) - 1]!} ${y}`;
  const sep = format === 'DD.MM.YYYY' ? '.' : '/';
  return `${d}${sep}${m}${sep}${y}`;
}

/** Digit groups of three with the format's thousands separator. */
function group(whole: string, format: NumberFormat): string {
  const sep = format === '1.234,56' ? '.' : ',';
  return whole.replace(/\B(?=(\d{3})+(?!\d))/g, sep);
}

function joinDecimal(
  negative: boolean,
  whole: string,
  fraction: string,
  format: NumberFormat,
): string {
  const decimal = format === '1.234,56' ? ',' : '.';
  const body = group(whole, format) + (fraction ? decimal + fraction : '');
  const isZero = /^0*$/.test(whole + fraction);
  return negative && !isZero ? `-${body}` : body;
}

interface Decimal {
  negative: boolean;
  whole: string;
  fraction: string;
}

/** The exact decimal digits of a finite JS number (its shortest round-trip representation). */
function decimalOf(value: number): Decimal | undefined {
  if (!Number.isFinite(value)) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) return undefined;
  const [, sign, int = '0', frac = '', exp = '0'] = match;
  let digits = int + frac;
  let point = int.length + Number(exp);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  } else if (point > digits.length) {
    digits = digits.padEnd(point, '0');
  }
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  return { negative: sign === '-', whole, fraction: digits.slice(point).replace(/0+$/, '') };
}

/** Rounds a decimal half away from zero to `places` fraction digits, on its digits. */
function roundDecimal(d: Decimal, places: number): Decimal {
  if (d.fraction.length <= places) return { ...d, fraction: d.fraction.padEnd(places, '0') };
  const kept = d.whole + d.fraction.slice(0, places);
  const roundUp = d.fraction.charCodeAt(places) >= '5'.charCodeAt(0);
  let digits = kept;
  if (roundUp) {
    const chars = kept.split('');
    let i = chars.length - 1;
    for (; i >= 0; i--) {
      if (chars[i] === '9') chars[i] = '0';
      else {
        chars[i] = String(Number(chars[i]) + 1);
        break;
      }
    }
    digits = (i < 0 ? '1' : '') + chars.join('');
  }
  const point = digits.length - places;
  return {
    negative: d.negative,
    whole: digits.slice(0, point) || '0',
    fraction: digits.slice(point),
  };
}

/**
 * A number for people: `1.234,5` / `1,234.5`; with `places`, rounded half away from zero to
 * exactly that many decimals (`1.234,50`). Undefined when the value is not a finite number.
 */
export function formatNumber(
  value: unknown,
  format: NumberFormat,
  places?: number,
): string | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number') return undefined;
  const d = decimalOf(n);
  if (!d) return undefined;
  const shown = places === undefined ? d : roundDecimal(d, places);
  return joinDecimal(shown.negative, shown.whole, shown.fraction, format);
}

const SYMBOLS: Record<string, string> = { EUR: '€', GBP: '£', USD: '$' };

/**
 * Integer minor units of `currency` for people. German number format writes the symbol
 * after the amount (`1.234,56 €`), the English one before it (`£1,234.56`); currencies
 * without a symbol here use their ISO code (`1.234,56 CHF`, `CHF 1,234.56`). Undefined when
 * the amount is not an integer or the currency is unknown.
 */
export function formatMoney(
  minor: unknown,
  currency: string,
  format: NumberFormat,
): string | undefined {
  const amount =
    typeof minor === 'string' && /^-?\d{1,16}$/.test(minor.trim()) ? Number(minor) : minor;
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount)) return undefined;
  let digits: number;
  try {
    digits = minorDigits(currency);
  } catch {
    return undefined;
  }
  const abs = Math.abs(amount)
    .toString()
    .padStart(digits + 1, '0');
  const whole = digits === 0 ? abs : abs.slice(0, -digits);
  const fraction = digits === 0 ? '' : abs.slice(-digits);
  const text = joinDecimal(false, whole, fraction, format);
  const sign = amount < 0 ? '-' : '';
  const symbol = SYMBOLS[currency];
  if (format === '1.234,56') return `${sign}${text} ${symbol ?? currency}`;
  return symbol ? `${sign}${symbol}${text}` : `${sign}${currency} ${text}`;
}
