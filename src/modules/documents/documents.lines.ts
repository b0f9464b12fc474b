import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import {
  DOCUMENT_STATUSES,
  DOCUMENT_TYPES,
  INVOICE_TYPES,
  type DocumentView,
} from './documents.schemas.js';

/**
 * `GET /v1/documents/lines` and `GET /v1/documents/taxes`: the lines and the tax breakdown of
 * the documents a document list selects, one record per line (per rate) with the document it
 * belongs to. They exist for spreadsheets: with `Accept: text/csv` a line (a rate) is a row
 * with its own columns, where the documents' CSV would need a cell of JSON (the documents'
 * CSV leaves `lineItems` and `taxes` out for that reason).
 */

/** The document a line or a tax line belongs to, as both records repeat it. */
const OfDocument = {
  documentId: Type.String({ description: 'The document it belongs to.' }),
  documentType: Type.Enum(DOCUMENT_TYPES, { description: 'The document’s type.' }),
  invoiceType: Nullable(
    Type.Enum(INVOICE_TYPES),
    'Invoices: INVOICE or CREDIT_NOTE; null for contract documents.',
  ),
  documentNumber: Nullable(Type.String(), 'The document’s number (null while a DRAFT).'),
  documentName: Type.String({ description: 'The document’s name.' }),
  status: Type.Enum(DOCUMENT_STATUSES, { description: 'The document’s status.' }),
  creationDate: Type.String({ description: 'The document’s date (YYYY-MM-DD).' }),
  partnerId: Nullable(Type.String(), 'The document’s partner.'),
  partnerName: Nullable(Type.String(), 'Name of the partner.'),
  currency: Type.String({ description: 'The document’s currency (ISO 4217).' }),
};

function ofDocument(d: DocumentView) {
  return {
    documentId: d.id,
    documentType: d.documentType,
    invoiceType: d.invoiceType,
    documentNumber: d.documentNumber,
    documentName: d.name,
    status: d.status,
    creationDate: d.creationDate,
    partnerId: d.partnerId,
    partnerName: d.partnerName,
    currency: d.currency,
  };
}

export const DocumentLineSchema = Type.Object(
  {
    ...OfDocument,
    position: Type.Integer({
      minimum: 1,
      description: 'The line’s place in the document, from 1.',
    }),
    productId: Nullable(Type.String(), 'The product, if the line came from one.'),
    description: Type.String({ description: 'What the line bills.' }),
    quantity: Type.Number({ description: 'Quantity, in `unitCode` units.' }),
    unitCode: Type.String({ description: 'UN/ECE Rec. 20 unit code (BT-130).' }),
    unitPrice: Type.Number({ description: 'Net price per unit in major units of `currency`.' }),
    taxRateId: Type.String({ description: 'The tax rate of the line.' }),
    taxRate: Type.Number({ description: 'The rate applied, in percent.' }),
    taxCategory: Type.String({
      description: 'VAT category of the rate (S, Z, E, AE, K, G, O; BT-151).',
    }),
    netAmount: Type.Number({
      description: 'quantity × unitPrice, rounded half-up to the cent, in major units.',
    }),
  },
  {
    additionalProperties: false,
    description: 'One line of a document, with the document it belongs to.',
  },
);
export type DocumentLine = Static<typeof DocumentLineSchema>;

/** The lines of `documents`, in the documents' order and each document's own. */
export function documentLines(documents: DocumentView[]): DocumentLine[] {
  return documents.flatMap((d) =>
    d.lineItems.map((line, i) => ({
      ...ofDocument(d),
      position: i + 1,
      productId: line.productId,
      description: line.description,
      quantity: line.quantity,
      unitCode: line.unitCode,
      unitPrice: line.unitPrice,
      taxRateId: line.taxRateId,
      taxRate: line.taxRate,
      taxCategory: line.taxCategory,
      netAmount: line.netAmount,
    })),
  );
}

export const DocumentTaxSchema = Type.Object(
  {
    ...OfDocument,
    taxRateId: Type.String({ description: 'The tax rate.' }),
    rate: Type.Number({ description: 'The rate, in percent.' }),
    category: Type.String({ description: 'VAT category (S, Z, E, AE, K, G, O; BT-118).' }),
    exemptionReason: Nullable(Type.String(), 'Why no VAT is charged (BT-120).'),
    exemptionCode: Nullable(Type.String(), 'VATEX code (BT-121).'),
    net: Type.Number({ description: 'Net of the document’s lines at this rate, major units.' }),
    tax: Type.Number({ description: 'VAT on that net, rounded half-up, major units.' }),
  },
  {
    additionalProperties: false,
    description: 'The net and VAT of one tax rate of a document, with the document.',
  },
);
export type DocumentTax = Static<typeof DocumentTaxSchema>;

/** The tax breakdown of `documents`, one record per rate, in the documents' order. */
export function documentTaxes(documents: DocumentView[]): DocumentTax[] {
  return documents.flatMap((d) =>
    d.taxes.map((t) => ({
      ...ofDocument(d),
      taxRateId: t.taxRateId,
      rate: t.rate,
      category: t.category,
      exemptionReason: t.exemptionReason,
      exemptionCode: t.exemptionCode,
      net: t.net,
      tax: t.tax,
    })),
  );
}
