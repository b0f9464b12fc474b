/**
 * The column vocabulary of German online-banking CSV exports (Sparkasse, Commerzbank, DKB,
 * VR-Bank, 1822direkt, Targobank, N26, ING, Deutsche Bank, Postbank …) and the mapping of a
 * header row onto the roles the parser needs.
 */

export type ColumnRole =
  | 'bookingDate'
  | 'valueDate'
  | 'amount'
  | 'debit'
  | 'credit'
  | 'sollHaben'
  | 'currency'
  | 'name'
  | 'payer'
  | 'payee'
  | 'ownSide'
  | 'iban'
  | 'bic'
  | 'purpose'
  | 'purposeExtra'
  | 'bookingText'
  | 'mandate'
  | 'creditorId'
  | 'endToEnd'
  | 'bankReference'
  | 'ownAccount'
  | 'status'
  | 'runningBalance';

/**
 * Header names per role, normalised (see `normaliseHeader`), best first: where an export has
 * several candidates (DKB: Belegdatum and Buchungsdatum) the earlier name wins.
 */
const ALIASES: Record<ColumnRole, string[]> = {
  bookingDate: [
    'buchungstag',
    'buchungsdatum',
    'buchung',
    'booking date',
    'datum',
    'date',
    'transaction date',
    'belegdatum',
  ],
  valueDate: [
    'wertstellung',
    'valuta',
    'valutadatum',
    'wertstellungsdatum',
    'wertstellung (valuta)',
    'wert',
    'value date',
  ],
  amount: [
    'buchungsbetrag',
    'betrag',
    'betrag (eur)',
    'betrag (euro)',
    'betrag in eur',
    'betrag eur',
    'betrag (€)',
    'betrag in €',
    'umsatz',
    'umsatz in eur',
    'umsatz (eur)',
    'amount',
    'amount (eur)',
  ],
  debit: ['soll', 'soll (eur)', 'soll in eur', 'ausgang', 'ausgaenge', 'belastung', 'debit'],
  credit: ['haben', 'haben (eur)', 'haben in eur', 'eingang', 'eingaenge', 'credit'],
  sollHaben: [
    'soll/haben',
    's/h',
    'sh',
    'soll-haben',
    'haben/soll',
    'soll/haben-kennzeichen',
    'kennzeichen',
    '',
  ],
  currency: ['waehrung', 'buchungswaehrung', 'whg', 'whrg', 'currency'],
  name: [
    'empfaenger/zahlungspflichtiger',
    'beguenstigter/zahlungspflichtiger',
    'name zahlungsbeteiligter',
    'zahlungsbeteiligter',
    'auftraggeber/empfaenger',
    'empfaenger/auftraggeber',
    'empfaenger/auftraggeber name',
    'beguenstigter/auftraggeber',
    'auftraggeber/beguenstigter',
    'zahlungsempfaenger/zahlungspflichtiger',
    'partner name',
    'gegenpartei',
    'name',
    'payee',
    'counterparty',
  ],
  payer: ['zahlungspflichtige', 'zahlungspflichtiger', 'auftraggeber', 'auftraggeber name'],
  payee: ['zahlungsempfaenger', 'empfaenger', 'beguenstigter', 'empfaenger name'],
  ownSide: ['auftraggeber/zahlungsempfaenger'],
  iban: [
    'empfaenger/auftraggeber iban',
    'iban zahlungsbeteiligter',
    'iban des zahlungsbeteiligten',
    'kontonummer/iban',
    'iban/kontonummer',
    'partner iban',
    'iban',
    'gegenkonto',
    'iban gegenkonto',
    'kontonummer',
    'konto-nr.',
    'konto-nr',
  ],
  bic: [
    'empfaenger/auftraggeber bic',
    'bic zahlungsbeteiligter',
    'bic des zahlungsbeteiligten',
    'bic (swift-code)',
    'bic',
    'swift',
    'bic/blz',
    'blz',
    'bankleitzahl',
  ],
  purpose: [
    'verwendungszweck',
    'vorgang/verwendungszweck',
    'transaktionsbeschreibung',
    'buchungsdetails',
    'payment reference',
    'beschreibung',
    'description',
    'purpose',
    'memo',
  ],
  purposeExtra: ['transaktionsbeschreibung zusatz'],
  bookingText: [
    'buchungstext',
    'umsatzart',
    'buchungsart',
    'transaktionstyp',
    'umsatztyp',
    'vorgang',
    'type',
    'transaction type',
  ],
  mandate: ['mandatsreferenz', 'mandats-referenz', 'mandate reference'],
  creditorId: [
    'glaeubiger-id',
    'glaeubiger id',
    'glaeubigerid',
    'glaeubiger-identifikation',
    'creditor id',
  ],
  endToEnd: [
    'kundenreferenz (end-to-end)',
    'end-to-end-referenz',
    'end-to-end-identifikation',
    'end-to-end-id',
    'end-to-end referenz',
    'end to end referenz',
  ],
  bankReference: ['buchungsreferenz', 'bankreferenz', 'bank reference'],
  ownAccount: ['iban auftraggeberkonto', 'auftragskonto', 'auftraggeberkonto'],
  status: ['info', 'status', 'buchungsstatus'],
  runningBalance: ['saldo', 'kontostand', 'saldo nach buchung', 'kontostand nach buchung'],
};

/** Numbered purpose columns: 1822direkt `Vwz.0`…`Vwz.17`, `Verwendungszweck 1`… */
const NUMBERED_PURPOSE = /^(?:vwz\.?|verwendungszweck|verwendungszweckzeile)\s*\d+$/;

const ROLE_OF = new Map<string, { role: ColumnRole; rank: number }>();
for (const [role, names] of Object.entries(ALIASES) as [ColumnRole, string[]][]) {
  for (const [rank, name] of names.entries()) {
    if (!ROLE_OF.has(name)) ROLE_OF.set(name, { role, rank });
  }
}

/** `"Empfänger / Zahlungspflichtige*r:"` → `empfaenger/zahlungspflichtige`. */
export function normaliseHeader(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/\*(?:r|in|innen)\b/g, '')
    .replace(/["']/g, '')
    .replace(/\s*\/\s*/g, '/')
    .replace(/[\s\u00a0]+/g, ' ')
    .replace(/\s*:$/, '')
    .trim();
}

/**
 * Looks a header name up. A header whose umlaut was destroyed on the way (`Empf\uFFFDnger`,
 * an export re-encoded twice) matches a name with any umlaut spelling in that place.
 */
function lookup(raw: string): { role: ColumnRole; rank: number } | null {
  const name = normaliseHeader(raw);
  if (NUMBERED_PURPOSE.test(name)) return { role: 'purpose', rank: 0 };
  const direct = ROLE_OF.get(name);
  if (direct) return direct;
  if (!name.includes('\uFFFD')) return null;
  const pattern = new RegExp(
    `^${name
      .split('\uFFFD')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('(?:ae|oe|ue|ss|a|o|u)')}$`,
  );
  for (const [candidate, hit] of ROLE_OF) if (pattern.test(candidate)) return hit;
  return null;
}

export interface ColumnMap {
  /** Best column per role (lowest rank, then leftmost). */
  best: Partial<Record<ColumnRole, number>>;
  /** Every column per role, left to right. */
  all: Partial<Record<ColumnRole, number[]>>;
  /** Number of distinct roles found (a blank header counts for nothing). */
  score: number;
  /** A column is named like a Soll/Haben column (1822direkt keeps signed amounts in it). */
  namedSollHaben: boolean;
}

/** Maps a header row onto roles. */
export function mapColumns(header: string[]): ColumnMap {
  const best: Partial<Record<ColumnRole, number>> = {};
  const bestRank: Partial<Record<ColumnRole, number>> = {};
  const all: Partial<Record<ColumnRole, number[]>> = {};
  for (const [index, cell] of header.entries()) {
    const hit = lookup(cell);
    if (!hit) continue;
    (all[hit.role] ??= []).push(index);
    const rank = bestRank[hit.role];
    if (rank === undefined || hit.rank < rank) {
      best[hit.role] = index;
      bestRank[hit.role] = hit.rank;
    }
  }
  // A blank header counts for nothing on its own: preamble rows are full of empty cells.
  const namedSollHaben = (all.sollHaben ?? []).some((i) => normaliseHeader(header[i] ?? '') !== '');
  const roles = Object.keys(best) as ColumnRole[];
  const score = roles.filter((r) => r !== 'sollHaben' || namedSollHaben).length;
  return { best, all, score, namedSollHaben };
}

/** True when a header row can carry entries: a booking date and some amount column. */
export function isEntryHeader(map: ColumnMap): boolean {
  const { best } = map;
  const amount =
    best.amount !== undefined ||
    best.debit !== undefined ||
    best.credit !== undefined ||
    (map.namedSollHaben && map.score >= 4);
  return best.bookingDate !== undefined && amount && map.score >= 3;
}
