import type { EInvoice } from '../../shared/einvoice/index.js';
import { majorOf, toMajor } from '../../shared/money.js';
import { eInvoiceProblem, type EInvoiceProblem } from './documents.intake.js';
import { deductionsOf, prepaidMinor, presentDeductions } from './documents.deductions.js';
import type { DocumentView } from './documents.schemas.js';
import {
  todayUtc,
  type DocumentRow,
  type DocumentWithFigures,
  type PaymentFigures,
  type StoredLine,
  type StoredTaxLine,
} from './documents.repository.js';

/** A row with its payment figures and, for a credit note, its invoice's number and date. */
export type DocumentWithPreceding = DocumentWithFigures;

/** What the analysis of a file found, as stored in `analysis` (JSON). */
export interface StoredAnalysis {
  eInvoice: DocumentView['eInvoice'];
  eInvoiceFile?: string | null;
  eInvoiceError?: string | null;
  /** Why the e-invoice was refused (issue 11); absent in analyses stored before. */
  eInvoiceProblems?: EInvoiceProblem[];
  textExcerpt?: string | null;
}

/** The summary of a read e-invoice that the API answers. */
export function eInvoiceSummary(e: EInvoice): NonNullable<DocumentView['eInvoice']> {
  const major = (minor: number) => toMajor(minor, e.currency);
  return {
    syntax: e.syntax,
    profile: e.profileName ?? e.profile ?? null,
    documentNumber: e.documentNumber,
    issueDate: e.issueDate,
    currency: e.currency,
    sellerName: e.seller.name,
    buyerName: e.buyer.name,
    netTotal: major(e.totals.netMinor),
    taxTotal: major(e.totals.taxMinor),
    grossTotal: major(e.totals.grossMinor),
    dueAmount: major(e.totals.dueMinor),
    payeeIban: e.paymentIban ?? null,
  };
}

/** The payee IBAN (BT-84) an uploaded invoice's e-invoice named, or null. */
export function payeeIbanOf(row: Pick<DocumentRow, 'analysis'>): string | null {
  const analysis = row.analysis ? (JSON.parse(row.analysis) as StoredAnalysis) : null;
  return analysis?.eInvoice?.payeeIban ?? null;
}

/**
 * An invoice's `paymentStatus` and `overdue` (decisions §7): the net of its MARKED payments
 * (incoming minus outgoing, so a refund counts back; a vendor invoice paid by outgoing
 * payments counts too) against the gross total. Other documents answer null and false.
 */
/** Whether an invoice's MARKED payments cover its gross total (its `paymentStatus` is PAID). */
export function isPaid(row: DocumentRow & Partial<PaymentFigures>): boolean {
  return row.document_type === 'INVOICE' && paymentState(row).paymentStatus === 'PAID';
}

export function paymentState(
  row: DocumentRow & Partial<PaymentFigures>,
  /** What it deducts as a final invoice (`prepaidMinor`), when the caller has it. */
  prepaid = prepaidMinor(row),
): Pick<DocumentView, 'paymentStatus' | 'overdue'> {
  if (row.document_type !== 'INVOICE') return { paymentStatus: null, overdue: false };
  const settled = Math.abs(row.settled_minor ?? 0);
  // A final invoice asks for its gross total less the down payments it deducts.
  const gross = Math.abs(Number(row.gross_total)) - prepaid;
  const paymentStatus =
    settled === 0 && gross > 0 ? 'UNPAID' : settled < gross ? 'PARTIAL' : 'PAID';
  // A cancelled invoice (Storno) is settled by its credit note: never overdue.
  const overdue =
    row.status === 'FINAL' &&
    row.cancelled_by_document_id === null &&
    row.invoice_type !== 'CREDIT_NOTE' &&
    paymentStatus !== 'PAID' &&
    row.due_date !== null &&
    row.due_date < (row.as_of ?? todayUtc());
  return { paymentStatus, overdue };
}

/**
 * What a FINAL invoice still asks for, in minor units: its gross total less the down payments
 * it deducts (a final invoice), its settled payments and its FINAL credit notes, never below 0 (what a payment and a dunning letter
 * start from); null for drafts, credit notes and contract documents.
 */
export function openMinor(
  row: DocumentRow & Partial<PaymentFigures>,
  /** What it deducts as a final invoice (`prepaidMinor`), when the caller has it. */
  prepaid = prepaidMinor(row),
): number | null {
  if (row.document_type !== 'INVOICE' || row.status !== 'FINAL') return null;
  if (row.invoice_type === 'CREDIT_NOTE') return null;
  const open =
    Number(row.gross_total) -
    prepaid -
    (row.credited_minor ?? 0) -
    Math.abs(row.settled_minor ?? 0);
  return Math.max(0, open);
}

/**
 * Row → response, field by field: nothing reaches the client that is not listed here. Rows
 * read through the repository carry their payment figures; a row without them (just
 * created) has no payments yet. One object literal in the answer's field order (a list
 * presents 25 at a time): each stored JSON column is parsed once, the currency's unit looked
 * up once.
 */
export function presentDocument(
  row: DocumentWithPreceding & { converted_to?: string[] },
): DocumentView {
  const currency = row.currency;
  const major = majorOf(currency);
  const { eInvoice, eInvoiceProblems } = analysisOf(row);
  const deductions = deductionsOf(row);
  const prepaid = prepaidMinor(row, deductions);
  const { paymentStatus, overdue } = paymentState(row, prepaid);
  const open = openMinor(row, prepaid);
  const invoice = row.document_type === 'INVOICE';
  const final = row.billing_role === 'FINAL';
  return {
    id: row.id,
    version: row.version,
    documentType: row.document_type as DocumentView['documentType'],
    name: row.name,
    documentNumber: row.document_number,
    contractId: row.contract_id,
    contractName: row.contract_name,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
    creationDate: row.creation_date,
    dueDate: row.due_date,
    status: row.status as DocumentView['status'],
    source: row.source as DocumentView['source'],
    templateId: row.template_id,
    fileId: row.file_id,
    fileType: row.file_type,
    pdfSha256: row.pdf_sha256,
    currency,
    lineItems: presentLines(row.line_items, major),
    taxes: presentTaxes(row.tax_breakdown, major),
    netTotal: major(row.net_total),
    taxTotal: major(row.tax_total),
    grossTotal: major(row.gross_total),
    paymentStatus,
    overdue,
    openAmount: open === null ? null : major(open),
    paidAt: row.paid_at,
    dunningLevel: row.dunning_level,
    lastDunnedAt: row.last_dunned_at,
    dunningBlocked: row.dunning_blocked === 1,
    fields: (row.fields === '{}' ? {} : JSON.parse(row.fields)) as Record<string, unknown>,
    processingStatus: row.processing_status as DocumentView['processingStatus'],
    processingError: row.processing_error,
    pageCount: row.page_count,
    eInvoice,
    eInvoiceProblems,
    finalizedAt: row.finalized_at,
    sentAt: row.sent_at,
    sentTo: row.sent_to ? (JSON.parse(row.sent_to) as string[]) : [],
    delivery: row.sent_delivery as DocumentView['delivery'],
    // The invoice's own fields (null on contract documents).
    invoiceType: invoice ? invoiceTypeOf(row) : null,
    deliveryDate: row.delivery_date,
    servicePeriod: servicePeriodOf(row),
    buyerReference: row.buyer_reference,
    orderReference: row.order_reference,
    paymentTerms: row.payment_terms,
    skontoPercent: row.skonto_bp === null ? null : Number(row.skonto_bp) / 100,
    skontoDays: row.skonto_days,
    note: row.note,
    precedingDocumentId: row.preceding_document_id,
    precedingDocumentNumber: row.preceding_number ?? null,
    precedingDocumentDate: row.preceding_date ?? null,
    cancelledByDocumentId: row.cancelled_by_document_id,
    // Quotes and the conversion chain; a final invoice's deductions.
    validUntil: row.valid_until ?? null,
    contractReference: row.contract_reference ?? null,
    quoteStatus: (row.quote_status ?? null) as DocumentView['quoteStatus'],
    quoteDecidedAt: row.quote_decided_at ?? null,
    quoteDecidedBy: row.quote_decided_by ?? null,
    originDocumentId: row.origin_document_id ?? null,
    convertedToDocumentIds: row.converted_to ?? [],
    finalInvoice: final,
    downPaymentDeductions: presentDeductions(deductions, major),
    prepaidAmount: final ? major(prepaid) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type Major = (minor: number | string) => number;

function presentLines(json: string, major: Major): DocumentView['lineItems'] {
  return (JSON.parse(json) as StoredLine[]).map((l) => ({
    productId: l.productId,
    description: l.description,
    quantity: l.quantityMilli / 1000,
    unitPrice: major(l.unitPriceMinor),
    taxRateId: l.taxRateId,
    taxRate: l.rateBp / 100,
    taxCategory: l.taxCategory ?? 'S',
    unitCode: l.unitCode ?? 'C62',
    netAmount: major(l.netMinor),
  }));
}

function presentTaxes(json: string, major: Major): DocumentView['taxes'] {
  return (JSON.parse(json) as StoredTaxLine[]).map((t) => ({
    taxRateId: t.taxRateId,
    rate: t.rateBp / 100,
    category: t.category ?? 'S',
    exemptionReason: t.exemptionReason ?? null,
    exemptionCode: t.exemptionCode ?? null,
    net: major(t.netMinor),
    tax: major(t.taxMinor),
  }));
}

/** What the analysis of an uploaded file found: its e-invoice, or why it was refused. */
function analysisOf(
  row: Pick<DocumentRow, 'analysis'>,
): Pick<DocumentView, 'eInvoice' | 'eInvoiceProblems'> {
  const analysis = row.analysis ? (JSON.parse(row.analysis) as StoredAnalysis | null) : null;
  if (!analysis) return { eInvoice: null, eInvoiceProblems: [] };
  // Field by field, as every answer is (the stored JSON is an analysis of its day: a field
  // it kept then that the answer no longer has must not reach the client).
  const e = analysis.eInvoice;
  const problems =
    analysis.eInvoiceProblems ??
    (analysis.eInvoiceError ? [eInvoiceProblem('file_unprocessable', analysis.eInvoiceError)] : []);
  return {
    eInvoice: e
      ? {
          syntax: e.syntax,
          profile: e.profile,
          documentNumber: e.documentNumber,
          issueDate: e.issueDate,
          currency: e.currency,
          sellerName: e.sellerName,
          buyerName: e.buyerName,
          netTotal: e.netTotal,
          taxTotal: e.taxTotal,
          grossTotal: e.grossTotal,
          dueAmount: e.dueAmount,
          // Analyses stored before the payee IBAN was kept have none.
          payeeIban: e.payeeIban ?? null,
        }
      : null,
    eInvoiceProblems: problems.map((p) => ({
      code: p.code,
      message: p.message,
      ruleIds: p.ruleIds,
    })),
  };
}

/** An invoice's type; a down payment invoice answers DOWN_PAYMENT. */
function invoiceTypeOf(row: Pick<DocumentRow, 'billing_role' | 'invoice_type'>) {
  return row.billing_role === 'DOWN_PAYMENT'
    ? 'DOWN_PAYMENT'
    : (row.invoice_type as DocumentView['invoiceType']);
}

function servicePeriodOf(
  row: Pick<DocumentRow, 'service_period_from' | 'service_period_to'>,
): DocumentView['servicePeriod'] {
  return row.service_period_from && row.service_period_to
    ? { from: row.service_period_from, to: row.service_period_to }
    : null;
}
