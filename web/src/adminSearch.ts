/**
 * Typed search parameters of the admin screens (contracts, month end, settings), in the entry
 * chunk with the router: tiny, and the screens themselves stay lazy.
 */
import { searchParser } from './search';

export interface ContractsSearch {
  status?: 'DRAFT' | 'ACTIVE';
  q?: string;
}

export const validateContractsSearch = searchParser<ContractsSearch>({
  status: ['DRAFT', 'ACTIVE'],
  q: 'text',
});

/** The audit trail's filters (the DATEV period is chosen on the page). */
export interface MonthEndSearch {
  action?: string;
  resourceType?: string;
  actorId?: string;
  from?: string;
  to?: string;
}

export const validateMonthEndSearch = searchParser<MonthEndSearch>({
  action: 'text',
  resourceType: 'text',
  actorId: 'text',
  from: 'date',
  to: 'date',
});

export const settingsTabs = ['users', 'tokens', 'webhooks', 'plan', 'account'] as const;
export type SettingsTab = (typeof settingsTabs)[number];

export interface SettingsSearch {
  tab?: SettingsTab;
  /** The webhook endpoint whose deliveries are shown. */
  endpoint?: string;
}

export const validateSettingsSearch = searchParser<SettingsSearch>({
  tab: settingsTabs,
  endpoint: 'text',
});
