/**
 * The data rows of a German bank CSV: which column plays which part (decided once per
 * file), and one row into an entry: dates, signed amount (S/H column, Soll/Haben columns or
 * one signed column per `incomingPaymentTerm`), counterparty, purpose and references.
 */
import { type ColumnMap, normaliseHeader } from './csv-columns.js';
import {
  type ColumnSeparator,
  type CsvRecord,
  type DecimalSeparator,
  amountIndicator,
  decideColumnSeparator,
  looksLikeAmount,
  parseDate,
  readAmount,
  splitLabelledPurpose,
} from './csv-values.js';
import { splitSepaPurpose } from './mt940-details.js';
import { asBic, asIban, decimalToMinor, normaliseSpace } from './text.js';
import type { ParsedEntry } from './types.js';

/** The header row: where it is, its delimiter and its columns. */
export interface Header {
  delimiter: string;
  index: number;
  map: ColumnMap;
  cells: string[];
}

/** Column layout decisions for the data rows. */
export interface Layout {
  col: ColumnMap['best'];
  /** The S/H indicator column, when the file has one. */
  indicator: number | undefined;
  /** The signed amount column (also 1822direkt's numeric `Soll/Haben`). */
  amount: number | undefined;
  currency: number | undefined;
  headerCurrency: string | null;
  purposes: number[];
  /** No purpose column: `Buchungstext` is the purpose and this column the booking kind. */
  bookingTextAsPurpose: boolean;
  otherBookingText: number | undefined;
  /** VR-Bank `Vorgang/Verwendungszweck`: the first line of the purpose names the booking. */
  bookingTextFirstLine: boolean;
  /** Per amount column (amount, debit, credit, running balance): its name and separator. */
  numberColumns: Map<number, NumberColumn>;
}

/** An amount column: its header name (for problems) and its decimal separator. */
export interface NumberColumn {
  name: string;
  decided: ColumnSeparator;
}

export const cellAt = (row: string[], index: number | undefined): string =>
  index === undefined ? '' : (row[index] ?? '').trim();

export function decideLayout(header: Header, rows: CsvRecord[]): Layout {
  const { best, all } = header.map;
  const valuesOf = (index: number): string[] =>
    rows.map((r) => cellAt(r.cells, index)).filter((v) => v !== '');
  // An S/H column holds only S and H; 1822direkt names its signed amount column Soll/Haben.
  let indicator: number | undefined;
  let amount = best.amount;
  for (const index of all.sollHaben ?? []) {
    const values = valuesOf(index);
    if (values.length > 0 && values.every((v) => /^(S|H|Soll|Haben)$/i.test(v))) {
      indicator ??= index;
    } else if (amount === undefined && normaliseHeader(header.cells[index] ?? '') !== '') {
      amount = index;
    }
  }
  // Several currency columns (ING: one for the balance, one for the amount): the one after
  // the amount.
  const currencies = all.currency ?? [];
  const currency =
    currencies.find((c) => amount !== undefined && c > amount) ?? best.currency ?? currencies[0];
  const amountHeader = amount === undefined ? '' : (header.cells[amount] ?? '');
  const headerCurrency = /\b(EUR|€|Euro)\b|€/i.test(amountHeader) ? 'EUR' : null;
  const purposes = [...(all.purpose ?? []), ...(all.purposeExtra ?? [])];
  const bookingTextAsPurpose =
    purposes.length === 0 && (all.bookingText ?? []).length > 1 && best.bookingText !== undefined;
  // Each column decides its own number format: exports mix them (amounts `-12,34`, the
  // running balance `1234.56 EUR`).
  const numberColumns = new Map<number, NumberColumn>();
  for (const index of [amount, best.debit, best.credit, best.runningBalance]) {
    if (index === undefined || numberColumns.has(index)) continue;
    numberColumns.set(index, {
      name: normaliseSpace(header.cells[index] ?? '') || `column ${index + 1}`,
      decided: decideColumnSeparator(valuesOf(index)),
    });
  }
  return {
    col: best,
    indicator,
    amount,
    currency,
    headerCurrency,
    purposes,
    bookingTextAsPurpose,
    otherBookingText: (all.bookingText ?? []).find((i) => i !== best.bookingText),
    bookingTextFirstLine:
      best.bookingText === undefined &&
      purposes.length === 1 &&
      normaliseHeader(header.cells[purposes[0] ?? 0] ?? '') === 'vorgang/verwendungszweck',
    numberColumns,
  };
}

/**
 * A cell of an amount column → signed minor units, null for an empty cell, or the reason it
 * cannot be read: not well formed in the column's number format, or the column's format is
 * ambiguous and the cell has a separator (a cell without one reads alike either way).
 */
export function amountOf(
  raw: string,
  layout: Layout,
  column: number | undefined,
  currency: string,
): number | string | null {
  if (raw === '') return null;
  const known = column === undefined ? undefined : layout.numberColumns.get(column);
  const decided = known?.decided ?? decideColumnSeparator([raw]);
  let separator: DecimalSeparator;
  if (decided.separator !== null) separator = decided.separator;
  else if (!/[.,]/.test(raw)) separator = ',';
  else {
    const of = known ? ` of column "${known.name}"` : '';
    return `amount "${raw}" not read: the decimal separator${of} is ambiguous (${decided.reason})`;
  }
  const read = readAmount(raw, separator);
  if (!read) {
    const format = separator === ',' ? 'decimal comma' : 'decimal point';
    // A number in the other format says which format its column uses; text is just text.
    const hint =
      known && looksLikeAmount(raw) ? ` (column "${known.name}" uses the ${format})` : '';
    return `amount "${raw}" is not readable${hint}`;
  }
  const minor = decimalToMinor(read.decimal, currency);
  if (!minor.ok) return minor.reason;
  // `-0 EUR` is zero, not negative zero.
  return read.negative && minor.minor !== 0 ? -minor.minor : minor.minor;
}

/** The sign-free indicator of a row: S (Soll, debit) or H (Haben, credit). */
function indicatorOf(row: string[], layout: Layout, amountCell: string): 'S' | 'H' | null {
  const cell = cellAt(row, layout.indicator).toUpperCase();
  if (cell.startsWith('S')) return 'S';
  if (cell.startsWith('H')) return 'H';
  return amountIndicator(amountCell);
}

function currencyOf(row: string[], layout: Layout): string {
  const cell = cellAt(row, layout.currency).toUpperCase();
  if (cell === '€') return 'EUR';
  if (/^[A-Z]{3}$/.test(cell)) return cell;
  return layout.headerCurrency ?? 'EUR';
}

/** Signed amount of a row, or the reason it has none. */
function signedAmount(
  row: string[],
  layout: Layout,
  currency: string,
  term: 'SOLL' | 'HABEN',
): number | string {
  const amountCell = cellAt(row, layout.amount);
  const amount = amountOf(amountCell, layout, layout.amount, currency);
  if (typeof amount === 'string') return amount;
  if (amount !== null) {
    const sign = layout.indicator === undefined ? null : indicatorOf(row, layout, amountCell);
    if (sign === 'S') return -Math.abs(amount);
    if (sign === 'H') return Math.abs(amount);
    if (layout.indicator !== undefined) return 'Soll/Haben mark (S/H) missing';
    const inline = amountIndicator(amountCell);
    if (inline) return inline === 'S' ? -Math.abs(amount) : Math.abs(amount);
    // One signed column: HABEN reads positive as credit, SOLL reads positive as debit.
    return term === 'SOLL' ? -amount : amount;
  }
  const debit = amountOf(cellAt(row, layout.col.debit), layout, layout.col.debit, currency);
  const credit = amountOf(cellAt(row, layout.col.credit), layout, layout.col.credit, currency);
  if (typeof debit === 'string') return debit;
  if (typeof credit === 'string') return credit;
  if (debit !== null && debit !== 0) return -Math.abs(debit);
  if (credit !== null) return Math.abs(credit);
  if (debit !== null) return 0;
  return 'amount missing';
}

/** Counterparty name: the combined column, else payer for credits and payee for debits. */
function nameOf(row: string[], layout: Layout, amount: number): string | null {
  const { col } = layout;
  const pick = (...indexes: (number | undefined)[]): string | null => {
    for (const i of indexes) {
      const v = normaliseSpace(cellAt(row, i));
      if (v !== '') return v;
    }
    return null;
  };
  if (col.name !== undefined) return pick(col.name);
  if (col.payer !== undefined || col.payee !== undefined) {
    return amount >= 0 ? pick(col.payer, col.payee) : pick(col.payee, col.payer);
  }
  return pick(col.ownSide);
}

function detailsOf(
  row: string[],
  layout: Layout,
): Pick<ParsedEntry, 'purpose' | 'bookingText' | 'endToEndId' | 'mandateReference'> {
  const { col } = layout;
  let bookingText: string | null = null;
  let raw: string;
  if (layout.bookingTextAsPurpose) {
    // Commerzbank: `Buchungstext` is the purpose, `Umsatzart` the kind of booking.
    raw = cellAt(row, col.bookingText);
    const other = cellAt(row, layout.otherBookingText);
    bookingText = other === '' ? null : normaliseSpace(other);
  } else {
    raw = layout.purposes
      .map((i) => cellAt(row, i))
      .filter((v) => v !== '')
      .join(' ');
    const text = cellAt(row, col.bookingText);
    if (text !== '') {
      bookingText = normaliseSpace(text);
    } else if (layout.bookingTextFirstLine) {
      const [first = '', ...rest] = raw.split(/\r?\n/);
      bookingText = normaliseSpace(first) || null;
      raw = rest.join(' ');
    }
  }
  const sepa = /\b(?:EREF|MREF|SVWZ|KREF|CRED)\+/.test(raw)
    ? splitSepaPurpose(raw)
    : splitLabelledPurpose(raw);
  const columnRef = (index: number | undefined): string | null => {
    const v = normaliseSpace(cellAt(row, index));
    return v === '' || /^NOT ?PROVIDED$/i.test(v) ? null : v;
  };
  return {
    purpose: sepa.purpose,
    bookingText,
    endToEndId: columnRef(col.endToEnd) ?? sepa.endToEndId,
    mandateReference: columnRef(col.mandate) ?? sepa.mandateReference,
  };
}

/** One data row → entry, or the reason it cannot be read. */
export function readEntry(
  cells: string[],
  layout: Layout,
  term: 'SOLL' | 'HABEN',
): ParsedEntry | string {
  const { col } = layout;
  const dateCell = cellAt(cells, col.bookingDate);
  if (dateCell === '') return 'booking date missing';
  const bookingDate = parseDate(dateCell);
  if (!bookingDate) return `booking date "${dateCell}" is not a date`;
  const valueCell = cellAt(cells, col.valueDate);
  const valueDate = valueCell === '' ? null : parseDate(valueCell, true);
  if (valueCell !== '' && !valueDate) return `value date "${valueCell}" is not a date`;
  const currency = currencyOf(cells, layout);
  const amount = signedAmount(cells, layout, currency, term);
  if (typeof amount === 'string') return amount;
  const details = detailsOf(cells, layout);
  const bankReference = normaliseSpace(cellAt(cells, col.bankReference));
  return {
    bookingDate,
    valueDate,
    amountMinor: amount,
    currency,
    counterpartyName: nameOf(cells, layout, amount),
    counterpartyIban: asIban(cellAt(cells, col.iban)),
    counterpartyBic: asBic(cellAt(cells, col.bic)),
    purpose: details.purpose,
    endToEndId: details.endToEndId,
    mandateReference: details.mandateReference,
    bankReference: bankReference === '' ? null : bankReference,
    bookingText: details.bookingText,
    reversal: false,
  };
}
