/**
 * The information to an MT940 entry (`:86:`): the German structured form with `?NN`
 * subfields (DFÜ-Abkommen, Anlage 3), SEPA keys inside the purpose (`EREF+`, `MREF+`,
 * `SVWZ+` …), the Dutch/SWIFT `/KEY/value` form, and free text. Also used by the CSV parser,
 * whose purpose columns carry the same SEPA keys.
 */
import { asBic, asIban, normaliseSpace } from './text.js';
import type { BatchInfo } from './types.js';

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
  /** Set on a batch booking (a Sammler GVC, `SAMMLER` in the text, or a `KREF+` without `EREF+`). */
  batch?: BatchInfo;
}

/**
 * The DK business transaction codes (GVC, the three digits before `?00`) of returned SEPA
 * payments: 108 and 109 SEPA direct-debit returns (Rückbelastung; banks use 109 for CORE and
 * 108 for B2B), 159 SEPA credit transfer return (Retoure).
 */
export const RETURN_GVC = new Set(['108', '109', '159']);

/**
 * The DK GVCs of batch bookings (Sammler): 191 SEPA credit transfers debited, 192 and 196
 * SEPA core / B2B direct debits credited, 194 credit transfers credited, 195 and 197 direct
 * debits debited.
 */
export const BATCH_GVC = new Set(['191', '192', '194', '195', '196', '197']);

/**
 * The return reason of a DK return (`?34`, Textschlüsselergänzung, DFÜ-Abkommen Anlage 3): the
 * codes 901–921 name the ISO 20022 reasons of SEPA R-transactions in the order of the DK list.
 */
export const DK_RETURN_REASONS: Readonly<Record<string, string>> = {
  '901': 'AC01', // IBAN fehlerhaft
  '902': 'AC04', // Konto erloschen
  '903': 'AC06', // Konto gesperrt
  '904': 'AG01', // Transaktion für dieses Konto nicht zulässig (z. B. Sparkonto)
  '905': 'AG02', // ungültiger Bank-Operationscode
  '906': 'AM04', // Deckung unzureichend
  '907': 'AM05', // Doppelverarbeitung
  '908': 'BE05', // Gläubiger-ID ungültig
  '909': 'FF01', // Dateiformat ungültig
  '910': 'MD01', // kein gültiges Mandat
  '911': 'MD02', // Mandatsdaten fehlen oder sind fehlerhaft
  '912': 'MD06', // Widerspruch / Erstattung auf Verlangen des Zahlers
  '913': 'MD07', // Zahler verstorben
  '914': 'MS02', // Grund nicht spezifiziert, vom Kunden veranlasst
  '915': 'MS03', // Grund nicht spezifiziert, von der Bank veranlasst
  '916': 'RC01', // BIC ungültig
  '917': 'RR01', // aufsichtsrechtliche Gründe: Konto / Id des Zahlers fehlt
  '918': 'RR02', // aufsichtsrechtliche Gründe: Name / Adresse des Zahlers fehlt
  '919': 'RR03', // aufsichtsrechtliche Gründe: Name / Adresse des Empfängers fehlt
  '920': 'RR04', // aufsichtsrechtliche Gründe
  '921': 'SL01', // spezifische Dienstleistung der Bank des Zahlers
};

/**
 * The reason of a return line: the ISO code its `?34` names (`DK_RETURN_REASONS`), else an
 * ISO code the text names (`SVWZ+… AC04`, `RTRN+MD01`, `Rückgabegrund MD06`), else the bank's
 * own `?34` code as given (a code outside the table: no mandate is revoked for it), else null.
 */
export function returnReasonOf(textKey: string | null, text: string): string | null {
  const key = textKey?.trim().slice(0, 3) ?? '';
  const mapped = DK_RETURN_REASONS[key];
  if (mapped !== undefined) return mapped;
  const named = ISO_RETURN_REASON.exec(text);
  if (named) return named[1] ?? null;
  return /^\d{3}$/.test(key) && key !== '000' ? key : null;
}

/** The ISO 20022 return reason codes of SEPA R-transactions (EPC guidance on reason codes). */
const ISO_RETURN_REASON =
  /\b(AC0[1-6]|AC13|AG0[12]|AM0[1-5]|BE05|CNOR|DNOR|FF0[1-5]|MD0[1-7]|MS0[23]|RC01|RR0[1-4]|SL01|FOCR|DUPL|TECH|FRAD|CUST)\b/;

export interface SepaPurpose {
  purpose: string;
  endToEndId: string | null;
  mandateReference: string | null;
  /** The `KREF+` customer reference (a file's or batch's id on a batch booking). */
  customerReference?: string | null;
}

const KEYS = [
  'EREF',
  'KREF',
  'MREF',
  'CRED',
  'DEBT',
  'COAM',
  'OAMT',
  'SVWZ',
  'ABWA',
  'ABWE',
  'IBAN',
  'BIC',
  'PURP',
  'RTRN',
  'BREF',
  'RREF',
] as const;
const KEY_GROUP = `(${KEYS.join('|')})`;
const SEPA_KEY = new RegExp(`(?<![A-Z])${KEY_GROUP}\\+`, 'g');
/** A key anywhere, also glued to the text before it (only looked for inside an overlong id). */
const INNER_KEY = new RegExp(`(?<=.)${KEY_GROUP}\\+`);
const KEY_AT_START = new RegExp(`^${KEY_GROUP}\\+`);

/** The longest a SEPA reference (`EREF`, `KREF`, `MREF`) may be (EPC: 35 characters). */
const MAX_REFERENCE = 35;
/** Marks a hard break in a joined purpose: the subfield before it was not filled. */
const HARD_BREAK = '\n';

/** True for the SEPA placeholders banks put where a reference is missing. */
export function isNotProvided(value: string): boolean {
  return /^NOT ?PROVIDED$/i.test(value.trim());
}

/** The key values of a purpose text, each key's pieces joined (a repeated key continues). */
function keyValues(text: string): { values: Map<string, string>; first: number } {
  const values = new Map<string, string>();
  SEPA_KEY.lastIndex = 0;
  let match = SEPA_KEY.exec(text);
  const first = match?.index ?? -1;
  while (match) {
    const key = match[1]!;
    const start = match.index + match[0].length;
    const next = SEPA_KEY.exec(text);
    const value = text.slice(start, next ? next.index : text.length);
    const before = values.get(key);
    values.set(key, before === undefined ? value : `${before} ${value}`);
    match = next;
  }
  return { values, first };
}

/**
 * Splits a purpose text with SEPA keys (`EREF+… MREF+… SVWZ+…`) into the end-to-end id,
 * the mandate reference, the customer reference and the remittance text (the `SVWZ+` part).
 * Without a usable `SVWZ+` the whole text stays the purpose, so nothing the bank wrote is lost.
 *
 * A reference is at most 35 characters: one that runs longer swallowed what follows it — a key
 * glued to its end (`EREF+KTR…XSVWZ+…`, split there) or the text after a subfield the bank did
 * not fill (a `HARD_BREAK` from `joinSepaPieces`: the reference ends there), or else at the
 * last word that fits; the rest is remittance text.
 */
export function splitSepaPurpose(text: string): SepaPurpose {
  let marked = text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, HARD_BREAK)
    .trim();
  if (!marked.includes('+')) {
    return { purpose: normaliseSpace(marked), endToEndId: null, mandateReference: null };
  }
  let parsed = keyValues(marked);
  // An overlong reference with a key glued inside: split there and read the text again.
  for (let round = 0; round < 8; round++) {
    let glued = -1;
    for (const key of ['EREF', 'KREF', 'MREF']) {
      const value = parsed.values.get(key);
      if (value === undefined || normaliseSpace(value).length <= MAX_REFERENCE) continue;
      const inner = INNER_KEY.exec(value);
      if (inner) {
        glued = marked.indexOf(value) + inner.index;
        break;
      }
    }
    if (glued < 0) break;
    marked = `${marked.slice(0, glued)} ${marked.slice(glued)}`;
    parsed = keyValues(marked);
  }
  const rest: string[] = [];
  const reference = (key: string): string | null => {
    const value = parsed.values.get(key);
    if (value === undefined) return null;
    const whole = normaliseSpace(value);
    if (whole.length <= MAX_REFERENCE) return usable(whole);
    // Up to the first subfield the bank did not fill, and then to the last word that fits.
    const hard = value.indexOf(HARD_BREAK);
    let head = normaliseSpace(hard < 0 ? value : value.slice(0, hard));
    if (head.length > MAX_REFERENCE) {
      const space = head.lastIndexOf(' ', MAX_REFERENCE);
      if (space <= 0) return usable(whole);
      head = head.slice(0, space);
    }
    rest.push(normaliseSpace(whole.slice(head.length)));
    return usable(head);
  };
  const endToEndId = reference('EREF');
  const mandateReference = reference('MREF');
  const customerReference = reference('KREF');
  const svwz = usable(normaliseSpace(parsed.values.get('SVWZ') ?? ''));
  const purpose =
    svwz === null ? normaliseSpace(marked) : normaliseSpace([svwz, ...rest].join(' '));
  return {
    purpose,
    endToEndId,
    mandateReference,
    ...(customerReference !== null ? { customerReference } : {}),
  };
}

function usable(value: string | null): string | null {
  return value === null || value === '' || isNotProvided(value) ? null : value;
}

/**
 * Joins the purpose subfields (`?20`–`?29`, `?60`–`?63`) of a German `:86:` for
 * `splitSepaPurpose`. DK: every key starts a subfield, and a value too long for one continues
 * in the next without its key. So a key at the start of a subfield is a key whatever precedes
 * it (a space is put before it), a key cut by a subfield boundary (`…SV` + `WZ+…`,
 * `SVWZ` + `+…`) is joined whole, a filled subfield continues mid-word, and after one not
 * filled the bank ended the line (a `HARD_BREAK`).
 */
export function joinSepaPieces(pieces: string[], width = 27): string {
  let out = '';
  for (const [i, piece] of pieces.entries()) {
    if (i > 0) {
      const filled = (pieces[i - 1] ?? '').length >= width;
      const cut = cutKey(out, piece, filled);
      if (cut > 0) {
        // The key's head ends the text so far: move it past a space and glue its tail on.
        out = `${out.slice(0, out.length - cut).trimEnd()} ${out.slice(out.length - cut)}`;
        out += piece;
        continue;
      }
      if (KEY_AT_START.test(piece)) out += filled ? ' ' : HARD_BREAK;
      else if (!filled) out += HARD_BREAK;
    }
    out += piece;
  }
  return out;
}

/** How many characters at the end of `before` start a key that `piece` finishes (0: none). */
function cutKey(before: string, piece: string, filled: boolean): number {
  for (const key of KEYS)
    for (let head = 1; head <= key.length; head++)
      if (before.endsWith(key.slice(0, head)) && piece.startsWith(`${key.slice(head)}+`)) {
        const at = before.length - head;
        // The head must start a word, so `…DEBSV` + `WZ+` is not read as `SVWZ+` mid-word
        // unless the subfield before was filled (it wrapped mid-word).
        if (at === 0 || filled || !/[A-Z]/.test(before[at - 1]!)) return head;
      }
  return 0;
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
    const parsed = parseGermanStructured(joined, separator);
    const { details } = parsed;
    const gvc = structured[1];
    if (gvc !== undefined && RETURN_GVC.has(gvc)) {
      const text = `${parsed.wholeText} ${details.bookingText ?? ''}`;
      return { ...details, returnReason: returnReasonOf(parsed.textKey, text) };
    }
    const batch = batchOf(gvc, parsed);
    return batch === undefined ? details : { ...details, batch };
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
function subfieldKind(
  code: number,
): 'purpose' | 'name' | 'text' | 'account' | 'bank' | 'textKey' | null {
  if ((code >= 20 && code <= 29) || (code >= 60 && code <= 63)) return 'purpose';
  if (code === 32 || code === 33) return 'name';
  if (code === 0) return 'text';
  if (code === 31) return 'account';
  if (code === 30) return 'bank';
  if (code === 34) return 'textKey';
  return null;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * `166?00GUTSCHRIFT?20SVWZ+…?30BIC?31IBAN?32NAME`: scans for the separator followed by two
 * digits (no regex, this runs once per entry of files with 100 000 entries).
 */
function parseGermanStructured(
  joined: string,
  separator: string,
): { details: EntryDetails; textKey: string; customerReference: string | null; wholeText: string } {
  const purpose: string[] = [];
  const name: string[] = [];
  let bookingText = '';
  let account = '';
  let bank = '';
  let textKey = '';
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
      case 'textKey':
        textKey += value;
        break;
      case null:
        break;
    }
    at = next;
  }
  const whole = joinSepaPieces(purpose);
  const sepa = splitSepaPurpose(whole);
  const text = normaliseSpace(bookingText);
  const counterparty = joinPieces(name);
  return {
    details: {
      bookingText: text === '' ? null : text,
      purpose: sepa.purpose,
      endToEndId: sepa.endToEndId,
      mandateReference: sepa.mandateReference,
      counterpartyName: counterparty === '' ? null : counterparty,
      counterpartyIban: asIban(account),
      counterpartyBic: asBic(bank),
    },
    textKey: normaliseSpace(textKey),
    customerReference: sepa.customerReference ?? null,
    wholeText: normaliseSpace(whole),
  };
}

/** Words of a purpose that may be a file's or batch's id (a `MsgId` or `PmtInfId`). */
function idLikeWords(text: string): string[] {
  return text
    .split(/[\s,;]+/)
    .map((w) => w.replace(/^[^A-Za-z0-9]+|[^A-Za-z0-9]+$/g, ''))
    .filter((w) => w.length >= 8 && w.length <= MAX_REFERENCE && /\d/.test(w) && !w.includes('+'))
    .slice(0, 20);
}

/**
 * A batch booking (Sammler) of a German `:86:`: a batch GVC, `SAMMLER` in the booking text or
 * purpose, or a `KREF+` customer reference without an `EREF+` (DK: KREF is a file's or a
 * batch's reference, EREF a single payment's). Its references: the KREF, then the purpose's
 * id-like words.
 */
function batchOf(
  gvc: string | undefined,
  parsed: ReturnType<typeof parseGermanStructured>,
): BatchInfo | undefined {
  const { details, customerReference, wholeText } = parsed;
  const sammler = /SAMMLER/i.test(`${details.bookingText ?? ''} ${wholeText}`);
  const batch =
    (gvc !== undefined && BATCH_GVC.has(gvc)) ||
    sammler ||
    (customerReference !== null && details.endToEndId === null);
  if (!batch) return undefined;
  const references = [
    ...(customerReference !== null ? [customerReference] : []),
    ...idLikeWords(wholeText),
  ];
  return { references: [...new Set(references)], count: null, endToEndIds: [] };
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
