/**
 * The field level of MT940: lines into tagged fields, and the fields that carry values
 * (balances `:60F:`/`:62F:`, entries `:61:`) into numbers and dates. Amounts are read from
 * their decimal text, never through floating point.
 */
import { parseEntryDetails } from './mt940-details.js';
import { decimalToMinor, fullYear, isoFromParts, normaliseSpace } from './text.js';
import type { ParsedEntry } from './types.js';

export interface Field {
  tag: string;
  /** Content lines: the first without its tag, then the continuation lines. */
  lines: string[];
  /** 1-based line of the tag. */
  line: number;
  /** Length of the first physical line, tag included. */
  width: number;
}

const KNOWN_TAGS = new Set([
  '20',
  '21',
  '25',
  '25P',
  '28',
  '28C',
  '60F',
  '60M',
  '61',
  '86',
  '62F',
  '62M',
  '64',
  '65',
  'NS',
  // MT942 (interim report) only: recognised so that such a file is named, not misread.
  '13',
  '13D',
  '34F',
  '90D',
  '90C',
]);
export const MT942_TAGS = new Set(['13', '13D', '34F', '90D', '90C']);
export const SEPARATOR = '-';

/**
 * Cuts the text into fields and hands each one over as soon as it is complete (so nothing
 * of a large file is held twice); lines outside any field (bank preambles, envelopes) are
 * skipped. A line `-` (or `-}` closing a SWIFT block) is handed over as a separator field.
 */
export function readFields(text: string, onField: (field: Field) => void): void {
  let current: Field | null = null;
  const emit = (): void => {
    if (current) onField(current);
    current = null;
  };
  // Lines are cut one at a time (no array of all lines): on large files they then die young
  // instead of being copied around by the garbage collector.
  const source = text.includes('\n') ? text : text.replace(/\r/g, '\n');
  let position = 0;
  for (let i = 0; position <= source.length; i++) {
    const newline = source.indexOf('\n', position);
    const end = newline < 0 ? source.length : newline;
    let line = source.slice(position, source.charCodeAt(end - 1) === 0x0d ? end - 1 : end);
    position = end + 1;
    if (line.includes('{')) {
      // SWIFT envelope `{1:…}{2:…}{4:` before the text block, `-}{5:…}` after it.
      const block = line.indexOf('{4:');
      if (block >= 0) {
        emit();
        line = line.slice(block + 3);
        if (line.trim() === '') continue;
      } else if (/^\s*\{\d:/.test(line)) {
        emit();
        continue;
      }
    }
    const first = line.charCodeAt(0);
    if (first === 0x3a /* : */ || first === 0x20 || first === 0x09) {
      const start = first === 0x3a ? line : line.trimStart();
      const tag = TAG.exec(start);
      if (tag && KNOWN_TAGS.has(tag[1] ?? '')) {
        emit();
        current = {
          tag: tag[1] ?? '',
          lines: [start.slice(tag[0].length)],
          line: i + 1,
          width: start.length,
        };
        continue;
      }
    } else if (first === 0x2d /* - */ && /^-\}?\s*(?:\{.*)?$/.test(line.trim())) {
      emit();
      onField({ tag: SEPARATOR, lines: [], line: i + 1, width: 0 });
      continue;
    }
    if (current && line.trim() !== '') current.lines.push(line);
  }
  emit();
}

const TAG = /^:([0-9]{2}[A-Z]?|NS):/;

export interface Balance {
  minor: number;
  date: string;
  currency: string | null;
}

/** `C160229EUR1200,00` → balance; the currency is sometimes left out by real banks. */
export function parseBalance(content: string, fallbackCurrency: string): Balance | string {
  const m = /^([CD])(\d{2})(\d{2})(\d{2})([A-Z]{3})?\s*([\d.,]+)\s*$/.exec(content.trim());
  if (!m) return `balance "${content.trim()}" is not readable`;
  const date = isoFromParts(fullYear(Number(m[2])), Number(m[3]), Number(m[4]), true);
  if (!date) return `balance date in "${content.trim()}" is not a date`;
  const currency = m[5] ?? null;
  const amount = amountToMinor(m[6] ?? '', currency ?? fallbackCurrency);
  if (typeof amount === 'string') return amount;
  return { minor: m[1] === 'D' ? -amount : amount, date, currency };
}

/** SWIFT amounts use a decimal comma (`1234,5`); some banks write `1234.50` or `500`. */
function amountToMinor(raw: string, currency: string): number | string {
  const comma = raw.indexOf(',');
  const dot = raw.indexOf('.');
  const at = comma >= 0 ? comma : dot;
  if ((comma >= 0 && dot >= 0) || (at >= 0 && raw.indexOf(raw[at] ?? '', at + 1) >= 0)) {
    return `amount "${raw}" is not readable`;
  }
  const result = decimalToMinor(comma >= 0 ? raw.replace(',', '.') : raw, currency);
  return result.ok ? result.minor : result.reason;
}

const ENTRY_LINE =
  /^(\d{2})(\d{2})(\d{2})(\d{2})?(\d{2})?(RC|RD|C|D)([A-Z])?(\d[\d,.]*)(?:\s?([NSF][A-Z0-9 ]{3}))?(.*)$/;

function dayNumber(iso: string): number {
  return Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10)));
}

/**
 * The entry date (`MMDD`) carries no year: it is the year of the value date, or the one
 * before or after when the two straddle a new year (value 2019-12-31, entry 0102).
 */
function entryDate(valueDate: string, month: number, day: number): string | null {
  const year = Number(valueDate.slice(0, 4));
  const valueMonth = Number(valueDate.slice(5, 7));
  // Months apart by less than half a year: same year (the common case, no arithmetic).
  if (Math.abs(month - valueMonth) < 6) return isoFromParts(year, month, day, true);
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const candidate of [year - 1, year, year + 1]) {
    const iso = isoFromParts(candidate, month, day, true);
    if (!iso) continue;
    const distance = Math.abs(dayNumber(iso) - dayNumber(valueDate));
    if (distance < bestDistance) {
      best = iso;
      bestDistance = distance;
    }
  }
  return best;
}

function nullIfNoRef(value: string): string | null {
  const v = value.trim();
  return v === '' || /^NONREF$/i.test(v) ? null : v;
}

export interface EntryDraft {
  entry: ParsedEntry;
  supplementary: string;
  detailLines: string[];
  detailWidth: number;
  hasDetails: boolean;
}

/** `:61:` → entry (without the `:86:` information yet), or the reason it is unreadable. */
export function parseEntry(field: Field, currency: string): EntryDraft | string {
  const first = (field.lines[0] ?? '').trim();
  const m = ENTRY_LINE.exec(first);
  if (!m) return `entry "${first}" is not readable (expected date, C/D/RC/RD mark and amount)`;
  const valueDate = isoFromParts(fullYear(Number(m[1])), Number(m[2]), Number(m[3]), true);
  if (!valueDate) return `value date "${first.slice(0, 6)}" is not a date`;
  let bookingDate = valueDate;
  if (m[4] !== undefined && m[5] !== undefined) {
    const booked = entryDate(valueDate, Number(m[4]), Number(m[5]));
    if (!booked) return `entry date "${m[4]}${m[5]}" is not a date`;
    bookingDate = booked;
  } else if (m[4] !== undefined) {
    return `entry "${first}" is not readable (date)`;
  }
  const mark = m[6] ?? '';
  const amount = amountToMinor(m[8] ?? '', currency);
  if (typeof amount === 'string') return amount;
  // RC reverses a credit (money leaves), RD reverses a debit (money comes back).
  const negative = mark === 'D' || mark === 'RC';
  const rest = m[10] ?? '';
  const slash = rest.indexOf('//');
  const bankReference = slash >= 0 ? nullIfNoRef(rest.slice(slash + 2)) : null;
  const supplementary =
    field.lines.length > 1 ? normaliseSpace(field.lines.slice(1).join(' ')) : '';
  return {
    entry: {
      bookingDate,
      valueDate,
      amountMinor: negative ? -amount : amount,
      currency,
      counterpartyName: null,
      counterpartyIban: null,
      counterpartyBic: null,
      purpose: '',
      endToEndId: null,
      mandateReference: null,
      bankReference,
      bookingText: null,
      reversal: mark.startsWith('R'),
    },
    supplementary,
    detailLines: [],
    detailWidth: 0,
    hasDetails: false,
  };
}

export function completeEntry(draft: EntryDraft): ParsedEntry {
  const entry = draft.entry;
  if (!draft.hasDetails) {
    entry.purpose = draft.supplementary;
    return entry;
  }
  const details = parseEntryDetails(draft.detailLines, draft.detailWidth);
  entry.bookingText = details.bookingText;
  entry.purpose = details.purpose === '' ? draft.supplementary : details.purpose;
  entry.endToEndId = details.endToEndId;
  entry.mandateReference = details.mandateReference;
  entry.counterpartyName = details.counterpartyName;
  entry.counterpartyIban = details.counterpartyIban;
  entry.counterpartyBic = details.counterpartyBic;
  if (details.returnReason !== undefined) entry.returnReason = details.returnReason;
  if (details.batch !== undefined) entry.batch = details.batch;
  return entry;
}
