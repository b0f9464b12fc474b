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
  /**
   * Every document of `/v1/documents`: invoices, and quotes and order confirmations too (their
   * lists carry `kind: 'quotes'`), so a conversion's one invalidation refreshes both screens.
   */
  invoices: {
    ...resource('invoices'),
    /** What the API says is still missing before the invoice may become FINAL. */
    finalizeCheck: (id: string) => ['invoices', 'detail', id, 'finalize-check'] as const,
    /** The PNG of the PDF's first page (depends on the stored PDF, so under the detail). */
    preview: (id: string) => ['invoices', 'detail', id, 'preview'] as const,
    /** The invoice's payments (their `document` answers the open amount). */
    payments: (id: string) => ['invoices', 'detail', id, 'payments'] as const,
    sendPreview: (id: string) => ['invoices', 'detail', id, 'send-preview'] as const,
    /** The document's customer links (a FINAL invoice or quote), with their views. */
    customerLinks: (id: string) => ['invoices', 'detail', id, 'customer-links'] as const,
  },
  taxRates: resource('taxRates'),
  partners: resource('partners'),
  payments: resource('payments'),
  notes: resource('notes'),
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
  /** The seller's master data (`/v1/account/company`); shares its version with `account`. */
  company: { all: ['company'] as const },
  /** The account's settings (`/v1/account/addresses`: formats, logo). */
  account: { all: ['account'] as const },
  /** The setup checklist (`/v1/account/invoice-readiness`): company, bank, logo, tax rates change it. */
  readiness: { all: ['readiness'] as const },
  /** The invoice number formats (`/v1/documents/numbering`); a save changes the checklist too. */
  invoiceNumbering: { all: ['invoiceNumbering'] as const },
  files: resource('files'),
  datevSettings: { all: ['datevSettings'] as const },
  auditEvents: resource('auditEvents'),
  users: resource('users'),
  apiTokens: resource('apiTokens'),
  webhookEndpoints: {
    ...resource('webhookEndpoints'),
    deliveries: (id: string) => ['webhookEndpoints', 'detail', id, 'deliveries'] as const,
  },
  /**
   * SEPA (`/v1/sepa/…`): a partner's mandates and bank account, the settings, the runs and the
   * dry runs that propose them. A mandate or bank account changes the proposals; a run changes
   * its list, its proposal and the invoices and payments it touched.
   */
  sepa: {
    all: ['sepa'] as const,
    mandates: (partnerId: string) => ['sepa', 'mandates', partnerId] as const,
    bankAccount: (partnerId: string) => ['sepa', 'bankAccount', partnerId] as const,
    settings: () => ['sepa', 'settings'] as const,
    runs: (kind: 'collections' | 'transfers') => ['sepa', 'runs', kind] as const,
    /** One page of the runs (null: the first). */
    runsPage: (kind: 'collections' | 'transfers', cursor: string | null) =>
      ['sepa', 'runs', kind, cursor] as const,
    proposals: () => ['sepa', 'proposal'] as const,
    proposal: (kind: 'collections' | 'transfers', params: Params = {}) =>
      ['sepa', 'proposal', kind, params] as const,
  },
  plans: { all: ['plans'] as const },
  usage: { all: ['usage'] as const },
  /** The same resource as `account` (`/v1/account/addresses`): one key, so a write refreshes both. */
  accountSettings: { all: ['account'] as const },
} as const;
