/**
 * What a template can read (decisions §9): `account`, `company`, `partner`, `contract`,
 * `document`, `invoice`, `today` and the template's `fields`. Callers hand in plain objects
 * shaped like the API's own records (a presented partner or contract fits as it is); this
 * file turns them into the render context, with every documented key present (null when
 * unknown) and money as integer minor units beside its currency.
 */
import { addressesOf, addressView, pickAddress, type AddressView } from './address.js';
import {
  companyView,
  electronicAddressOf,
  type CompanyData,
  type CompanyView,
  type ElectronicAddressData,
} from './company.js';
import { documentView, type DocumentData, type DocumentView } from './document.js';
import type { DateFormat, NumberFormat } from './format.js';
import { invoiceView, type DirectDebitNotice, type InvoiceView } from './invoice.js';
import { invoiceLanguage } from './invoice-labels.js';
import type { PartnerView } from './partner.js';
import { minorOf, stringOrNull } from './values.js';

export type { AddressData, AddressView } from './address.js';
export type { PartnerView } from './partner.js';
export type {
  BankAccountData,
  BankAccountView,
  CompanyData,
  CompanyView,
  ElectronicAddressData,
} from './company.js';
export type {
  DocumentData,
  DocumentView,
  LineItemData,
  LineItemView,
  TaxData,
  TaxView,
} from './document.js';

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
  id?: string | null;
  /** Customer number (Kundennummer): an invoice prints it. */
  partnerNumber?: string | null;
  name: string;
  type?: string;
  description?: string | null;
  website?: string | null;
  /** AddressData items (a presented partner's addresses fit as they are). */
  addresses?: readonly unknown[] | null;
  vatId?: string | null;
  buyerReference?: string | null;
  electronicAddress?: ElectronicAddressData | null;
  einvoiceFormat?: string | null;
  /** `de` or `en`: the language of the invoice layout's fixed texts (default `de`). */
  language?: string | null;
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

/** What the documents module knows of an invoice beyond the document itself. */
export interface InvoiceData {
  /** Settled so far (MARKED payments), in major units of the document's currency. */
  paidAmount?: number | null;
  /** The GiroCode to print, a `data:image/png;base64,…` URI; null: none. */
  giroCode?: string | null;
  /** A credit note that cancels its invoice in full (Storno): titled "Stornorechnung". */
  cancellation?: boolean;
  /** The SEPA pre-notification when the invoice is paid by direct debit. */
  directDebit?: DirectDebitNotice | null;
}

/** Everything a render needs; `fields` holds the supplied field values by key, in API units. */
export interface RenderInput {
  account: AccountData;
  /** The seller's master data; without it the account's name and address stand in. */
  company?: CompanyData | null;
  partner?: PartnerData | null;
  contract?: ContractData | null;
  document?: DocumentData | null;
  invoice?: InvoiceData | null;
  /** The date the letter is written, `YYYY-MM-DD`. */
  today: string;
  fields?: Record<string, unknown> | null;
}

export interface AccountView {
  name: string;
  currency: string;
  dateFormat: DateFormat;
  numberFormat: NumberFormat;
  /** The office address, else the billing address, else the first one. */
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

/** The render context: the views, `today`, and the supplied field values (API units). */
export interface RenderContext {
  account: AccountView;
  company: CompanyView;
  partner: PartnerView | null;
  contract: ContractView | null;
  document: DocumentView | null;
  /** The invoice layout's texts and figures; null without a document. */
  invoice: InvoiceView | null;
  today: string;
  fields: Record<string, unknown>;
}

/**
 * Builds the render context from plain records. The documents module calls it with the
 * account row's settings, the company (`readCompany`), the presented partner and contract
 * (`presentPartner`, `presentContract`) and the presented document, then `renderTemplate`.
 */
export function buildRenderContext(input: RenderInput): RenderContext {
  const { account, partner, contract, document } = input;
  const accountAddresses = addressesOf(account.addresses);
  const partnerAddresses = addressesOf(partner?.addresses);
  // A contract's amounts are in its own currency; the account's when it names none.
  const currency = contract ? (contract.currency ?? account.currency) : null;
  const totalValue = minorOf(contract?.totalValue, currency);
  const accountView: AccountView = {
    name: account.name,
    currency: account.currency,
    dateFormat: account.dateFormat,
    numberFormat: account.numberFormat,
    address: addressView(pickAddress(accountAddresses, ['OFFICE', 'BILLING'])),
    addresses: accountAddresses.map(addressView),
  };
  const language = invoiceLanguage(partner?.language);
  const partnerView: PartnerView | null = partner
    ? {
        name: partner.name,
        partnerNumber: stringOrNull(partner.partnerNumber),
        type: partner.type ?? null,
        description: partner.description ?? null,
        website: partner.website ?? null,
        address: addressView(pickAddress(partnerAddresses, ['BILLING', 'OFFICE'])),
        addresses: partnerAddresses.map(addressView),
        vatId: stringOrNull(partner.vatId),
        buyerReference: stringOrNull(partner.buyerReference),
        electronicAddress: electronicAddressOf(partner.electronicAddress),
        einvoiceFormat: stringOrNull(partner.einvoiceFormat),
        language: partner.language === 'de' || partner.language === 'en' ? partner.language : null,
      }
    : null;
  const company = companyView(input.company, accountView);
  const documentV = document ? documentView(document, account.currency, language) : null;
  return {
    account: accountView,
    company,
    partner: partnerView,
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
    document: documentV,
    invoice: documentV
      ? invoiceView({
          language,
          company,
          partner: partnerView,
          customerNumber: stringOrNull(partner?.partnerNumber),
          document: documentV,
          paidMinor: minorOf(input.invoice?.paidAmount, documentV.currency),
          giroCode: input.invoice?.giroCode ?? null,
          cancellation: input.invoice?.cancellation === true,
          directDebit: input.invoice?.directDebit ?? null,
        })
      : null,
    today: input.today,
    fields: { ...(input.fields ?? {}) },
  };
}
