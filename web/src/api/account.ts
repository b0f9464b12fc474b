/**
 * The account's settings and the seller's master data, read once and shared by the screens
 * that need them (formats for money, the logo, the company form). Both share one version.
 */
import { queryOptions, useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import type { components } from '@kontor/client';
import { makeFormats, type Formats } from '../format';
import { api } from './client';
import { keys } from './keys';
import { ProblemError } from './problems';

export type AccountSettings = components['schemas']['AccountSettings'];
export type Company = components['schemas']['Company'];

/** The one query for the account's settings; screens may add their own `staleTime`. */
export const accountSettingsQuery = queryOptions({
  queryKey: keys.account.all,
  queryFn: async () => {
    const { data, error } = await api.GET('/v1/account/addresses');
    if (error) throw new ProblemError(error);
    return data;
  },
});

export function useAccountSettings() {
  return useQuery(accountSettingsQuery);
}

/**
 * The account's formats for a component. The settings are cached under the one key the
 * settings screens write, so a change of format shows everywhere at once; `useTranslation`
 * re-renders the component when the language (month names) changes.
 */
export function useFormats(): Formats {
  useTranslation();
  const { data } = useQuery({ ...accountSettingsQuery, staleTime: 5 * 60_000 });
  return makeFormats(data);
}

/**
 * Read once and then changed only by the app's own writes (the company form, the logo) or an
 * explicit reload: the form saves at this version, so a background refetch must not move it
 * past a change someone else made (that change has to answer 409, not be overwritten).
 */
export function useCompany() {
  return useQuery({
    queryKey: keys.company.all,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/account/company');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
}
