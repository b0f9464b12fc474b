/**
 * Query keys, one factory per resource. A mutation invalidates the key of what it changed
 * (`queryClient.invalidateQueries({ queryKey: keys.partners.all })`), which covers the lists
 * and details beneath it.
 */
type Params = Record<string, string | number | boolean | undefined>;

function resource<const Name extends string>(name: Name) {
  return {
    all: [name] as const,
    lists: () => [name, 'list'] as const,
    list: (params: Params = {}) => [name, 'list', params] as const,
    detail: (id: string) => [name, 'detail', id] as const,
  };
}

export const keys = {
  session: { all: ['session'] as const },
  setup: {
    all: ['setup'] as const,
    link: (token: string) => ['setup', token] as const,
  },
  dashboard: resource('dashboard'),
  invoices: resource('invoices'),
  partners: resource('partners'),
  products: resource('products'),
  bank: {
    ...resource('bank'),
    /** The account's one ACTIVE import (null when none). */
    active: () => ['bank', 'active'] as const,
    /** Pages of an import's transactions beyond the inline first 1000. */
    transactions: (importId: string) => ['bank', 'detail', importId, 'transactions'] as const,
  },
  dunning: {
    ...resource('dunning'),
    /** The dry run as of a day: the letters a run would send. */
    proposal: (date: string) => ['dunning', 'proposal', date] as const,
    settings: () => ['dunning', 'settings'] as const,
  },
  contracts: {
    ...resource('contracts'),
    invoices: (id: string) => ['contracts', 'detail', id, 'invoices'] as const,
  },
  monthEnd: resource('monthEnd'),
  settings: resource('settings'),
  datevSettings: { all: ['datevSettings'] as const },
  taxRates: resource('taxRates'),
  auditEvents: resource('auditEvents'),
  users: resource('users'),
  apiTokens: resource('apiTokens'),
  webhookEndpoints: {
    ...resource('webhookEndpoints'),
    deliveries: (id: string) => ['webhookEndpoints', 'detail', id, 'deliveries'] as const,
  },
  plans: { all: ['plans'] as const },
  usage: { all: ['usage'] as const },
  accountSettings: { all: ['accountSettings'] as const },
} as const;
