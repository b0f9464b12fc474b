import type { DocumentRow } from './documents.repository.js';
import type { DocumentView } from './documents.schemas.js';

/* What a final invoice deducts (docs/invoicing.md "Down payments and final invoices"). */

/** A deducted down payment as stored on the final invoice (minor units, rates in bp). */
export interface StoredDeduction {
  documentId: string;
  documentNumber: string;
  creationDate: string;
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
  taxes: { rateBp: number; category: string; netMinor: number; taxMinor: number }[];
}

/** The deductions a row stores (empty for every document but a final invoice). */
export function deductionsOf(row: Pick<DocumentRow, 'down_payment_deductions'>) {
  return row.down_payment_deductions
    ? (JSON.parse(row.down_payment_deductions) as StoredDeduction[])
    : [];
}

/** BT-113: what a final invoice's deducted down payments add up to (gross, minor units). */
export function prepaidMinor(
  row: Pick<DocumentRow, 'down_payment_deductions'>,
  deductions = deductionsOf(row),
): number {
  return deductions.reduce((sum, d) => sum + d.grossMinor, 0);
}

/**
 * Deductions as the API answers them, in major units through `major` (the presenter's
 * converter for the document's currency).
 */
export function presentDeductions(
  deductions: readonly StoredDeduction[],
  major: (minor: number) => number,
): DocumentView['downPaymentDeductions'] {
  return deductions.map((d) => ({
    documentId: d.documentId,
    documentNumber: d.documentNumber,
    creationDate: d.creationDate,
    net: major(d.netMinor),
    tax: major(d.taxMinor),
    gross: major(d.grossMinor),
    taxes: d.taxes.map((t) => ({
      rate: t.rateBp / 100,
      category: t.category,
      net: major(t.netMinor),
      tax: major(t.taxMinor),
    })),
  }));
}
