import type { FieldError } from '../../shared/errors.js';
import { AppError } from '../../shared/errors.js';
import { bodyFieldError } from '../../http/field-rules.js';
import { isoDate, latestDocumentDate } from '../../shared/dates.js';
import { ibanProblem } from '../../shared/iban.js';
import type { Company } from '../account/index.js';
import type { DocumentRow, StoredLine, StoredTaxLine } from './documents.repository.js';
import type { CreateDocument, UpdateDocument } from './documents.schemas.js';

/**
 * What makes an invoice lawful (§14 (4) UStG) and a valid e-invoice (EN 16931, XRechnung
 * 3.0): the invoice fields a client sets, the parties frozen when it becomes FINAL, and the
 * checks that run before it may become FINAL (docs/invoicing.md).
 */

/** The buyer as frozen on a FINAL invoice. */
export interface FrozenBuyer {
  /** The partner's id, null for a typed-in name. */
  id: string | null;
  /**
   * The partner's number (Kundennummer) when the invoice became FINAL: printed on it and
   * written as the buyer identifier (BT-46). Absent on invoices frozen before partners had
   * numbers, whose e-invoices keep the partner id there (the same bytes forever).
   */
  number?: string | null;
  name: string;
  /** The partner's BILLING address (else its first). */
  address: {
    name?: string | null;
    street?: string | null;
    postalCode?: string | null;
    city?: string | null;
    country?: string | null;
    email?: string | null;
  } | null;
  vatId: string | null;
  electronicAddress: { scheme: string; value: string } | null;
  einvoiceFormat: string;
  language: string;
}

/** Seller and buyer as they were when the invoice became FINAL (column `einvoice_parties`). */
export interface FrozenParties {
  seller: Omit<Company, 'version' | 'updatedAt'>;
  buyer: FrozenBuyer;
}

/** The partner columns the invoice rules read. */
export interface PartnerFacts {
  id: string;
  partner_number: string | null;
  name: string;
  addresses: string;
  vat_id: string | null;
  buyer_reference: string | null;
  electronic_address: string | null;
  einvoice_format: string | null;
  language: string | null;
}

const field = (path: string, message: string, code = 'required'): FieldError => ({
  path,
  message,
  code,
});

/** The invoice address: BILLING, else the first address. */
function billingAddress(addresses: string): FrozenBuyer['address'] {
  const list = JSON.parse(addresses) as (NonNullable<FrozenBuyer['address']> & { type?: string })[];
  return list.find((a) => a.type === 'BILLING') ?? list[0] ?? null;
}

/**
 * A domestic address is often written without its country (DIN 5008 prints none): a buyer
 * address without one is taken to be in the seller's country.
 */
function withCountry(address: FrozenBuyer['address'], company: Company): FrozenBuyer['address'] {
  if (!address || address.country || !company.address?.country) return address;
  return { ...address, country: company.address.country };
}

/** Freezes seller and buyer for a FINAL invoice. */
export function freezeParties(
  company: Company,
  partner: PartnerFacts | undefined,
  partnerName: string | null,
): FrozenParties {
  const { version: _v, updatedAt: _u, ...seller } = company;
  return {
    seller,
    buyer: {
      id: partner?.id ?? null,
      number: partner?.partner_number ?? null,
      name: partner?.name ?? partnerName ?? '',
      address: partner ? withCountry(billingAddress(partner.addresses), company) : null,
      vatId: partner?.vat_id ?? null,
      electronicAddress: partner?.electronic_address
        ? (JSON.parse(partner.electronic_address) as FrozenBuyer['electronicAddress'])
        : null,
      einvoiceFormat: partner?.einvoice_format ?? 'ZUGFERD',
      language: partner?.language ?? 'de',
    },
  };
}

/** Whether the buyer wants XRechnung, so its stricter rules (BR-DE-*) apply at finalize. */
export const wantsXRechnung = (format: string) => format.startsWith('XRECHNUNG');

const NO_VAT_CATEGORIES = new Set(['Z', 'E', 'AE', 'K', 'G', 'O']);

/**
 * Every §14 (4) UStG and EN 16931 / XRechnung requirement Kontor can know before an invoice
 * becomes FINAL, collected (not the first only). Paths point at where the data is fixed:
 * `/body/…` the invoice, `/company/…` the seller master data (`PUT /v1/account/company`),
 * `/partner/…` the buyer (`PUT /v1/partners/{id}`).
 */
export function finalizeProblems(row: DocumentRow, parties: FrozenParties): FieldError[] {
  const { seller, buyer } = parties;
  const lines = JSON.parse(row.line_items) as StoredLine[];
  const errors = [...sellerProblems(seller), ...buyerProblems(buyer)];
  // Delivery date or service period (§14 (4) Nr. 6 UStG).
  if (!row.delivery_date && !row.service_period_from)
    errors.push(field('/body/deliveryDate', 'or /body/servicePeriod is required'));
  if (lines.length === 0) errors.push(field('/body/lineItems', 'needs at least one line'));
  errors.push(...vatProblems(lines, JSON.parse(row.tax_breakdown) as StoredTaxLine[], parties));
  errors.push(...paymentProblems(row, seller));
  if (wantsXRechnung(buyer.einvoiceFormat)) {
    if (!row.buyer_reference)
      errors.push(field('/body/buyerReference', 'is required for XRechnung (BT-10, Leitweg-ID)'));
    errors.push(...xrechnungProblems(parties));
  }
  return dedupe(errors);
}

type Seller = FrozenParties['seller'];
type Buyer = FrozenParties['buyer'];

/**
 * Seller: name, full address, tax number or VAT id (§14 (4) Nr. 1, 2 UStG). The seller part of
 * the finalize checks, also what the setup checklist (`GET /v1/account/invoice-readiness`)
 * answers for the company.
 */
export function sellerProblems(seller: Seller): FieldError[] {
  const errors: FieldError[] = [];
  if (!seller.legalName.trim()) errors.push(field('/company/legalName', 'is required'));
  for (const key of ['street', 'postalCode', 'city', 'country'] as const)
    if (!seller.address?.[key]) errors.push(field(`/company/address/${key}`, 'is required'));
  if (!seller.vatId && !seller.taxNumber)
    errors.push(field('/company/taxNumber', 'or /company/vatId is required (§14 (4) Nr. 2 UStG)'));
  return errors;
}

/** Buyer: name and full address (§14 (4) Nr. 1 UStG). */
function buyerProblems(buyer: Buyer): FieldError[] {
  const errors: FieldError[] = [];
  if (!buyer.name.trim()) errors.push(field('/body/partnerId', 'is required: the buyer'));
  if (buyer.id === null)
    errors.push(field('/body/partnerId', 'is required: the buyer’s address comes from it'));
  else
    for (const key of ['street', 'postalCode', 'city', 'country'] as const)
      if (!buyer.address?.[key])
        errors.push(field(`/partner/addresses/BILLING/${key}`, 'is required'));
  return errors;
}

/** VAT categories of the lines and the tax breakdown (EN 16931 BR-S/Z/E/AE/IC/G/O rules). */
function vatProblems(
  lines: StoredLine[],
  taxes: StoredTaxLine[],
  { seller, buyer }: FrozenParties,
): FieldError[] {
  const errors: FieldError[] = [];
  const categories = new Set(taxes.map((t) => t.category ?? 'S'));
  lines.forEach((line, i) => {
    const category = line.taxCategory ?? 'S';
    const at = `/body/lineItems/${i}/taxRateId`;
    if (category === 'S' && line.rateBp <= 0)
      errors.push(field(at, 'a standard-rated (S) tax rate must be above 0 %', 'invalid'));
    if (NO_VAT_CATEGORIES.has(category) && line.rateBp !== 0)
      errors.push(field(at, `a ${category} tax rate must be 0 %`, 'invalid'));
    if (seller.smallBusiness && category !== 'E')
      errors.push(
        field(
          at,
          'must be an exempt (E) rate: the seller is a small business (§19 UStG)',
          'invalid',
        ),
      );
  });
  taxes.forEach((t) => {
    const category = t.category ?? 'S';
    if (NO_VAT_CATEGORIES.has(category) && category !== 'Z' && !t.exemptionReason)
      errors.push(
        field(`/taxRates/${t.taxRateId}/exemptionReason`, `is required for category ${category}`),
      );
  });
  if (categories.has('O') && categories.size > 1)
    errors.push(
      field(
        '/body/lineItems',
        'not subject to VAT (O) cannot be mixed with other categories',
        'invalid',
      ),
    );
  if ((categories.has('AE') || categories.has('K') || categories.has('G')) && !seller.vatId)
    errors.push(field('/company/vatId', 'is required for reverse charge, intra-EU and export'));
  if ((categories.has('AE') || categories.has('K')) && !buyer.vatId)
    errors.push(field('/partner/vatId', 'is required for reverse charge and intra-EU supplies'));
  if (categories.has('Z') && !seller.vatId)
    errors.push(field('/company/vatId', 'is required for zero-rated (Z) supplies'));
  if (categories.has('O') && !seller.registerNumber && !seller.taxNumber)
    errors.push(
      field(
        '/company/registerNumber',
        'or /company/taxNumber is required to identify a seller without VAT id (O)',
      ),
    );
  return errors;
}

/** Payment by transfer needs the seller's IBAN (not for credit notes or nothing to pay). */
function paymentProblems(row: DocumentRow, seller: Seller): FieldError[] {
  if (row.invoice_type === 'CREDIT_NOTE' || Number(row.gross_total) <= 0) return [];
  return bankAccountProblems(seller);
}

/**
 * The seller's first bank account, which invoices name for payment by transfer (BG-17): there
 * must be one with a valid IBAN. Shared by the finalize checks and the setup checklist.
 */
export function bankAccountProblems(seller: Seller): FieldError[] {
  const bank = seller.bankAccounts[0];
  if (!bank) return [field('/company/bankAccounts', 'needs an IBAN for payment by transfer')];
  const problem = ibanProblem(bank.iban);
  return problem ? [field('/company/bankAccounts/0/iban', problem, 'invalid')] : [];
}

/** Where the user fixes a finalize problem, so a client links there without parsing paths. */
export const FIX_AT = [
  'company',
  'bankAccount',
  'partner',
  'document',
  'taxRates',
  'numbering',
] as const;
export type FixAt = (typeof FIX_AT)[number];

/**
 * The `fixAt` of a problem's path: `/company/bankAccounts…` the bank account, other
 * `/company/…` the company, `/partner/…` the partner, `/taxRates/…` a tax rate, `/body/…` (and
 * anything else) the document itself.
 */
export function fixAtOf(path: string): FixAt {
  if (path.startsWith('/company/bankAccounts')) return 'bankAccount';
  if (path.startsWith('/company/')) return 'company';
  if (path.startsWith('/partner/')) return 'partner';
  if (path.startsWith('/taxRates/')) return 'taxRates';
  return 'document';
}

/**
 * What XRechnung needs beyond EN 16931 of the parties (BR-DE-2/5/6/7, PEPPOL-EN16931-R010
 * and R020): seller email and phone, electronic addresses of both (an email stands in).
 * Checked at finalize for XRechnung buyers, and before any XRechnung output.
 */
export function xrechnungProblems(parties: FrozenParties): FieldError[] {
  const { seller, buyer } = parties;
  const errors: FieldError[] = [];
  if (!seller.email) errors.push(field('/company/email', 'is required for XRechnung (BT-43)'));
  if (!seller.phone) errors.push(field('/company/phone', 'is required for XRechnung (BT-42)'));
  if (!buyer.electronicAddress && !buyer.address?.email)
    errors.push(
      field('/partner/electronicAddress', 'or a BILLING email is required for XRechnung (BT-49)'),
    );
  return errors;
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => {
    const key = `${e.path}|${e.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Throws the one 422 problem listing everything an invoice lacks to become FINAL. */
export function assertFinalizable(row: DocumentRow, parties: FrozenParties): void {
  const errors = finalizeProblems(row, parties);
  if (errors.length > 0)
    throw new AppError(
      'invoice_incomplete',
      `The invoice cannot become FINAL: ${errors.length} required item${errors.length > 1 ? 's are' : ' is'} missing or invalid (§14 UStG, EN 16931).`,
      { errors },
    );
}

/** The sales documents: lines, VAT per rate, totals, seller and buyer (invoices and before). */
export const SALES_TYPES: readonly string[] = ['INVOICE', 'QUOTE', 'ORDER_CONFIRMATION'];

/** INVOICE, QUOTE or ORDER_CONFIRMATION: a document with lines and parties. */
export function isSalesType(documentType: string): boolean {
  return SALES_TYPES.includes(documentType);
}

/**
 * What a quote or an order confirmation needs before it becomes FINAL: the seller's name,
 * address and tax number or VAT id, the buyer (a partner with an address) and at least one
 * line. Paths as the invoice's checks (`/company/…`, `/body/…`).
 */
export function salesDocumentProblems(row: DocumentRow, parties: FrozenParties): FieldError[] {
  const lines = JSON.parse(row.line_items) as StoredLine[];
  const errors = [...sellerProblems(parties.seller), ...buyerProblems(parties.buyer)];
  if (lines.length === 0) errors.push(field('/body/lineItems', 'needs at least one line'));
  return dedupe(errors);
}

const INVOICE_KEYS = [
  'deliveryDate',
  'servicePeriod',
  'buyerReference',
  'orderReference',
  'paymentTerms',
  'skontoPercent',
  'skontoDays',
  'note',
] as const;

type InvoiceInput = Pick<CreateDocument & UpdateDocument, (typeof INVOICE_KEYS)[number]>;

/**
 * The invoice fields of a create or update as column values (`undefined` keeps, `null`
 * clears), checked: only for invoices, a period runs forward, Skonto has both parts with at
 * most two decimals. `before` is the stored row on update, to check what results.
 */
export function invoiceValues(
  input: Partial<{ [K in keyof InvoiceInput]: InvoiceInput[K] | null }>,
  documentType: string,
  before?: DocumentRow,
): Partial<DocumentRow> {
  const given = INVOICE_KEYS.filter((k) => input[k] !== undefined && input[k] !== null);
  if (!isSalesType(documentType) && given.length > 0)
    throw invalid(given[0]!, 'is only for INVOICE, QUOTE and ORDER_CONFIRMATION documents');
  const values: Partial<DocumentRow> = {};
  if (input.deliveryDate !== undefined) values.delivery_date = input.deliveryDate;
  if (input.servicePeriod !== undefined) {
    const p = input.servicePeriod;
    if (p && p.from > p.to) throw invalid('servicePeriod/to', 'must not be before from');
    values.service_period_from = p?.from ?? null;
    values.service_period_to = p?.to ?? null;
  }
  if (input.buyerReference !== undefined) values.buyer_reference = input.buyerReference;
  if (input.orderReference !== undefined) values.order_reference = input.orderReference;
  if (input.paymentTerms !== undefined) values.payment_terms = input.paymentTerms;
  if (input.note !== undefined) values.note = input.note;
  if (input.skontoPercent !== undefined) {
    const bp = input.skontoPercent === null ? null : Math.round(input.skontoPercent * 100);
    if (bp !== null && Math.abs(bp - input.skontoPercent! * 100) > 1e-6)
      throw invalid('skontoPercent', 'must have at most 2 decimals');
    values.skonto_bp = bp;
  }
  if (input.skontoDays !== undefined) values.skonto_days = input.skontoDays;
  const skontoBp = values.skonto_bp !== undefined ? values.skonto_bp : (before?.skonto_bp ?? null);
  const skontoDays =
    values.skonto_days !== undefined ? values.skonto_days : (before?.skonto_days ?? null);
  if ((skontoBp === null) !== (skontoDays === null))
    throw invalid(
      skontoBp === null ? 'skontoPercent' : 'skontoDays',
      'is required together with the other Skonto field',
    );
  return values;
}

/** The documents module's 400 for a field of the body (also used by the service). */
export function invalid(name: string, message: string): AppError {
  return new AppError(
    'validation_failed',
    `${name} ${message}.`,
    bodyFieldError(name, message, 'invalid'),
  );
}

/**
 * 400 at `/body/creationDate` when a document would be dated more than one year after
 * today; the schema (`DocumentDate`) already holds it to a real date from 2000-01-01.
 */
export function assertDocumentDate(date: string | undefined, now: Date): void {
  if (date === undefined) return;
  const latest = latestDocumentDate(isoDate(now));
  if (date > latest)
    throw new AppError(
      'validation_failed',
      `creationDate must not be after ${latest}.`,
      bodyFieldError(
        'creationDate',
        `must not be after ${latest} (one year after today)`,
        'out_of_range',
      ),
    );
}
