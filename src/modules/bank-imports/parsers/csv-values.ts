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

/**
 * Decides the decimal separator of a file from its amount cells: `12,34` votes comma,
 * `12.34` votes dot, `1.234,56` and `1,234.56` vote for their last separator, `1.234` alone
 * proves nothing. Without evidence a German export uses the comma, unless the file is
 * comma-delimited.
 */
export function decideDecimalSeparator(cells: string[], delimiter: string): DecimalSeparator {
  let comma = 0;
  let dot = 0;
  for (const raw of cells) {
    const parts = amountParts(raw);
    if (!parts) continue;
    const s = parts.number;
    const lastComma = s.lastIndexOf(',');
    const lastDot = s.lastIndexOf('.');
    if (lastComma >= 0 && lastDot >= 0) {
      if (lastComma > lastDot) comma++;
      else dot++;
      continue;
    }
    const at = Math.max(lastComma, lastDot);
    if (at < 0) continue;
    const sep = s[at];
    const repeated = s.indexOf(sep ?? '') !== at;
    const decimals = s.length - at - 1;
    if (repeated) {
      // `1.234.567` groups thousands: the other separator is the decimal one.
      if (sep === '.') comma++;
      else dot++;
    } else if (decimals !== 3) {
      if (sep === ',') comma++;
      else dot++;
    }
  }
  if (comma > dot) return ',';
  if (dot > comma) return '.';
  return delimiter === ',' ? '.' : ',';
}

export interface ReadAmount {
  negative: boolean;
  /** Plain decimal (`1234.56`) for `decimalToMinor`. */
  decimal: string;
  indicator: 'S' | 'H' | null;
}

/** An amount cell in the file's number format → sign and plain decimal, or null. */
export function readAmount(raw: string, separator: DecimalSeparator): ReadAmount | null {
  const parts = amountParts(raw);
  if (!parts) return null;
  const grouping = separator === ',' ? '.' : ',';
  const s = parts.number.split(grouping).join('');
  if ((s.match(new RegExp(`\\${separator}`, 'g')) ?? []).length > 1) return null;
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
