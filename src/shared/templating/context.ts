/**
 * What a template can read (decisions §9): `account`, `partner`, `contract`, `document`,
 * `today` and the template's `fields`. Callers hand in plain objects shaped like the API's
 * own records (a presented partner or contract fits as it is); this file turns them into the
 * render context, with every documented key present (null when unknown) and money as integer
 * minor units beside its currency.
 */
import { toMinor } from '../money.js';
import type { DateFormat, NumberFormat } from './format.js';

/** An address as the API writes it (AddressSchema); every field optional. */
export interface AddressData {
  type?: string;
  name?: string | null;
  street?: string | null;
  postalCode?: string | null;
  city?: string | null;
  country?: string | null;
  email?: string | null;
  phone?: string | null;
}

/** The account (from its row: name, currency, date_format, number_format, addresses). */
export interface AccountData {
  name: string;
  currency: string;
  dateFormat: DateFormat;
  numberFormat: NumberFormat;
  /** AddressData items; anything else in the list is skipped. */
  addresses?: readonly unknown[] | null;
}

/** A partner as `GET /v1/partners/{id}` answers it (extra keys are ignored). */
export interface PartnerData {
  name: string;
  type?: string;
  description?: string | null;
  website?: string | null;
  /** AddressData items (a presented partner's addresses fit as they are). */
  addresses?: readonly unknown[] | null;
}

/** A contract as `GET /v1/contracts/{id}` answers it: `totalValue` in major units. */
export interface ContractData {
  name: string;
  partnerName?: string | null;
  startDate?: string | null;
  endDate?: string | null;
  totalValue?: number | null;
  currency?: string | null;
  status?: string | null;
  description?: string | null;
  tags?: string[] | null;
  cancellationDeadline?: string | null;
  nextRenewalDate?: string | null;
  advanced?: {
    billingCycle?: string;
    autoRenew?: boolean;
    renewalMonths?: number;
    noticePeriodDays?: number;
    paymentTermDays?: number;
  } | null;
}

/** An invoice line as the API answers it: amounts in major units, `taxRate` in percent. */
export interface LineItemData {
  description?: string | null;
  quantity?: number | null;
  unitPrice?: number | null;
  netAmount?: number | null;
  taxRate?: number | null;
}

/** The VAT of one rate as the API answers it (`taxes` of a document), in major units. */
export interface TaxData {
  rate?: number | null;
  net?: number | null;
  tax?: number | null;
}

/**
 * The document being generated (the documents module fills what it knows); a presented
 * document (`GET /v1/documents/{id}`) fits as it is: amounts in major units of `currency`.
 */
export interface DocumentData {
  name?: string | null;
  documentType?: string | null;
  documentNumber?: string | null;
  creationDate?: string | null;
  dueDate?: string | null;
  currency?: string | null;
  lineItems?: readonly LineItemData[] | null;
  taxes?: readonly TaxData[] | null;
  netTotal?: number | null;
  taxTotal?: number | null;
  grossTotal?: number | null;
}

/** Everything a render needs; `fields` holds the supplied field values by key, in API units. */
export interface RenderInput {
  account: AccountData;
  partner?: PartnerData | null;
  contract?: ContractData | null;
  document?: DocumentData | null;
  /** The date the letter is written, `YYYY-MM-DD`. */
  today: string;
  fields?: Record<string, unknown> | null;
}

type Nullable<T> = { [K in keyof T]: T[K] | null };

export type AddressView = Nullable<Required<Omit<AddressData, 'type'>>> & { type: string | null };

export interface AccountView {
  name: string;
  currency: string;
  dateFormat: DateFormat;
  numberFormat: NumberFormat;
  /** The office address, else the billing address, else the first one. */
  address: AddressView;
  addresses: AddressView[];
}

export interface PartnerView {
  name: string;
  type: string | null;
  description: string | null;
  website: string | null;
  /** The billing address, else the office address, else the first one. */
  address: AddressView;
  addresses: AddressView[];
}

export interface ContractView {
  name: string;
  partnerName: string | null;
  startDate: string | null;
  endDate: string | null;
  /** Integer minor units of `currency`: write it with `| money: contract.currency`. */
  totalValue: number | null;
  currency: string | null;
  status: string | null;
  description: string | null;
  tags: string[];
  cancellationDeadline: string | null;
  nextRenewalDate: string | null;
  noticePeriodDays: number | null;
  renewalMonths: number | null;
  autoRenew: boolean | null;
  billingCycle: string | null;
  paymentTermDays: number | null;
}

/** An invoice line: money in integer minor units of the document's currency. */
export interface LineItemView {
  description: string | null;
  /** Decimal quantity: write it with `| number`. */
  quantity: number | null;
  /** Minor units: write it with `| money: document.currency`. */
  unitPrice: number | null;
  netAmount: number | null;
  /** Percent, e.g. 19 or 5.5: write it with `| number`. */
  taxRate: number | null;
}

/** The VAT of one rate (on the net sum of its lines), in minor units. */
export interface TaxView {
  rate: number | null;
  net: number | null;
  tax: number | null;
}

export interface DocumentView {
  name: string | null;
  documentType: string | null;
  documentNumber: string | null;
  creationDate: string | null;
  dueDate: string | null;
  /** The currency of the amounts below; the account's when the document names none. */
  currency: string;
  lineItems: LineItemView[];
  taxes: TaxView[];
  /** Totals in integer minor units of `currency`. */
  netTotal: number | null;
  taxTotal: number | null;
  grossTotal: number | null;
}

/** The render context: the views, `today`, and the supplied field values (API units). */
export interface RenderContext {
  account: AccountView;
  partner: PartnerView | null;
  contract: ContractView | null;
  document: DocumentView | null;
  today: string;
  fields: Record<string, unknown>;
}

function addressView(a: AddressData | undefined): AddressView {
  const member = (key: keyof AddressData) => {
    const value = a?.[key];
    return typeof value === 'string' ? value : null;
  };
  return {
    type: member('type'),
    name: member('name'),
    street: member('street'),
    postalCode: member('postalCode'),
    city: member('city'),
    country: member('country'),
    email: member('email'),
    phone: member('phone'),
  };
}

/** The items of an address list that are objects (addresses come from stored JSON). */
function addressesOf(list: readonly unknown[] | null | undefined): AddressData[] {
  return (list ?? []).filter(
    (a): a is AddressData => typeof a === 'object' && a !== null && !Array.isArray(a),
  );
}

function pick(addresses: AddressData[], order: string[]): AddressData | undefined {
  for (const type of order) {
    const found = addresses.find((a) => a.type === type);
    if (found) return found;
  }
  return addresses[0];
}

/** Major units → minor units of `currency`; null when absent or not writable in it. */
function minorOf(amount: unknown, currency: string | null): number | null {
  if (typeof amount !== 'number' || currency === null) return null;
  try {
    return toMinor(amount, currency) ?? null;
  } catch {
    return null; // an unknown currency: the amount cannot be written
  }
}

const numberOrNull = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/** Items of a list that are objects (lines and taxes may come from stored JSON). */
function objectsOf<T extends object>(list: readonly unknown[] | null | undefined): T[] {
  return (list ?? []).filter(
    (item): item is T => typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

function documentView(document: DocumentData, accountCurrency: string): DocumentView {
  const currency = document.currency ?? accountCurrency;
  return {
    name: document.name ?? null,
    documentType: document.documentType ?? null,
    documentNumber: document.documentNumber ?? null,
    creationDate: document.creationDate ?? null,
    dueDate: document.dueDate ?? null,
    currency,
    lineItems: objectsOf<LineItemData>(document.lineItems).map((l) => ({
      description: typeof l.description === 'string' ? l.description : null,
      quantity: numberOrNull(l.quantity),
      unitPrice: minorOf(l.unitPrice, currency),
      netAmount: minorOf(l.netAmount, currency),
      taxRate: numberOrNull(l.taxRate),
    })),
    taxes: objectsOf<TaxData>(document.taxes).map((t) => ({
      rate: numberOrNull(t.rate),
      net: minorOf(t.net, currency),
      tax: minorOf(t.tax, currency),
    })),
    netTotal: minorOf(document.netTotal, currency),
    taxTotal: minorOf(document.taxTotal, currency),
    grossTotal: minorOf(document.grossTotal, currency),
  };
}

/**
 * Builds the render context from plain records. The documents module calls it with the
 * account row's settings, the presented partner and contract (`presentPartner`,
 * `presentContract`) and what it knows of the document, then `renderTemplate`.
 */
export function buildRenderContext(input: RenderInput): RenderContext {
  const { account, partner, contract, document } = input;
  const accountAddresses = addressesOf(account.addresses);
  const partnerAddresses = addressesOf(partner?.addresses);
  // A contract's amounts are in its own currency; the account's when it names none.
  const currency = contract ? (contract.currency ?? account.currency) : null;
  const totalValue = minorOf(contract?.totalValue, currency);
  return {
    account: {
      name: account.name,
      currency: account.currency,
      dateFormat: account.dateFormat,
      numberFormat: account.numberFormat,
      address: addressView(pick(accountAddresses, ['OFFICE', 'BILLING'])),
      addresses: accountAddresses.map(addressView),
    },
    partner: partner
      ? {
          name: partner.name,
          type: partner.type ?? null,
          description: partner.description ?? null,
          website: partner.website ?? null,
          address: addressView(pick(partnerAddresses, ['BILLING', 'OFFICE'])),
          addresses: partnerAddresses.map(addressView),
        }
      : null,
    contract: contract
      ? {
          name: contract.name,
          partnerName: contract.partnerName ?? null,
          startDate: contract.startDate ?? null,
          endDate: contract.endDate ?? null,
          totalValue,
          currency,
          status: contract.status ?? null,
          description: contract.description ?? null,
          tags: contract.tags ?? [],
          cancellationDeadline: contract.cancellationDeadline ?? null,
          nextRenewalDate: contract.nextRenewalDate ?? null,
          noticePeriodDays: contract.advanced?.noticePeriodDays ?? null,
          renewalMonths: contract.advanced?.renewalMonths ?? null,
          autoRenew: contract.advanced?.autoRenew ?? null,
          billingCycle: contract.advanced?.billingCycle ?? null,
          paymentTermDays: contract.advanced?.paymentTermDays ?? null,
        }
      : null,
    document: document ? documentView(document, account.currency) : null,
    today: input.today,
    fields: { ...(input.fields ?? {}) },
  };
}
