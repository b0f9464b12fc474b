import type { Executor } from '../../db/records.js';
import type { FieldError } from '../../shared/errors.js';
import type { DocumentRow } from './documents.repository.js';
import * as repo from './documents.repository.js';

/**
 * Invoice numbers (decisions §7, docs/invoicing.md §8): each account numbers invoices, credit
 * notes, quotes and order confirmations by its own formats (`GET/PUT /v1/documents/numbering`;
 * defaults `{YYYY}-{0000}`, `GS-{YYYY}-{0000}`, `AN-{YYYY}-{0000}` and `AB-{YYYY}-{0000}`), each format from its own gapless sequence, per year
 * when the format shows the year, else never restarting. A number that is already used (typed
 * by hand, or produced by an earlier format) is skipped rather than reused.
 */

/** What picks a document's sequence: its type, its invoice type and its date. */
type Numbered = Pick<
  DocumentRow,
  'account_id' | 'document_type' | 'invoice_type' | 'creation_date'
>;

export interface NumberFormats {
  invoice: string;
  creditNote: string;
  quote: string;
  orderConfirmation: string;
}

/** The formats of an account that never saved its own. */
export const DEFAULT_NUMBER_FORMATS: NumberFormats = {
  invoice: '{YYYY}-{0000}',
  creditNote: 'GS-{YYYY}-{0000}',
  quote: 'AN-{YYYY}-{0000}',
  orderConfirmation: 'AB-{YYYY}-{0000}',
};

/** The documents Kontor numbers when they become FINAL: invoices, quotes, order confirmations. */
export const NUMBERED_TYPES: readonly string[] = ['INVOICE', 'QUOTE', 'ORDER_CONFIRMATION'];

/** The formats of a saved row (a null quote or order confirmation format: the default). */
export function formatsOf(row: {
  invoice_format: string;
  credit_note_format: string;
  quote_format: string | null;
  order_confirmation_format: string | null;
}): NumberFormats {
  return {
    invoice: row.invoice_format,
    creditNote: row.credit_note_format,
    quote: row.quote_format ?? DEFAULT_NUMBER_FORMATS.quote,
    orderConfirmation: row.order_confirmation_format ?? DEFAULT_NUMBER_FORMATS.orderConfirmation,
  };
}

/** Longest number a format may render (with the counter at its width): DATEV's Belegfeld 1 holds 36. */
export const MAX_NUMBER_LENGTH = 30;
export const COUNTER_MIN_DIGITS = 3;
export const COUNTER_MAX_DIGITS = 8;

/**
 * The schema's pattern: literal letters, digits, `-`, `_` and `/` (what DATEV's Belegfeld 1
 * keeps as it is; a `.` or a space would be changed in the export) and the tokens.
 */
export const FORMAT_PATTERN = '^([A-Za-z0-9_/-]|\\{(YYYY|YY|MM|0+)\\})+$';

const TOKEN = /\{(YYYY|YY|MM|0+)\}/g;

/** The account's formats: its saved ones, else the defaults. */
export async function numberFormats(db: Executor, accountId: string): Promise<NumberFormats> {
  const row = await repo.findNumbering(db, accountId);
  return row ? formatsOf(row) : DEFAULT_NUMBER_FORMATS;
}

/**
 * What is wrong with a format the schema let through, at `path`: exactly one counter of 3–8
 * digits, a letter, digit or token first (a leading `-` would become `_` in DATEV), and at
 * most 30 characters rendered.
 */
export function formatProblems(format: string, path: string): FieldError[] {
  const counters = [...format.matchAll(TOKEN)].filter((m) => m[1]!.startsWith('0'));
  const problems: FieldError[] = [];
  if (counters.length !== 1)
    problems.push({
      path,
      message: 'needs exactly one counter such as {0000}',
      code: 'invalid_format',
    });
  for (const c of counters) {
    const digits = c[1]!.length;
    if (digits < COUNTER_MIN_DIGITS || digits > COUNTER_MAX_DIGITS)
      problems.push({
        path,
        message: `the counter {${c[1]}} must have ${COUNTER_MIN_DIGITS} to ${COUNTER_MAX_DIGITS} digits`,
        code: 'invalid_format',
      });
  }
  if (/^[-_/]/.test(format))
    problems.push({
      path,
      message: 'must start with a letter, a digit or a token',
      code: 'invalid_format',
    });
  const length = render(format, 2026, 12, 1).length;
  if (length > MAX_NUMBER_LENGTH)
    problems.push({
      path,
      message: `renders ${length} characters; at most ${MAX_NUMBER_LENGTH} are allowed`,
      code: 'too_long',
    });
  return problems;
}

/** The number a format gives for a date's year and month and a counter value. */
export function render(format: string, year: number, month: number, n: number): string {
  return format.replace(TOKEN, (_, token: string) => {
    if (token === 'YYYY') return String(year);
    if (token === 'YY') return String(year % 100).padStart(2, '0');
    if (token === 'MM') return String(month).padStart(2, '0');
    return String(n).padStart(token.length, '0');
  });
}

/**
 * The sequence a document counts in: the default formats keep the rows they always had
 * (`INVOICE`, `CREDIT_NOTE`), a custom format has its own, and a format without a year token
 * counts in year 0, so it never restarts.
 */
function sequenceOf(
  row: Numbered,
  formats: NumberFormats,
): { sequence: string; year: number; format: (n: number) => string } {
  const credit = row.invoice_type === 'CREDIT_NOTE';
  const key: keyof NumberFormats = credit
    ? 'creditNote'
    : row.document_type === 'QUOTE'
      ? 'quote'
      : row.document_type === 'ORDER_CONFIRMATION'
        ? 'orderConfirmation'
        : 'invoice';
  const format = formats[key];
  const base = credit ? 'CREDIT_NOTE' : row.document_type;
  const isDefault = format === DEFAULT_NUMBER_FORMATS[key];
  const year = Number(row.creation_date.slice(0, 4));
  const month = Number(row.creation_date.slice(5, 7));
  const yearly = format.includes('{YYYY}') || format.includes('{YY}');
  return {
    sequence: isDefault ? base : `${base}:${format}`,
    year: yearly ? year : 0,
    format: (n) => render(format, year, month, n),
  };
}

/** Takes the next number in the caller's transaction (the sequence row stays locked). */
export async function takeNumber(trx: Executor, row: DocumentRow): Promise<string> {
  const { sequence, year, format } = sequenceOf(row, await numberFormats(trx, row.account_id));
  let number: string;
  do {
    number = format(await repo.nextSequenceValue(trx, row.account_id, sequence, year));
  } while (await repo.numberTaken(trx, row.account_id, row.document_type, number));
  return number;
}

/**
 * The number the document would get if it became FINAL now, without taking it: what a trial
 * render prints. A concurrent finalization may take it first; the caller then renders again.
 * `formats` lets a caller ask for formats not saved yet (none: the account's).
 */
export async function provisionalNumber(
  db: Executor,
  row: Numbered,
  formats?: NumberFormats,
): Promise<string> {
  const { sequence, year, format } = sequenceOf(
    row,
    formats ?? (await numberFormats(db, row.account_id)),
  );
  let n = (await repo.sequenceValue(db, row.account_id, sequence, year)) + 1;
  while (await repo.numberTaken(db, row.account_id, row.document_type, format(n))) n++;
  return format(n);
}
