/**
 * Money is integer minor units everywhere inside Kontor (decisions §6); JSON carries major
 * units with no more decimals than the currency has. Conversion goes through the decimal
 * string, never through floating-point multiplication.
 */

/** Minor-unit digits of the active ISO 4217 currencies (list of 2025). */
const MINOR_DIGITS: Record<string, number> = {
  // 2 decimals
  AED: 2,
  AFN: 2,
  ALL: 2,
  AMD: 2,
  ANG: 2,
  AOA: 2,
  ARS: 2,
  AUD: 2,
  AWG: 2,
  AZN: 2,
  BAM: 2,
  BBD: 2,
  BDT: 2,
  BGN: 2,
  BMD: 2,
  BND: 2,
  BOB: 2,
  BRL: 2,
  BSD: 2,
  BTN: 2,
  BWP: 2,
  BYN: 2,
  BZD: 2,
  CAD: 2,
  CDF: 2,
  CHF: 2,
  CNY: 2,
  COP: 2,
  CRC: 2,
  CUP: 2,
  CVE: 2,
  CZK: 2,
  DKK: 2,
  DOP: 2,
  DZD: 2,
  EGP: 2,
  ERN: 2,
  ETB: 2,
  EUR: 2,
  FJD: 2,
  FKP: 2,
  GBP: 2,
  GEL: 2,
  GHS: 2,
  GIP: 2,
  GMD: 2,
  GTQ: 2,
  GYD: 2,
  HKD: 2,
  HNL: 2,
  HTG: 2,
  HUF: 2,
  IDR: 2,
  ILS: 2,
  INR: 2,
  IRR: 2,
  JMD: 2,
  KES: 2,
  KGS: 2,
  KHR: 2,
  KPW: 2,
  KYD: 2,
  KZT: 2,
  LAK: 2,
  LBP: 2,
  LKR: 2,
  LRD: 2,
  LSL: 2,
  MAD: 2,
  MDL: 2,
  MGA: 2,
  MKD: 2,
  MMK: 2,
  MNT: 2,
  MOP: 2,
  MRU: 2,
  MUR: 2,
  MVR: 2,
  MWK: 2,
  MXN: 2,
  MYR: 2,
  MZN: 2,
  NAD: 2,
  NGN: 2,
  NIO: 2,
  NOK: 2,
  NPR: 2,
  NZD: 2,
  PAB: 2,
  PEN: 2,
  PGK: 2,
  PHP: 2,
  PKR: 2,
  PLN: 2,
  QAR: 2,
  RON: 2,
  RSD: 2,
  RUB: 2,
  SAR: 2,
  SBD: 2,
  SCR: 2,
  SDG: 2,
  SEK: 2,
  SGD: 2,
  SHP: 2,
  SLE: 2,
  SOS: 2,
  SRD: 2,
  SSP: 2,
  STN: 2,
  SVC: 2,
  SYP: 2,
  SZL: 2,
  THB: 2,
  TJS: 2,
  TMT: 2,
  TOP: 2,
  TRY: 2,
  TTD: 2,
  TWD: 2,
  TZS: 2,
  UAH: 2,
  USD: 2,
  UYU: 2,
  UZS: 2,
  VES: 2,
  WST: 2,
  XCD: 2,
  YER: 2,
  ZAR: 2,
  ZMW: 2,
  ZWG: 2,
  // 0 decimals
  BIF: 0,
  CLP: 0,
  DJF: 0,
  GNF: 0,
  ISK: 0,
  JPY: 0,
  KMF: 0,
  KRW: 0,
  PYG: 0,
  RWF: 0,
  UGX: 0,
  UYI: 0,
  VND: 0,
  VUV: 0,
  XAF: 0,
  XOF: 0,
  XPF: 0,
  // 3 decimals
  BHD: 3,
  IQD: 3,
  JOD: 3,
  KWD: 3,
  LYD: 3,
  OMR: 3,
  TND: 3,
  // 4 decimals
  CLF: 4,
  UYW: 4,
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

/**
 * Integer minor units → major-unit JSON number (exact for every safe integer amount). One
 * division: IEEE 754 rounds a quotient of two exactly represented numbers to the double nearest
 * to the true quotient, the same double that parsing its decimal text gives (12345 / 100 and
 * "123.45" are one number), without building that text.
 */
export function toMajor(minor: number, currency: string): number {
  return minor === 0 ? 0 : minor / MINOR_UNIT[minorDigits(currency)]!;
}

/**
 * `toMajor` for many amounts of one currency (a document's lines, taxes and totals): the
 * currency's unit is looked up once, not per amount. Takes what a row holds (a number, or a
 * bigint column's text).
 */
export function majorOf(currency: string): (minor: number | string) => number {
  const unit = MINOR_UNIT[minorDigits(currency)]!;
  return (minor) => {
    const n = Number(minor);
    return n === 0 ? 0 : n / unit;
  };
}

/** 10 to the power of a currency's minor digits (0 to 3). */
const MINOR_UNIT = [1, 10, 100, 1000];

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
