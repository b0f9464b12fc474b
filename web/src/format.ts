/**
 * Money and dates through Intl, in the language the user chose (the account has no locale of
 * its own in the API yet). Amounts come from the API in major units with their currency.
 */
import { currentLanguage } from './i18n';

const locales = { de: 'de-DE', en: 'en-GB' } as const;

function locale(): string {
  return locales[currentLanguage()];
}

export function formatMoney(amount: number, currency: string): string {
  return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(amount);
}

export function formatPercent(value: number): string {
  return new Intl.NumberFormat(locale(), {
    style: 'percent',
    maximumFractionDigits: 2,
  }).format(value / 100);
}

/**
 * A calendar day (`YYYY-MM-DD`) as the user reads it; noon UTC keeps it on its day everywhere.
 * No day (null, as for an open end) reads as a dash.
 */
export function formatDate(day: string | null | undefined): string {
  if (day === null || day === undefined || day === '') return '–';
  const date = new Date(`${day.slice(0, 10)}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

export function formatDateTime(instant: string | null | undefined): string {
  if (instant === null || instant === undefined || instant === '') return '–';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(
    date,
  );
}

/** A month (`YYYY-MM`) in words, e.g. „November 2026“. */
export function formatMonth(month: string): string {
  const date = new Date(`${month.slice(0, 7)}-15T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return month;
  return new Intl.DateTimeFormat(locale(), {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(date);
}

export function formatNumber(value: number): string {
  return new Intl.NumberFormat(locale()).format(value);
}

/** A size in bytes as MB or GB (1000-based, as plans state their storage). */
export function formatBytes(bytes: number): string {
  const giga = bytes >= 1_000_000_000;
  return new Intl.NumberFormat(locale(), {
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
