/**
 * The account's tax rates, all pages read into one list (an account has a handful; the
 * product form's picker and the settings table both need every one).
 */
import { useQuery } from '@tanstack/react-query';
import type { components } from '@kontor/client';
import { api } from './client';
import { keys } from './keys';
import { ProblemError } from './problems';

export type TaxRate = components['schemas']['TaxRate'];
export type TaxCategory = TaxRate['category'];

export const TAX_CATEGORIES: readonly TaxCategory[] = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'];

async function allTaxRates(): Promise<TaxRate[]> {
  const rates: TaxRate[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await api.GET('/v1/tax-rates', {
      params: { query: { limit: 100, ...(cursor === undefined ? {} : { cursor }) } },
    });
    if (error) throw new ProblemError(error);
    // The route also speaks CSV; without an Accept for it, the answer is the JSON page.
    if (typeof data === 'string') throw new Error('expected a JSON page');
    rates.push(...data.data);
    cursor = data.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return rates;
}

export function useTaxRates() {
  return useQuery({ queryKey: keys.taxRates.lists(), queryFn: allTaxRates });
}
