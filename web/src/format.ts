/**
 * Money and dates through Intl, in the language the user chose. Amounts and dates come from
 * the API as they are; this only presents them (no rounding or arithmetic of its own).
 */
import i18next from 'i18next';

function locale(): string {
  return i18next.language === 'en' ? 'en-GB' : 'de-DE';
}

export function formatMoney(amount: number, currency: string): string {
  return new Intl.NumberFormat(locale(), { style: 'currency', currency }).format(amount);
}

/** A calendar date of the API (`YYYY-MM-DD`), shown without shifting it by a time zone. */
export function formatDate(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–';
  const [year, month, day] = value.slice(0, 10).split('-').map(Number);
  if (year === undefined || month === undefined || day === undefined) return value;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(
    new Date(Date.UTC(year, month - 1, day)),
  );
}

/** A point in time of the API (ISO date-time), in the browser's time zone. */
export function formatDateTime(value: string | null | undefined): string {
  if (value === null || value === undefined || value === '') return '–';
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(value),
  );
}

/** A month of the API (`YYYY-MM`), e.g. „November 2026“. */
export function formatMonth(value: string): string {
  const [year, month] = value.split('-').map(Number);
  if (year === undefined || month === undefined) return value;
  return new Intl.DateTimeFormat(locale(), {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  }).format(new Date(Date.UTC(year, month - 1, 1)));
}

export function formatNumber(value: number): string {
  return new Intl.NumberFormat(locale()).format(value);
}

export function formatBytes(bytes: number): string {
  return new Intl.NumberFormat(locale(), {
    style: 'unit',
    unit: bytes >= 1_000_000_000 ? 'gigabyte' : 'megabyte',
    maximumFractionDigits: 1,
  }).format(bytes >= 1_000_000_000 ? bytes / 1_000_000_000 : bytes / 1_000_000);
}

/** Today as `YYYY-MM-DD` in the browser's time zone (a default for date fields). */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}
