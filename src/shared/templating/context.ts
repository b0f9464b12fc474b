/**
 * What a template can read (decisions §9): `account`, `company`, `partner`, `contract`,
 * `document`, `invoice`, `today` and the template's `fields`. Callers hand in plain objects
 * shaped like the API's own records (a presented partner or contract fits as it is); this
 * file turns them into the render context, with every documented key present (null when
 * unknown) and money as integer minor units beside its currency.
 */
import { toMinor } from '../money.js';
import type { DateFormat, NumberFormat } from './format.js';
import {
  invoiceLanguage,
  invoiceView,
  unitName,
  type InvoiceLanguage,
  type InvoiceView,
} from './invoice.js';

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

/** An electronic address (BT-34/BT-49): scheme (EAS code, e.g. `EM` e-mail) and value. */
export interface ElectronicAddressData {
  scheme: string;
  value: string;
}

/** One of the seller's bank accounts. */
export interface BankAccountData {
  iban: string;
  bic?: string | null;
  accountHolder?: string | null;
  bankName?: string | null;
}

/**
 * The seller's master data as the account module's `readCompany` answers it; every member is
 * optional, so an account without company data renders with the account's name and address.
 */
export interface CompanyData {
  legalName?: string | null;
  address?: Pick<AddressData, 'street' | 'postalCode' | 'city' | 'country'> | null;
  vatId?: string | null;
  taxNumber?: string | null;
  registerCourt?: string | null;
  registerNumber?: string | null;
  managingDirectors?: readonly string[] | null;
  email?: string | null;
  phone?: string | null;
  website?: string | null;
  electronicAddress?: ElectronicAddressData | null;
  bankAccounts?: readonly BankAccountData[] | null;
  smallBusiness?: boolean | null;
  defaultPaymentTermDays?: number | null;
}

/** A partner as `GET /v1/partners/{id}` answers it (extra keys are ignored). */
export interface PartnerData {
  /** The partner's id: an invoice prints it as the customer number. */
  id?: string | null;
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

/** An invoice line as the API answers it: amounts in major units, `taxRate` in percent. */
export interface LineItemData {
  description?: string | null;
  quantity?: number | null;
  unitPrice?: number | null;
  netAmount?: number | null;
  taxRate?: number | null;
  /** VAT category of the line's rate (S, Z, E, AE, K, G, O). */
  taxCategory?: string | null;
  /** UN/ECE Rec. 20 unit code, e.g. `C62` (one), `HUR` (hour). */
  unitCode?: string | null;
}

/** The VAT of one rate as the API answers it (`taxes` of a document), in major units. */
export interface TaxData {
  rate?: number | null;
  net?: number | null;
  tax?: number | null;
  category?: string | null;
  exemptionReason?: string | null;
  exemptionCode?: string | null;
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
  /** INVOICE or CREDIT_NOTE (an invoice without one is an INVOICE). */
  invoiceType?: string | null;
  deliveryDate?: string | null;
  servicePeriod?: { from: string; to: string } | null;
  buyerReference?: string | null;
  orderReference?: string | null;
  paymentTerms?: string | null;
  skontoPercent?: number | null;
  skontoDays?: number | null;
  note?: string | null;
  precedingDocumentId?: string | null;
  precedingDocumentNumber?: string | null;
  precedingDocumentDate?: string | null;
  cancelledByDocumentId?: string | null;
}

/** What the documents module knows of an invoice beyond the document itself. */
export interface InvoiceData {
  /** Settled so far (MARKED payments), in major units of the document's currency. */
  paidAmount?: number | null;
  /** The GiroCode to print, a `data:image/png;base64,…` URI; null: none. */
  giroCode?: string | null;
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

export interface BankAccountView {
  iban: string;
  /** The IBAN in groups of four, as printed on paper (`DE89 3704 0044 …`). */
  ibanGrouped: string;
  bic: string | null;
  accountHolder: string | null;
  bankName: string | null;
}

/** The seller: the company master data, with the account standing in for what is missing. */
export interface CompanyView {
  /** The legal name; the account's name when not set. */
  legalName: string;
  /** The company address; the account's address when not set. */
  address: AddressView;
  vatId: string | null;
  taxNumber: string | null;
  registerCourt: string | null;
  registerNumber: string | null;
  managingDirectors: string[];
  /** E-mail and phone; the account address's when not set. */
  email: string | null;
  phone: string | null;
  website: string | null;
  electronicAddress: ElectronicAddressData | null;
  bankAccounts: BankAccountView[];
  /** Kleinunternehmer (§ 19 UStG): no VAT is charged. */
  smallBusiness: boolean;
  defaultPaymentTermDays: number | null;
}

export interface PartnerView {
  name: string;
  type: string | null;
  description: string | null;
  website: string | null;
  /** The billing address, else the office address, else the first one. */
  address: AddressView;
  addresses: AddressView[];
  vatId: string | null;
  buyerReference: string | null;
  electronicAddress: ElectronicAddressData | null;
  einvoiceFormat: string | null;
  /** `de` or `en`; null when the partner names none (the invoice is then German). */
  language: InvoiceLanguage | null;
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
  taxCategory: string | null;
  unitCode: string | null;
  /** The unit for people in the invoice's language (`Std.`, `Stk.`, `days`); empty for C62. */
  unit: string;
}

/** The VAT of one rate (on the net sum of its lines), in minor units. */
export interface TaxView {
  rate: number | null;
  net: number | null;
  tax: number | null;
  /** VAT category (S, Z, E, AE, K, G, O); S when the document names none. */
  category: string;
  exemptionReason: string | null;
  exemptionCode: string | null;
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
  /** INVOICE or CREDIT_NOTE for invoices; null for other documents. */
  invoiceType: string | null;
  deliveryDate: string | null;
  servicePeriod: { from: string; to: string } | null;
  buyerReference: string | null;
  orderReference: string | null;
  paymentTerms: string | null;
  skontoPercent: number | null;
  skontoDays: number | null;
  note: string | null;
  precedingDocumentId: string | null;
  precedingDocumentNumber: string | null;
  precedingDocumentDate: string | null;
  cancelledByDocumentId: string | null;
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
const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function electronicAddressOf(value: unknown): ElectronicAddressData | null {
  if (typeof value !== 'object' || value === null) return null;
  const { scheme, value: address } = value as Partial<ElectronicAddressData>;
  return typeof scheme === 'string' && typeof address === 'string'
    ? { scheme, value: address }
    : null;
}

function companyView(company: CompanyData | null | undefined, account: AccountView): CompanyView {
  const c = company ?? {};
  const own = c.address ?? null;
  return {
    legalName: c.legalName ?? account.name,
    address: own ? addressView({ ...own, type: 'OFFICE' }) : account.address,
    vatId: c.vatId ?? null,
    taxNumber: c.taxNumber ?? null,
    registerCourt: c.registerCourt ?? null,
    registerNumber: c.registerNumber ?? null,
    managingDirectors: (c.managingDirectors ?? []).filter((d) => typeof d === 'string'),
    email: c.email ?? account.address.email,
    phone: c.phone ?? account.address.phone,
    website: c.website ?? null,
    electronicAddress: electronicAddressOf(c.electronicAddress),
    bankAccounts: objectsOf<BankAccountData>(c.bankAccounts)
      .filter((b) => typeof b.iban === 'string' && b.iban !== '')
      .map((b) => {
        const iban = b.iban.replace(/\s+/g, '').toUpperCase();
        return {
          iban,
          ibanGrouped: iban.replace(/(.{4})(?=.)/g, '$1 '),
          bic: b.bic ?? null,
          accountHolder: b.accountHolder ?? null,
          bankName: b.bankName ?? null,
        };
      }),
    smallBusiness: c.smallBusiness === true,
    defaultPaymentTermDays: numberOrNull(c.defaultPaymentTermDays),
  };
}

/** Items of a list that are objects (lines and taxes may come from stored JSON). */
function objectsOf<T extends object>(list: readonly unknown[] | null | undefined): T[] {
  return (list ?? []).filter(
    (item): item is T => typeof item === 'object' && item !== null && !Array.isArray(item),
  );
}

function documentView(
  document: DocumentData,
  accountCurrency: string,
  language: InvoiceLanguage,
): DocumentView {
  const currency = document.currency ?? accountCurrency;
  const period = document.servicePeriod;
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
      taxCategory: stringOrNull(l.taxCategory),
      unitCode: stringOrNull(l.unitCode),
      unit: unitName(stringOrNull(l.unitCode), numberOrNull(l.quantity), language),
    })),
    taxes: objectsOf<TaxData>(document.taxes).map((t) => ({
      rate: numberOrNull(t.rate),
      net: minorOf(t.net, currency),
      tax: minorOf(t.tax, currency),
      category: stringOrNull(t.category) ?? 'S',
      exemptionReason: stringOrNull(t.exemptionReason),
      exemptionCode: stringOrNull(t.exemptionCode),
    })),
    netTotal: minorOf(document.netTotal, currency),
    taxTotal: minorOf(document.taxTotal, currency),
    grossTotal: minorOf(document.grossTotal, currency),
    invoiceType:
      stringOrNull(document.invoiceType) ??
      (document.documentType === 'INVOICE' ? 'INVOICE' : null),
    deliveryDate: stringOrNull(document.deliveryDate),
    servicePeriod:
      period && typeof period.from === 'string' && typeof period.to === 'string'
        ? { from: period.from, to: period.to }
        : null,
    buyerReference: stringOrNull(document.buyerReference),
    orderReference: stringOrNull(document.orderReference),
    paymentTerms: stringOrNull(document.paymentTerms),
    skontoPercent: numberOrNull(document.skontoPercent),
    skontoDays: numberOrNull(document.skontoDays),
    note: stringOrNull(document.note),
    precedingDocumentId: stringOrNull(document.precedingDocumentId),
    precedingDocumentNumber: stringOrNull(document.precedingDocumentNumber),
    precedingDocumentDate: stringOrNull(document.precedingDocumentDate),
    cancelledByDocumentId: stringOrNull(document.cancelledByDocumentId),
  };
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
    address: addressView(pick(accountAddresses, ['OFFICE', 'BILLING'])),
    addresses: accountAddresses.map(addressView),
  };
  const language = invoiceLanguage(partner?.language);
  const partnerView: PartnerView | null = partner
    ? {
        name: partner.name,
        type: partner.type ?? null,
        description: partner.description ?? null,
        website: partner.website ?? null,
        address: addressView(pick(partnerAddresses, ['BILLING', 'OFFICE'])),
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
          partnerId: stringOrNull(partner?.id),
          document: documentV,
          paidMinor: minorOf(input.invoice?.paidAmount, documentV.currency),
          giroCode: input.invoice?.giroCode ?? null,
        })
      : null,
    today: input.today,
    fields: { ...(input.fields ?? {}) },
  };
}
