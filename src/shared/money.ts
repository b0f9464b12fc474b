/**
 * Money is integer minor units everywhere inside Kontor (decisions §6); JSON carries major
 * units with no more decimals than the currency has. Conversion goes through the decimal
 * string, never through floating-point multiplication.
 */

/** Minor-unit digits of the ISO 4217 currencies Kontor accepts. */
const MINOR_DIGITS: Record<string, number> = {
  EUR: 2,
  GBP: 2,
  USD: 2,
  CHF: 2,
  CZK: 2,
  DKK: 2,
  NOK: 2,
  SEK: 2,
  PLN: 2,
  HUF: 2,
  RON: 2,
  BGN: 2,
  CAD: 2,
  AUD: 2,
  NZD: 2,
  TRY: 2,
  CNY: 2,
  HKD: 2,
  SGD: 2,
  INR: 2,
  ZAR: 2,
  MXN: 2,
  BRL: 2,
  ILS: 2,
  AED: 2,
  SAR: 2,
  THB: 2,
  ISK: 0,
  JPY: 0,
  KRW: 0,
  CLP: 0,
  VND: 0,
  BHD: 3,
  KWD: 3,
  OMR: 3,
  JOD: 3,
  TND: 3,
};

export const CURRENCIES = Object.keys(MINOR_DIGITS).sort();

export function isCurrency(code: string): boolean {
  return Object.hasOwn(MINOR_DIGITS, code);
}

export function minorDigits(currency: string): number {
  const digits = MINOR_DIGITS[currency];
  if (digits === undefined) throw new RangeError(`Unknown currency ${currency}`);
  return digits;
}

/**
 * Major-unit JSON number → integer minor units, or `undefined` when the amount has more
 * decimals than the currency allows (12.345 EUR) or is not a finite safe amount.
 */
export function toMinor(amount: number, currency: string): number | undefined {
  if (!Number.isFinite(amount)) return undefined;
  const digits = minorDigits(currency);
  // The shortest round-trip decimal representation of the JSON number, e.g. "12.34" or "1e-7".
  const text = String(amount);
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > digits) return undefined;
  const minor = Number(`${whole}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor)) return undefined;
  return sign === '-' ? -minor : minor;
}

/** Integer minor units → major-unit JSON number (exact for every safe integer amount). */
export function toMajor(minor: number, currency: string): number {
  const digits = minorDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor)
    .toString()
    .padStart(digits + 1, '0');
  const text = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  return Number(`${sign}${text}`);
}

export type NumberFormat = '1.234,56' | '1,234.56';

/**
 * Integer minor units → the text people read, in the account's number format:
 * `1.234,56 EUR` or `1,234.56 EUR` (decisions §6: formats shape what people read, never the API).
 * Built from the digits, never through binary floating point.
 */
export function formatMoney(minor: number, currency: string, format: NumberFormat): string {
  const digits = minorDigits(currency);
  const [group, decimal] = format === '1.234,56' ? ['.', ','] : [',', '.'];
  const abs = Math.abs(minor)
    .toString()
    .padStart(digits + 1, '0');
  const whole = digits === 0 ? abs : abs.slice(0, -digits);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, group);
  const text = digits === 0 ? grouped : `${grouped}${decimal}${abs.slice(-digits)}`;
  return `${minor < 0 ? '-' : ''}${text} ${currency}`;
}
