/**
 * The `document` of the render context: a presented document (`GET /v1/documents/{id}`) with
 * its amounts turned into integer minor units of its currency.
 */
import { unitName, type InvoiceLanguage } from './invoice-labels.js';
import { minorOf, numberOrNull, objectsOf, stringOrNull } from './values.js';

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

/** A down payment a final invoice deducts, as the API answers it (major units). */
export interface DeductionData {
  documentNumber?: string | null;
  creationDate?: string | null;
  net?: number | null;
  tax?: number | null;
  gross?: number | null;
  taxes?: readonly TaxData[] | null;
}

/** A deducted down payment in minor units. */
export interface DeductionView {
  documentNumber: string | null;
  creationDate: string | null;
  net: number | null;
  tax: number | null;
  gross: number | null;
  taxes: { rate: number | null; category: string; net: number | null; tax: number | null }[];
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
  /** A final invoice: the down payments it deducts, in major units. */
  downPaymentDeductions?: readonly DeductionData[] | null;
  /** A final invoice: their gross sum (BT-113), in major units. */
  prepaidAmount?: number | null;
  validUntil?: string | null;
  originDocumentNumber?: string | null;
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
  /** A final invoice: the down payments it deducts (§ 14 (5) UStG), in minor units. */
  downPaymentDeductions: DeductionView[];
  /** A final invoice: the deducted gross sum (BT-113) in minor units; null otherwise. */
  prepaidAmount: number | null;
  /** Quotes: the last day the quote can be accepted (gültig bis). */
  validUntil: string | null;
  /** A converted document: the number of the quote or order confirmation it came from. */
  originDocumentNumber: string | null;
}

/** The document view; `language` names the units of the lines. */
export function documentView(
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
    downPaymentDeductions: objectsOf<DeductionData>(document.downPaymentDeductions).map((d) => ({
      documentNumber: stringOrNull(d.documentNumber),
      creationDate: stringOrNull(d.creationDate),
      net: minorOf(d.net, currency),
      tax: minorOf(d.tax, currency),
      gross: minorOf(d.gross, currency),
      taxes: objectsOf<TaxData>(d.taxes).map((t) => ({
        rate: numberOrNull(t.rate),
        category: stringOrNull(t.category) ?? 'S',
        net: minorOf(t.net, currency),
        tax: minorOf(t.tax, currency),
      })),
    })),
    prepaidAmount: minorOf(document.prepaidAmount, currency),
    validUntil: stringOrNull(document.validUntil),
    originDocumentNumber: stringOrNull(document.originDocumentNumber),
  };
}
