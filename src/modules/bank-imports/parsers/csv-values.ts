/**
 * Reading the cells of German bank CSV exports: records (quoted fields with line breaks),
 * dates, amounts in either number format, balance rows and the `Label: value` references
 * some banks write into the purpose text.
 */
import { isNotProvided } from './mt940-details.js';
import { fullYear, isoFromParts, normaliseSpace } from './text.js';

export interface CsvRecord {
  cells: string[];
  /** 1-based line where the record starts. */
  line: number;
}

/**
 * Splits CSV text into records (RFC 4180 quoting, `""` escapes, line breaks inside quotes,
 * any line ending). Text after a closing quote up to the delimiter is kept, as banks do write
 * `"a"b`. Stops after `limit` records.
 */
export function readRecords(text: string, delimiter: string, limit = Infinity): CsvRecord[] {
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let cell = '';
  let line = 1;
  let recordLine = 1;
  let i = 0;
  const n = text.length;
  const endRecord = (): void => {
    cells.push(cell);
    records.push({ cells, line: recordLine });
    cells = [];
    cell = '';
  };
  while (i < n && records.length < limit) {
    const ch = text[i];
    if (ch === '"' && cell.trim() === '') {
      // Quoted field: runs to the next quote that is not doubled.
      cell = '';
      i++;
      while (i < n) {
        const c = text[i];
        if (c === '"') {
          if (text[i + 1] === '"') {
            cell += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        if (c === '\n' || (c === '\r' && text[i + 1] !== '\n')) line++;
        cell += c;
        i++;
      }
      continue;
    }
    if (ch === delimiter) {
      cells.push(cell);
      cell = '';
      i++;
      continue;
    }
    if (ch === '\r' || ch === '\n') {
      i += ch === '\r' && text[i + 1] === '\n' ? 2 : 1;
      endRecord();
      line++;
      recordLine = line;
      continue;
    }
    cell += ch;
    i++;
  }
  if (records.length < limit && (cell !== '' || cells.length > 0)) endRecord();
  return records;
}

/**
 * A date cell → `YYYY-MM-DD`: `31.12.2024`, `31.12.24`, `2024-12-31` (also with a time),
 * `2024.12.31`, `31/12/2024`. `clampMonthEnd` accepts the 30/360 value dates banks state
 * (30.02.).
 */
export function parseDate(raw: string, clampMonthEnd = false): string | null {
  const value = raw.trim();
  let m = /^(\d{1,2})[./](\d{1,2})[./](\d{4}|\d{2})(?:[\sT,].*)?$/.exec(value);
  if (m) {
    const yearText = m[3] ?? '';
    const year = yearText.length === 2 ? fullYear(Number(yearText)) : Number(yearText);
    return isoFromParts(year, Number(m[2]), Number(m[1]), clampMonthEnd);
  }
  m = /^(\d{4})[-./](\d{1,2})[-./](\d{1,2})(?:[\sT].*)?$/.exec(value);
  if (m) return isoFromParts(Number(m[1]), Number(m[2]), Number(m[3]), clampMonthEnd);
  return null;
}

export type DecimalSeparator = ',' | '.';

/** What an amount cell says without the number format applied yet. */
interface AmountParts {
  negative: boolean;
  /** Digits with at most the two kinds of separator, e.g. `1.234,56`. */
  number: string;
  /** An S/H (Soll/Haben) suffix inside the cell, when present. */
  indicator: 'S' | 'H' | null;
}

function amountParts(raw: string): AmountParts | null {
  let s = raw.replace(/[\s\u00a0'’]/g, '').replace(/EUR|€|USD|\$|CHF|GBP|£/gi, '');
  if (s === '') return null;
  let negative = false;
  let indicator: 'S' | 'H' | null = null;
  const suffix = /(S|H)$/i.exec(s);
  if (suffix) {
    indicator = (suffix[1] ?? '').toUpperCase() === 'S' ? 'S' : 'H';
    s = s.slice(0, -1);
  }
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1);
  }
  if (s.startsWith('-') || s.startsWith('−')) {
    negative = true;
    s = s.slice(1);
  } else if (s.startsWith('+')) {
    s = s.slice(1);
  }
  if (s.endsWith('-')) {
    negative = !negative;
    s = s.slice(0, -1);
  } else if (s.endsWith('+')) {
    s = s.slice(0, -1);
  }
  if (!/^\d[\d.,]*$|^[.,]\d+$/.test(s)) return null;
  return { negative, number: s, indicator };
}

/** True when the cell reads as an amount in some number format. */
export function looksLikeAmount(raw: string): boolean {
  return amountParts(raw) !== null;
}

/** The S/H mark written into an amount cell (`12,50 S`), whatever the number format. */
export function amountIndicator(raw: string): 'S' | 'H' | null {
  return amountParts(raw)?.indicator ?? null;
}

/** True when the cell names a currency (`-0 EUR`, `12 €`): an amount even without decimals. */
export function hasCurrencyMark(raw: string): boolean {
  return /EUR|€|USD|\$|CHF|GBP|£/i.test(raw);
}

/** Thousands groups of the whole part, per decimal separator. */
const GROUPED = { ',': /^\d{1,3}(?:\.\d{3})+$/, '.': /^\d{1,3}(?:,\d{3})+$/ } as const;

/**
 * True when `number` (digits and separators, no sign) is well formed with `separator` as the
 * decimal separator: at most one of it, followed by digits, and the other character only as a
 * thousands separator between groups of three (`1.234.567,89`, `1,234.56`, `1234,5`).
 */
function wellFormed(number: string, separator: DecimalSeparator): boolean {
  const [whole = '', fraction, ...more] = number.split(separator);
  if (more.length > 0) return false;
  if (fraction !== undefined && !/^\d+$/.test(fraction)) return false;
  if (whole === '') return fraction !== undefined;
  return /^\d+$/.test(whole) || GROUPED[separator].test(whole);
}

/**
 * Which decimal separators read the cell as a well-formed amount: `12,34` only the comma,
 * `1,234.56` only the dot, `1.234` and `2,500` either (a thousands separator or three
 * decimals), `12` either alike. Null when the cell is no amount.
 */
export function separatorsOf(raw: string): DecimalSeparator[] | null {
  const parts = amountParts(raw);
  if (!parts) return null;
  return (['.', ','] as const).filter((sep) => wellFormed(parts.number, sep));
}

/** The decimal separator of one column, or why it cannot be told. */
export type ColumnSeparator =
  | { separator: DecimalSeparator }
  /** `reason` says why, with example values, for a problem naming the column. */
  | { separator: null; reason: string };

const EXAMPLES = 3;

/**
 * Decides the decimal separator of one column (or one balance cell) from its own values,
 * never from the rest of the file: a credit-card export writes its amounts `-12,34` and its
 * balance `1234.56 EUR`. Values only one separator reads vote for it (`12,34` comma,
 * `1,234.56` dot); the majority wins and the values of the minority are then unreadable, not
 * misread. A column where every value with a separator reads either way (`1.234`, `2.500`:
 * thousands or three decimals), or where the votes tie, is ambiguous: answered with the
 * reason, never guessed. A column without any separator (`12`, `-0 EUR`) reads alike either way.
 */
export function decideColumnSeparator(cells: string[]): ColumnSeparator {
  const votes: Record<DecimalSeparator, string[]> = { ',': [], '.': [] };
  const either: string[] = [];
  for (const raw of cells) {
    const fits = separatorsOf(raw);
    if (!fits || !/[.,]/.test(raw)) continue;
    const [only] = fits;
    if (fits.length === 2) either.push(raw.trim());
    else if (only) votes[only].push(raw.trim());
  }
  const comma = votes[','].length;
  const dot = votes['.'].length;
  if (comma > dot) return { separator: ',' };
  if (dot > comma) return { separator: '.' };
  if (comma > 0) {
    const examples = [...votes[','].slice(0, EXAMPLES), ...votes['.'].slice(0, EXAMPLES)];
    return {
      separator: null,
      reason: `as many values with a decimal comma as with a decimal point: ${examples.join(', ')}`,
    };
  }
  if (either.length === 0) return { separator: ',' };
  return {
    separator: null,
    reason: `${either.slice(0, EXAMPLES).join(', ')} read with a decimal point as well as with a decimal comma`,
  };
}

export interface ReadAmount {
  negative: boolean;
  /** Plain decimal (`1234.56`) for `decimalToMinor`. */
  decimal: string;
  indicator: 'S' | 'H' | null;
}

/**
 * An amount cell in its column's number format → sign and plain decimal, or null when the
 * cell is no amount or not well formed in that format (`1234.5` in a comma column).
 */
export function readAmount(raw: string, separator: DecimalSeparator): ReadAmount | null {
  const parts = amountParts(raw);
  if (!parts || !wellFormed(parts.number, separator)) return null;
  const grouping = separator === ',' ? '.' : ',';
  const s = parts.number.split(grouping).join('');
  const decimal = separator === ',' ? s.replace(',', '.') : s;
  if (!/^\d*\.?\d*$/.test(decimal) || !/\d/.test(decimal)) return null;
  return { negative: parts.negative, decimal, indicator: parts.indicator };
}

const OPENING_LABEL =
  /^(?:anfangssaldo|alter kontostand|kontostand alt|saldo alt|startsaldo|eroeffnungssaldo|er[oö]ffnungssaldo|anfangsbestand|saldovortrag|vortrag|opening balance)(?:\s+(?:vom|am|zum|per)\s+.*)?\s*:?$/i;
const CLOSING_LABEL =
  /^(?:endsaldo|neuer kontostand|kontostand neu|saldo neu|schlusssaldo|endbestand|neuester kontostand|aktueller kontostand|kontostand|saldo|closing balance)(?:\s+(?:vom|am|zum|per)\s+.*)?\s*:?$/i;

/** `Anfangssaldo` / `Kontostand vom 31.05.2023:` → which balance a label cell names. */
export function balanceLabel(cell: string): 'opening' | 'closing' | null {
  const value = normaliseSpace(cell);
  if (value === '' || value.length > 60) return null;
  if (OPENING_LABEL.test(value)) return 'opening';
  if (CLOSING_LABEL.test(value)) return 'closing';
  return null;
}

export interface LabelledPurpose {
  purpose: string;
  endToEndId: string | null;
  mandateReference: string | null;
}

const LABEL =
  /(End-to-End-Referenz|End-To-End-Ref\.|Kundenreferenz|Mandatsreferenz|Mandatsdatum|ID des Auftraggebers|Gl(?:ä|ae)ubiger-ID|EREF|KREF|MREF|CRED|IBAN|BIC)\s*:\s*/g;

/**
 * Purpose texts with `Label: value` references (Commerzbank `End-to-End-Referenz: …
 * Mandatsreferenz: …`, VR-Bank `EREF: … IBAN: …`): the references are taken out, the rest
 * stays the purpose.
 */
export function splitLabelledPurpose(text: string): LabelledPurpose {
  const normalised = normaliseSpace(text);
  const hits = [...normalised.matchAll(LABEL)];
  if (hits.length === 0) return { purpose: normalised, endToEndId: null, mandateReference: null };
  const kept: string[] = [normalised.slice(0, hits[0]?.index ?? 0)];
  let endToEndId: string | null = null;
  let mandateReference: string | null = null;
  for (const [i, hit] of hits.entries()) {
    const label = (hit[1] ?? '').toLowerCase();
    const value = normalised
      .slice(hit.index + hit[0].length, hits[i + 1]?.index ?? normalised.length)
      .trim();
    if (label.startsWith('end-to-end') || label === 'eref') {
      endToEndId ??= isNotProvided(value) || value === '' ? null : value;
    } else if (
      label === 'iban' ||
      label === 'bic' ||
      label === 'kref' ||
      label === 'kundenreferenz'
    ) {
      // Dropped: the account is in its own column, the customer reference is no purpose.
    } else {
      // One token (mandate, creditor id, date); what follows it is purpose text again.
      const [token = '', ...rest] = value.split(' ');
      if (label === 'mandatsreferenz' || label === 'mref') mandateReference ??= token || null;
      kept.push(rest.join(' '));
    }
  }
  return { purpose: normaliseSpace(kept.join(' ')), endToEndId, mandateReference };
}
