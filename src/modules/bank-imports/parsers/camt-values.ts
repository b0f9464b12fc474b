import { isCurrency, minorDigits } from '../../../shared/money.js';
import { child, text, type XmlElement } from './camt-xml.js';

/**
 * Value readers shared by the CAMT statement and entry converters. Each answers the value or
 * a message saying why it cannot; none throws.
 */

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

const DECIMAL = /^(\d*)(?:\.(\d*))?$/;

/**
 * ISO 20022 `ActiveOrHistoricCurrencyAndAmount` text → integer minor units, exactly (the
 * decimal string is split, never multiplied as a float). The schema allows five decimals;
 * trailing zeros beyond the currency's minor unit are harmless (`18.150` EUR = 1815), a
 * significant digit beyond it (`1.23456` EUR) cannot be booked and is refused. Currencies
 * Kontor does not know are read with two decimals.
 */
export function decimalToMinor(raw: string | undefined, currency: string): Checked<number> {
  if (raw === undefined) return { ok: false, message: 'the amount is missing' };
  const match = DECIMAL.exec(raw);
  const whole = match?.[1] ?? '';
  const fraction = (match?.[2] ?? '').replace(/0+$/, '');
  if (!match || (whole === '' && (match[2] ?? '') === ''))
    return { ok: false, message: `the amount "${raw.slice(0, 30)}" is not a decimal number` };
  const digits = isCurrency(currency) ? minorDigits(currency) : 2;
  if (fraction.length > digits)
    return {
      ok: false,
      message: `the amount ${raw} has more decimals than ${currency} has (${digits})`,
    };
  const minor = Number(`${whole === '' ? '0' : whole}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(minor)) return { ok: false, message: `the amount ${raw} is too large` };
  return { ok: true, value: minor };
}

/** A three-letter ISO 4217 code, or undefined. */
export function currencyCode(value: string | undefined): string | undefined {
  return value !== undefined && /^[A-Z]{3}$/.test(value) ? value : undefined;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True for a real calendar date `YYYY-MM-DD` (no 2024-02-30). Arithmetic rather than
 * `new Date()`: a 50 000-entry statement checks 100 000 dates.
 */
export function isCalendarDate(value: string): boolean {
  if (value.length !== 10 || value[4] !== '-' || value[7] !== '-') return false;
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day)) return false;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || year < 1 || month < 1 || month > 12 || day < 1)
    return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

/**
 * The calendar date of an ISO 20022 `DateAndDateTimeChoice` (`<Dt>` or `<DtTm>`). A
 * date-time keeps the bank's local date as written (`2024-01-31T23:30:00-05:00` is the 31st):
 * converting to UTC would move bookings across midnight.
 */
export function choiceDate(element: XmlElement | undefined): string | undefined {
  const value = text(element, 'Dt') ?? text(element, 'DtTm')?.slice(0, 10);
  return value !== undefined && isCalendarDate(value) ? value : undefined;
}

/** The date part of an ISODateTime element's text. */
export function dateTimeDate(value: string | undefined): string | undefined {
  const date = value?.slice(0, 10);
  return date !== undefined && isCalendarDate(date) ? date : undefined;
}

/** An IBAN as stored: spaces removed, upper case; undefined unless it looks like one. */
export function normaliseIban(value: string | undefined): string | undefined {
  const compact = value?.replace(/\s+/g, '').toUpperCase();
  return compact !== undefined && /^[A-Z]{2}\d{2}[A-Z0-9]{1,30}$/.test(compact)
    ? compact
    : undefined;
}

/** An account's identification: IBAN, else `Othr/Id`, `PrtryAcct/Id` (001.01) or BBAN. */
export function accountId(account: XmlElement | undefined): string | undefined {
  const id = child(account, 'Id');
  const iban = text(id, 'IBAN');
  if (iban !== undefined) return normaliseIban(iban) ?? iban;
  return text(id, 'Othr', 'Id') ?? text(id, 'PrtryAcct', 'Id') ?? text(id, 'BBAN');
}

/** Whitespace collapsed to single spaces, trimmed. */
export function squash(value: string): string {
  return value.replace(/\s+/g, ' ').trim();
}
