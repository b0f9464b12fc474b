/**
 * Money and dates through Intl in the language the user reads (the account has no locale of
 * its own yet). Amounts are the API's major units; dates its `YYYY-MM-DD` days, shown as
 * calendar days (UTC), never shifted by the browser's time zone.
 */
import { useTranslation } from 'react-i18next';

const localeOf = (language: string) => (language.startsWith('en') ? 'en-GB' : 'de-DE');

export function formatMoney(amount: number, currency: string, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { style: 'currency', currency }).format(amount);
}

export function formatDate(day: string | null | undefined, language: string): string {
  if (!day) return '';
  const date = new Date(`${day.slice(0, 10)}T00:00:00Z`);
  return new Intl.DateTimeFormat(localeOf(language), {
    dateStyle: 'medium',
    timeZone: 'UTC',
  }).format(date);
}

export function formatPercent(percent: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { maximumFractionDigits: 2 }).format(percent);
}

/** Today as `YYYY-MM-DD` in the browser's own day (what a person means by "today"). */
export function today(): string {
  const now = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** The formatters bound to the current language. */
export function useFormat() {
  const { i18n } = useTranslation();
  const language = i18n.language;
  return {
    money: (amount: number, currency: string) => formatMoney(amount, currency, language),
    date: (day: string | null | undefined) => formatDate(day, language),
    percent: (value: number) => formatPercent(value, language),
  };
}
