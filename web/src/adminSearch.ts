/**
 * Typed search parameters of the admin screens (contracts, month end, settings), in the entry
 * chunk with the router: tiny, and the screens themselves stay lazy.
 */
function text(value: unknown, max = 100): string | undefined {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : undefined;
}

function date(value: unknown): string | undefined {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : undefined;
}

function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

export interface ContractsSearch {
  status?: 'DRAFT' | 'ACTIVE';
  q?: string;
}

export function validateContractsSearch(search: Record<string, unknown>): ContractsSearch {
  return defined({
    status: search.status === 'DRAFT' || search.status === 'ACTIVE' ? search.status : undefined,
    q: text(search.q),
  });
}

/** The audit trail's filters (the DATEV period is chosen on the page). */
export interface MonthEndSearch {
  action?: string;
  resourceType?: string;
  actorId?: string;
  from?: string;
  to?: string;
}

export function validateMonthEndSearch(search: Record<string, unknown>): MonthEndSearch {
  return defined({
    action: text(search.action, 80),
    resourceType: text(search.resourceType, 50),
    actorId: text(search.actorId, 64),
    from: date(search.from),
    to: date(search.to),
  });
}

export const settingsTabs = ['users', 'tokens', 'webhooks', 'plan', 'account'] as const;
export type SettingsTab = (typeof settingsTabs)[number];

export interface SettingsSearch {
  tab?: SettingsTab;
  /** The webhook endpoint whose deliveries are shown. */
  endpoint?: string;
}

export function validateSettingsSearch(search: Record<string, unknown>): SettingsSearch {
  return defined({
    tab: settingsTabs.find((tab) => tab === search.tab),
    endpoint: text(search.endpoint, 64),
  });
}
