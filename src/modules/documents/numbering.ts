import type { Executor } from '../../db/records.js';
import type { DocumentRow } from './documents.repository.js';
import * as repo from './documents.repository.js';

/**
 * Invoice numbers (decisions §7, docs/invoicing.md §8): `{YYYY}-{0000}` for invoices and
 * `GS-{YYYY}-{0000}` for credit notes, each from its own gapless per-account, per-year
 * sequence; a number somebody typed by hand is skipped rather than reused.
 */

/** What picks a document's sequence: its type, its invoice type and its year. */
type Numbered = Pick<
  DocumentRow,
  'account_id' | 'document_type' | 'invoice_type' | 'creation_date'
>;

/** The formats in words, as the setup checklist shows them. */
export const NUMBER_FORMATS = { invoice: '{YYYY}-{0000}', creditNote: 'GS-{YYYY}-{0000}' };

function sequenceOf(row: Numbered): { sequence: string; year: number; prefix: string } {
  const credit = row.invoice_type === 'CREDIT_NOTE';
  return {
    sequence: credit ? 'CREDIT_NOTE' : row.document_type,
    year: Number(row.creation_date.slice(0, 4)),
    prefix: credit ? 'GS-' : '',
  };
}

const format = (prefix: string, year: number, n: number) =>
  `${prefix}${year}-${String(n).padStart(4, '0')}`;

/** Takes the next number in the caller's transaction (the sequence row stays locked). */
export async function takeNumber(trx: Executor, row: DocumentRow): Promise<string> {
  const { sequence, year, prefix } = sequenceOf(row);
  let number: string;
  do {
    number = format(
      prefix,
      year,
      await repo.nextSequenceValue(trx, row.account_id, sequence, year),
    );
  } while (await repo.numberTaken(trx, row.account_id, row.document_type, number));
  return number;
}

/**
 * The number the document would get if it became FINAL now, without taking it: what a trial
 * render prints. A concurrent finalization may take it first; the caller then renders again.
 */
export async function provisionalNumber(db: Executor, row: Numbered): Promise<string> {
  const { sequence, year, prefix } = sequenceOf(row);
  let n = (await repo.sequenceValue(db, row.account_id, sequence, year)) + 1;
  while (await repo.numberTaken(db, row.account_id, row.document_type, format(prefix, year, n)))
    n++;
  return format(prefix, year, n);
}
