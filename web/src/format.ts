/**
 * Money and dates through Intl, in the language the user chose (the account has no locale of
 * its own in the API yet). Amounts come from the API in major units with their currency.
 */
import { useTranslation } from 'react-i18next';
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

/** A calendar day (`YYYY-MM-DD`) as the user reads it; noon UTC keeps it on its day everywhere. */
export function formatDate(day: string): string {
  const date = new Date(`${day.slice(0, 10)}T12:00:00Z`);
  if (Number.isNaN(date.getTime())) return day;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

export function formatDateTime(instant: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(
    date,
  );
}

/** Today as `YYYY-MM-DD` in the browser's time zone (for date inputs' defaults). */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/**
 * The formatters for a component: `useTranslation` re-renders it when the language changes.
 * `percent` is the bare number (`19`, `5,5`) for texts that write the sign themselves.
 */
export function useFormat() {
  useTranslation();
  return {
    money: formatMoney,
    date: (day: string | null | undefined) => (day ? formatDate(day) : ''),
    percent: (value: number) =>
      new Intl.NumberFormat(locale(), { maximumFractionDigits: 2 }).format(value),
  };
}
