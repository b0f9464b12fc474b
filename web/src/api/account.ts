/**
 * The account's settings and the seller's master data, read once and shared by the screens
 * that need them (formats for money, the logo, the company form). Both share one version.
 */
import { useQuery } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { api } from './client';
import { keys } from './keys';
import { ProblemError } from './problems';

export type AccountSettings = components['schemas']['AccountSettings'];
export type Company = components['schemas']['Company'];

export function useAccountSettings() {
  return useQuery({
    queryKey: keys.account.all,
    queryFn: async () => {
      const { data, error } = await api.GET('/v1/account/addresses');
      if (error) throw new ProblemError(error);
      return data;
    },
  });
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
