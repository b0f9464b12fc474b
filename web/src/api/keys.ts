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
  payments: resource('payments'),
  notes: resource('notes'),
  products: resource('products'),
  bank: resource('bank'),
  dunning: resource('dunning'),
  contracts: resource('contracts'),
  monthEnd: resource('monthEnd'),
  settings: resource('settings'),
} as const;
