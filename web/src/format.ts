/**
 * Money, numbers and dates through Intl: the one place the app decides how they are written.
 * Numbers follow the account's `numberFormat` and days its `dateFormat` (GET
 * /v1/account/addresses) where a screen passes them — `useFormats()` (api/account) does for a
 * component —,
 * else the language the user chose. Amounts come from the API in major units with their
 * currency, days as `YYYY-MM-DD`.
 */
import type { components } from '@kontor/client';
import i18next from 'i18next';

type AccountSettings = components['schemas']['AccountSettings'];

export type NumberFormat = AccountSettings['numberFormat'];
export type DateFormat = AccountSettings['dateFormat'];

/** The Intl locale that writes numbers the way the account's format says. */
export function numberLocale(format: NumberFormat | undefined): string {
  return format === '1,234.56' ? 'en-GB' : 'de-DE';
}

/** The account's number format when given, else the user's language. */
function locale(format?: NumberFormat): string {
  if (format !== undefined) return numberLocale(format);
  return i18next.language === 'en' ? 'en-GB' : 'de-DE';
}

// Building an Intl formatter costs far more than using one (a list or the cockpit writes
// hundreds of figures per render), so each locale and option set is built once; screens that
// need an Intl formatter of their own take it from here too.
const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

export function numbers(
  localeName: string,
  options: Intl.NumberFormatOptions = {},
): Intl.NumberFormat {
  const key = `${localeName} ${JSON.stringify(options)}`;
  let format = numberFormats.get(key);
  if (format === undefined) {
    format = new Intl.NumberFormat(localeName, options);
    numberFormats.set(key, format);
  }
  return format;
}

export function dates(
  localeName: string,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  const key = `${localeName} ${JSON.stringify(options)}`;
  let format = dateFormats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(localeName, options);
    dateFormats.set(key, format);
  }
  return format;
}

export function formatMoney(amount: number, currency: string, format?: NumberFormat): string {
  return numbers(locale(format), { style: 'currency', currency }).format(amount);
}

/** A percentage (19, 7.5) as `19 %` / `7,5 %`. */
export function formatPercent(value: number, format?: NumberFormat): string {
  return numbers(locale(format), {
    style: 'percent',
    maximumFractionDigits: 2,
  }).format(value / 100);
}

/**
 * A calendar day (`YYYY-MM-DD`) as the account writes it (`28.11.2026`, `28/11/2026`) when its
 * `dateFormat` is given, else as the user's language reads it; noon UTC keeps it on its day
 * everywhere. No day (null, as for an open end) reads as a dash.
 */
export function formatDate(day: string | null | undefined, format?: DateFormat): string {
  if (day === null || day === undefined || day === '') return '–';
  if (format !== undefined) {
    const [year, month, date] = day.slice(0, 10).split('-');
    const separator = format === 'DD/MM/YYYY' ? '/' : '.';
    return `${date}${separator}${month}${separator}${year}`;
  }
  const date = new Date(`${day.slice(0, 10)}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return dates(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

export function formatDateTime(instant: string | null | undefined): string {
  if (instant === null || instant === undefined || instant === '') return '–';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return dates(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/** A month (`YYYY-MM` or a day in it) in words, e.g. „November 2026“ (`short`: „Nov. 2026“). */
export function formatMonth(month: string, style: 'long' | 'short' = 'long'): string {
  const date = new Date(`${month.slice(0, 7)}-15T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return month;
  return dates(locale(), {
    month: style,
    year: 'numeric',
    timeZone: 'UTC',
  }).format(date);
}

export function formatNumber(value: number): string {
  return numbers(locale()).format(value);
}

/** A size in bytes as MB or GB (1000-based, as plans state their storage). */
export function formatBytes(bytes: number): string {
  const giga = bytes >= 1_000_000_000;
  return numbers(locale(), {
    style: 'unit',
    unit: giga ? 'gigabyte' : 'megabyte',
    maximumFractionDigits: 1,
  }).format(giga ? bytes / 1_000_000_000 : bytes / 1_000_000);
}

/** Today as `YYYY-MM-DD` in the browser's time zone (for date inputs' defaults). */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The formatters bound to the account's formats, as `useFormats()` hands them out. */
export interface Formats {
  /** The account's currency, for amounts that come without one. */
  currency: string;
  money: (amount: number, currency?: string) => string;
  /** A day; none (an open due date) reads as nothing. */
  date: (day: string | null | undefined) => string;
  /** The month of a day, short (`Nov. 2026`). */
  month: (day: string) => string;
  /** The bare number (`19`, `5,5`) for texts that write the percent sign themselves. */
  percent: (value: number) => string;
}

/** The formatters for the account's settings (defaults while they have not arrived). */
export function makeFormats(
  settings: Pick<AccountSettings, 'numberFormat' | 'dateFormat' | 'currency'> | undefined,
): Formats {
  const currency = settings?.currency ?? 'EUR';
  const numberStyle = settings?.numberFormat ?? '1.234,56';
  const days = settings?.dateFormat ?? 'DD.MM.YYYY';
  return {
    currency,
    money: (amount, code = currency) => formatMoney(amount, code, numberStyle),
    date: (day) => (day ? formatDate(day, days) : ''),
    month: (day) => formatMonth(day, 'short'),
    percent: (value) =>
      numbers(numberLocale(numberStyle), { maximumFractionDigits: 2 }).format(value),
  };
}

/** A number for an input field, without grouping (`12,5` / `12.5`). */
export function formatDecimalInput(value: number, format?: NumberFormat): string {
  return numbers(numberLocale(format), {
    useGrouping: false,
    maximumFractionDigits: 20,
  }).format(value);
}

/**
 * Reads what a person typed (`1.234,56` or `1,234.56`, by the account's format) as a number;
 * null when it is no number at all. Range and decimals are the API's to judge.
 */
export function parseDecimal(text: string, format?: NumberFormat): number | null {
  const [group, decimal] = format === '1,234.56' ? [',', '.'] : ['.', ','];
  const plain = text.replace(/\s/g, '').split(group).join('').replace(decimal, '.');
  return /^-?\d+(\.\d+)?$/.test(plain) ? Number(plain) : null;
}

/** A tax rate for a picker or a cell: its name, with the percentage unless the name says it. */
export function taxRateLabel(rate: { name: string; rate: number }, format?: NumberFormat): string {
  const percent = formatPercent(rate.rate, format);
  const plain = (text: string) => text.replace(/\s+/g, ' ');
  return plain(rate.name).includes(plain(percent)) ? rate.name : `${rate.name} (${percent})`;
}
