/**
 * Money and dates in the account's formats (GET /v1/account/addresses: `numberFormat`,
 * `dateFormat`, `currency`), through Intl. The API answers amounts as JSON numbers in major
 * units and dates as YYYY-MM-DD; only how they are written is decided here.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import type { components } from '@kontor/client';
import { api } from './api/client';
import { keys } from './api/keys';
import { ProblemError } from './api/problems';

type Settings = components['schemas']['AccountSettings'];

export interface Formats {
  currency: string;
  money: (amount: number, currency?: string) => string;
  date: (isoDay: string) => string;
  month: (isoDay: string) => string;
}

/** A locale whose separators are the account's number format ("1.234,56" or "1,234.56"). */
function numberLocale(numberFormat: Settings['numberFormat'] | undefined): string {
  return numberFormat === '1,234.56' ? 'en-GB' : 'de-DE';
}

export function makeFormats(
  settings: Pick<Settings, 'numberFormat' | 'dateFormat' | 'currency'> | undefined,
  language: string,
): Formats {
  const locale = numberLocale(settings?.numberFormat);
  const currency: string = settings?.currency ?? 'EUR';
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  const money = (amount: number, code = currency) => {
    let format = moneyFormats.get(code);
    if (format === undefined) {
      format = new Intl.NumberFormat(locale, { style: 'currency', currency: code });
      moneyFormats.set(code, format);
    }
    return format.format(amount);
  };
  const separator = settings?.dateFormat === 'DD/MM/YYYY' ? '/' : '.';
  const date = (isoDay: string) => {
    const [year, month, day] = isoDay.slice(0, 10).split('-');
    return `${day}${separator}${month}${separator}${year}`;
  };
  // Month names follow the UI language; the day is noon UTC so no time zone moves it.
  const monthFormat = new Intl.DateTimeFormat(language, {
    month: 'short',
    year: 'numeric',
    timeZone: 'UTC',
  });
  const month = (isoDay: string) =>
    monthFormat.format(new Date(`${isoDay.slice(0, 10)}T12:00:00Z`));
  return { currency, money, date, month };
}

/**
 * The account's settings (formats, currency); cached, shared by every screen under the one key
 * the settings screens write (`keys.account`), so a change of format shows everywhere at once.
 */
export function useAccountSettings() {
  return useQuery({
    queryKey: keys.account.all,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/account/addresses');
      if (error) throw new ProblemError(error);
      return data;
    },
    staleTime: 5 * 60_000,
  });
}

/** The account's formats in the current UI language (defaults until the settings arrived). */
export function useFormats(): Formats {
  const { i18n } = useTranslation();
  const { data } = useAccountSettings();
  return useMemo(() => makeFormats(data, i18n.language), [data, i18n.language]);
}
