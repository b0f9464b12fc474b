import { searchText } from '../../http/pagination.js';
import { bodyFieldError } from '../../http/field-rules.js';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import type { TemplateRow } from '../document-templates/index.js';
import * as repo from './documents.repository.js';
import type { CreateDocument, UpdateDocument } from './documents.schemas.js';
import { invalid, invoiceValues, isSalesType } from './invoice-rules.js';
import type { priceLines } from './pricing.js';

/* The document record: the row a new document is, and the columns an update sets. */

/** The references of a document, resolved and checked. */
export interface Links {
  contract_id: string | null;
  contract_name: string | null;
  partner_id: string | null;
  partner_name: string | null;
}

/** The file an UPLOADED document is made of. */
export interface NewDocumentFile {
  id: string;
  contentType: string;
  sha256: string | null;
}

/**
 * GENERATED (from a template) or UPLOADED (a file), as given or implied, and the fields that
 * only one source or only invoices take. An invoice without template or file is GENERATED from
 * the account's system invoice layout.
 */
export function sourceOf(input: CreateDocument): 'GENERATED' | 'UPLOADED' {
  const source =
    input.source ??
    (input.templateId
      ? 'GENERATED'
      : input.fileId
        ? 'UPLOADED'
        : isSalesType(input.documentType)
          ? 'GENERATED'
          : undefined);
  if (source === undefined)
    throw new AppError(
      'validation_failed',
      'Give templateId (GENERATED) or fileId (UPLOADED).',
      bodyFieldError('source', 'needs templateId or fileId', 'required'),
    );
  if (source === 'GENERATED' && input.fileId !== undefined)
    throw invalid('fileId', 'is only for UPLOADED documents');
  if (source === 'UPLOADED' && input.templateId !== undefined)
    throw invalid('templateId', 'is only for GENERATED documents');
  if (input.lineItems !== undefined && !isSalesType(input.documentType))
    throw invalid('lineItems', 'are only for INVOICE, QUOTE and ORDER_CONFIRMATION documents');
  if (input.validUntil !== undefined && input.documentType !== 'QUOTE')
    throw invalid('validUntil', 'is only for QUOTE documents');
  if (input.dueDate !== undefined && input.documentType !== 'INVOICE')
    throw invalid('dueDate', 'is only for INVOICE documents');
  return source;
}

/**
 * Where a converted document comes from: the quote or order confirmation, the contract
 * reference it cites and, for an invoice, whether it is a down payment or a final invoice
 * (with the deductions, JSON, of a final invoice).
 */
export interface Origin {
  documentId: string;
  contractReference: string | null;
  billingRole?: 'DOWN_PAYMENT' | 'FINAL';
  deductions?: string;
}

/** A new DRAFT document row at version 1 (finalizing in the same request fills the rest). */
export function newDocumentRow(
  input: CreateDocument,
  p: {
    accountId: string;
    source: 'GENERATED' | 'UPLOADED';
    template: TemplateRow | undefined;
    file: NewDocumentFile | undefined;
    links: Links;
    currency: string;
    priced: Awaited<ReturnType<typeof priceLines>>;
    invoice: ReturnType<typeof invoiceValues>;
    processing: boolean;
    now: Date;
    /** A converted document: the quote or order confirmation it comes from, what it cites. */
    origin?: Origin;
  },
): repo.DocumentRow {
  return {
    id: newId('document'),
    account_id: p.accountId,
    document_type: input.documentType,
    name: input.name,
    search_name: searchText(input.name),
    document_number: input.documentNumber ?? null,
    ...p.links,
    creation_date: input.creationDate,
    due_date: input.dueDate ?? null,
    status: 'DRAFT',
    source: p.source,
    template_id: p.template?.id ?? null,
    file_id: p.file?.id ?? null,
    file_type: p.file?.contentType ?? null,
    pdf_sha256: null,
    currency: p.currency,
    line_items: JSON.stringify(p.priced.lines),
    tax_breakdown: JSON.stringify(p.priced.taxes),
    net_total: p.priced.netMinor,
    tax_total: p.priced.taxMinor,
    gross_total: p.priced.grossMinor,
    fields: JSON.stringify(input.fields ?? {}),
    processing_status: p.processing ? 'QUEUED' : null,
    ...EMPTY_INVOICE_FIELDS,
    ...p.invoice,
    valid_until: input.validUntil ?? null,
    origin_document_id: p.origin?.documentId ?? null,
    contract_reference: p.origin?.contractReference ?? null,
    billing_role: p.origin?.billingRole ?? null,
    down_payment_deductions: p.origin?.deductions ?? null,
    ...repo.NEW_DOCUMENT_HISTORY,
    created_at: p.now.toISOString(),
    updated_at: p.now.toISOString(),
  };
}

/** The invoice columns of a document that has none (contract documents, new rows). */
export const EMPTY_INVOICE_FIELDS = {
  delivery_date: null,
  service_period_from: null,
  service_period_to: null,
  buyer_reference: null,
  order_reference: null,
  payment_terms: null,
  skonto_bp: null,
  skonto_days: null,
  note: null,
  invoice_type: 'INVOICE',
  preceding_document_id: null,
  cancelled_by_document_id: null,
  storno: 0,
  einvoice_parties: null,
  contract_reference: null,
} satisfies Partial<repo.DocumentRow>;

/** The line and total columns of priced lines. */
export function pricedValues(p: Awaited<ReturnType<typeof priceLines>>): Partial<repo.DocumentRow> {
  return {
    line_items: JSON.stringify(p.lines),
    tax_breakdown: JSON.stringify(p.taxes),
    net_total: p.netMinor,
    tax_total: p.taxMinor,
    gross_total: p.grossMinor,
  };
}

/** The columns an update sets from its plain fields (not links, lines or totals). */
export function changedColumns(
  input: UpdateDocument,
  documentType: string,
  before: repo.DocumentRow,
  now: Date,
): Partial<repo.DocumentRow> {
  const values: Partial<repo.DocumentRow> = { updated_at: now.toISOString() };
  if (input.documentType !== undefined) values.document_type = input.documentType;
  if (input.name !== undefined) {
    values.name = input.name;
    values.search_name = searchText(input.name);
  }
  if (input.documentNumber !== undefined) values.document_number = input.documentNumber;
  if (input.creationDate !== undefined) values.creation_date = input.creationDate;
  if (input.dueDate !== undefined) values.due_date = input.dueDate;
  if (documentType !== 'INVOICE') values.due_date = null;
  if (input.fields !== undefined) values.fields = JSON.stringify(input.fields);
  Object.assign(values, invoiceValues(input, documentType, before));
  if (!isSalesType(documentType)) Object.assign(values, EMPTY_INVOICE_FIELDS);
  if (input.validUntil !== undefined) values.valid_until = input.validUntil;
  if (documentType !== 'QUOTE') values.valid_until = null;
  return values;
}
