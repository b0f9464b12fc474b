/**
 * The information to an MT940 entry (`:86:`): the German structured form with `?NN`
 * subfields (DFÜ-Abkommen, Anlage 3), SEPA keys inside the purpose (`EREF+`, `MREF+`,
 * `SVWZ+` …), the Dutch/SWIFT `/KEY/value` form, and free text. Also used by the CSV parser,
 * whose purpose columns carry the same SEPA keys.
 */
import { asBic, asIban, normaliseSpace } from './text.js';

export interface EntryDetails {
  bookingText: string | null;
  purpose: string;
  endToEndId: string | null;
  mandateReference: string | null;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  counterpartyBic: string | null;
  /**
   * Set when the field marks a returned SEPA payment: a return GVC (`RETURN_GVC`) or a
   * `/RTRN/` key; the ISO reason code when the field names one (`/RTRN/MD06/`), else null.
   */
  returnReason?: string | null;
}

/**
 * The DK business transaction codes (GVC, the three digits before `?00`) of returned SEPA
 * payments: 108 SEPA core direct debit return (Rücklastschrift), 109 SEPA B2B direct debit
 * return, 159 SEPA credit transfer return (Retoure).
 */
export const RETURN_GVC = new Set(['108', '109', '159']);

/** The ISO 20022 return reason codes of SEPA R-transactions (EPC guidance on reason codes). */
const ISO_RETURN_REASON =
  /\b(AC0[1-6]|AC13|AG0[12]|AM0[1-5]|BE05|CNOR|DNOR|FF0[1-5]|MD0[1-7]|MS0[23]|RC01|RR0[1-4]|SL01|FOCR|DUPL|TECH|FRAD|CUST)\b/;

export interface SepaPurpose {
  purpose: string;
  endToEndId: string | null;
  mandateReference: string | null;
}

const SEPA_KEY =
  /(?<![A-Z])(EREF|KREF|MREF|CRED|DEBT|COAM|OAMT|SVWZ|ABWA|ABWE|IBAN|BIC|PURP|RTRN|BREF|RREF)\+/g;

/** True for the SEPA placeholders banks put where a reference is missing. */
export function isNotProvided(value: string): boolean {
  return /^NOT ?PROVIDED$/i.test(value.trim());
}

/**
 * Splits a purpose text with SEPA keys (`EREF+… MREF+… SVWZ+…`) into the end-to-end id,
 * the mandate reference and the remittance text (the `SVWZ+` part). Without a usable
 * `SVWZ+` the whole text stays the purpose, so nothing the bank wrote is lost.
 */
export function splitSepaPurpose(text: string): SepaPurpose {
  const normalised = normaliseSpace(text);
  if (!normalised.includes('+')) {
    return { purpose: normalised, endToEndId: null, mandateReference: null };
  }
  // Only the three keys Kontor keeps are collected; a repeated key continues its value.
  let eref: string | null = null;
  let mref: string | null = null;
  let svwz: string | null = null;
  SEPA_KEY.lastIndex = 0;
  let match = SEPA_KEY.exec(normalised);
  while (match) {
    const key = match[1];
    const start = match.index + match[0].length;
    const next = SEPA_KEY.exec(normalised);
    if (key === 'EREF' || key === 'MREF' || key === 'SVWZ') {
      const value = normalised.slice(start, next ? next.index : normalised.length).trim();
      if (key === 'EREF') eref = eref === null ? value : `${eref} ${value}`;
      else if (key === 'MREF') mref = mref === null ? value : `${mref} ${value}`;
      else svwz = svwz === null ? value : `${svwz} ${value}`;
    }
    match = next;
  }
  return {
    purpose: usable(svwz) ?? normalised,
    endToEndId: usable(eref),
    mandateReference: usable(mref),
  };
}

function usable(value: string | null): string | null {
  return value === null || value === '' || isNotProvided(value) ? null : value;
}

/**
 * Joins the pieces of a text the bank cut into fixed-width subfields (27 characters for
 * `?20`–`?29`, `?32`/`?33`): a full piece continues mid-word, a shorter one ended a line.
 */
export function joinPieces(pieces: string[], width = 27): string {
  if (pieces.length <= 1) return normaliseSpace(pieces[0] ?? '');
  const parts: string[] = [];
  for (const [i, piece] of pieces.entries()) {
    if (i > 0 && (pieces[i - 1] ?? '').length < width) parts.push(' ');
    parts.push(piece);
  }
  return normaliseSpace(parts.join(''));
}

const STRUCTURED_START = /^\s*(\d{3})?\s*([?>])(\d{2})/;

/**
 * Parses the lines of one `:86:` field (tag already removed; `firstLineWidth` is the length
 * of the first physical line including its tag, to tell wrapped lines from real breaks).
 */
export function parseEntryDetails(lines: string[], firstLineWidth: number): EntryDetails {
  const raw = lines.length === 1 ? (lines[0] ?? '') : lines.join('');
  const structured = STRUCTURED_START.exec(raw);
  if (structured) {
    const separator = structured[2] === '>' ? '>' : '?';
    // Subfields run across physical lines: a line that starts a subfield or follows a full
    // (wrapped) line continues directly; a short line before plain text was a real break.
    const joined =
      lines.length === 1 ? raw : joinLines(lines, firstLineWidth, 60, SUBFIELD_START[separator]);
    const details = parseGermanStructured(joined, separator);
    const gvc = structured[1];
    if (gvc === undefined || !RETURN_GVC.has(gvc)) return details;
    // German banks name the ISO reason in the purpose text of a return, if at all.
    const named = ISO_RETURN_REASON.exec(`${details.purpose} ${details.bookingText ?? ''}`);
    return { ...details, returnReason: named?.[1] ?? null };
  }
  if (/^\s*\d{3}\s*$/.test(raw)) return emptyDetails('');
  const text = normaliseSpace(joinLines(lines, firstLineWidth, 65, null));
  if (/^\/[A-Z]{2,4}\//.test(text)) return parseSlashKeys(text);
  return { ...emptyDetails(''), ...splitSepaPurpose(text) };
}

const SUBFIELD_START = { '?': /^\?\d{2}/, '>': /^>\d{2}/ };

function emptyDetails(purpose: string): EntryDetails {
  return {
    bookingText: null,
    purpose,
    endToEndId: null,
    mandateReference: null,
    counterpartyName: null,
    counterpartyIban: null,
    counterpartyBic: null,
  };
}

/**
 * Joins the physical lines of a field: directly after a line filled to the SWIFT width
 * (`wrapWidth`, the line was wrapped mid-word) or before a line `continues` matches,
 * with a space after a shorter line (the bank broke it on purpose).
 */
function joinLines(
  lines: string[],
  firstLineWidth: number,
  wrapWidth: number,
  continues: RegExp | null,
): string {
  let out = '';
  for (const [i, line] of lines.entries()) {
    if (i === 0) {
      out = line;
      continue;
    }
    const previousWidth = i === 1 ? firstLineWidth : (lines[i - 1] ?? '').length;
    out += previousWidth >= wrapWidth || continues?.test(line) ? line : ` ${line}`;
  }
  return out;
}

/** Subfield code → its place: purpose (`?20`–`?29`, `?60`–`?63`), name, account, bank. */
function subfieldKind(code: number): 'purpose' | 'name' | 'text' | 'account' | 'bank' | null {
  if ((code >= 20 && code <= 29) || (code >= 60 && code <= 63)) return 'purpose';
  if (code === 32 || code === 33) return 'name';
  if (code === 0) return 'text';
  if (code === 31) return 'account';
  if (code === 30) return 'bank';
  return null;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * `166?00GUTSCHRIFT?20SVWZ+…?30BIC?31IBAN?32NAME`: scans for the separator followed by two
 * digits (no regex, this runs once per entry of files with 100 000 entries).
 */
function parseGermanStructured(joined: string, separator: string): EntryDetails {
  const purpose: string[] = [];
  const name: string[] = [];
  let bookingText = '';
  let account = '';
  let bank = '';
  let at = joined.indexOf(separator);
  while (at >= 0 && !(isDigit(joined.charCodeAt(at + 1)) && isDigit(joined.charCodeAt(at + 2)))) {
    at = joined.indexOf(separator, at + 1);
  }
  while (at >= 0) {
    const code = (joined.charCodeAt(at + 1) - 0x30) * 10 + (joined.charCodeAt(at + 2) - 0x30);
    let next = joined.indexOf(separator, at + 3);
    while (
      next >= 0 &&
      !(isDigit(joined.charCodeAt(next + 1)) && isDigit(joined.charCodeAt(next + 2)))
    ) {
      next = joined.indexOf(separator, next + 1);
    }
    const value = joined.slice(at + 3, next >= 0 ? next : joined.length);
    switch (subfieldKind(code)) {
      case 'purpose':
        purpose.push(value);
        break;
      case 'name':
        name.push(value);
        break;
      case 'text':
        bookingText = bookingText === '' ? value : `${bookingText} ${value}`;
        break;
      case 'account':
        account += value;
        break;
      case 'bank':
        bank += value;
        break;
      case null:
        break;
    }
    at = next;
  }
  const sepa = splitSepaPurpose(joinPieces(purpose));
  const text = normaliseSpace(bookingText);
  const counterparty = joinPieces(name);
  return {
    bookingText: text === '' ? null : text,
    purpose: sepa.purpose,
    endToEndId: sepa.endToEndId,
    mandateReference: sepa.mandateReference,
    counterpartyName: counterparty === '' ? null : counterparty,
    counterpartyIban: asIban(account),
    counterpartyBic: asBic(bank),
  };
}

const SLASH_KEYS = new Set([
  'TRTP',
  'IBAN',
  'BIC',
  'NAME',
  'REMI',
  'EREF',
  'MARF',
  'CSID',
  'ORDP',
  'BENM',
  'ID',
  'ADDR',
  'CNTP',
  'RTRN',
  'PREF',
  'ULTC',
  'ULTD',
  'ULTB',
  'PURP',
  'ISDT',
  'SVCL',
  'OCMT',
  'CHGS',
  'EXCH',
  'BUSP',
  'CDTRREF',
  'CDTRREFTP',
]);

/** The `/KEY/value/KEY/value` form (Dutch banks, SEPA in MT940 outside Germany). */
function parseSlashKeys(text: string): EntryDetails {
  const values = new Map<string, string>();
  const keyPattern = /\/([A-Z]{2,9})\//g;
  const hits = [...text.matchAll(keyPattern)].filter((m) => SLASH_KEYS.has(m[1] ?? ''));
  // Keys only count where they follow the previous value: `/REMI/a/b/` keeps `a/b`.
  for (const [i, hit] of hits.entries()) {
    const key = hit[1] ?? '';
    const start = hit.index + hit[0].length;
    const end = hits[i + 1]?.index ?? text.length;
    if (!values.has(key)) values.set(key, text.slice(start, end));
  }
  if (values.size === 0) return { ...emptyDetails(''), ...splitSepaPurpose(text) };
  const clean = (value: string | undefined): string | null => {
    if (value === undefined) return null;
    const v = normaliseSpace(value.replace(/\/+$/, ''));
    return v === '' || isNotProvided(v) ? null : v;
  };
  const counterparty = (values.get('CNTP') ?? '').split('/');
  const rtrn = values.has('RTRN') ? clean(values.get('RTRN')) : undefined;
  const remi = clean(values.get('REMI')?.replace(/^(?:USTD|STRD)\/(?:[A-Z]{3,4}\/)?\/?/, ''));
  return {
    bookingText: clean(values.get('TRTP')),
    purpose: remi ?? normaliseSpace(text),
    endToEndId: clean(values.get('EREF')),
    mandateReference: clean(values.get('MARF')),
    counterpartyName: clean(values.get('NAME')) ?? clean(counterparty[2]),
    counterpartyIban: asIban(clean(values.get('IBAN')) ?? clean(counterparty[0])),
    counterpartyBic: asBic(clean(values.get('BIC')) ?? clean(counterparty[1])),
    ...(rtrn !== undefined ? { returnReason: rtrn?.match(/^[A-Z]{2}\d{2}/)?.[0] ?? null } : {}),
  };
}
