import iconv from 'iconv-lite';
import { defuseFormula } from '../../shared/spreadsheet.js';

/**
 * The DATEV format (EXTF), data category 21 "Buchungsstapel": header version 700, format
 * version 13, as DATEV's interface description and its sample file `EXTF_Buchungsstapel.csv`
 * lay it out (docs/datev.md). Line 1 is the 31-field header, line 2 the 125 column names,
 * then one line per booking. Windows-1252, `;` between fields, CRLF, text in `"` (inner `"`
 * doubled), amounts with a decimal comma and no thousands separator.
 */

/** The 125 columns of format version 13, in order, spelt as DATEV spells them. */
export const COLUMNS: readonly string[] = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
  'Postensperre',
  'Diverse Adressnummer',
  'Geschäftspartnerbank',
  'Sachverhalt',
  'Zinssperre',
  'Beleglink',
  ...Array.from({ length: 8 }, (_, i) => [
    `Beleginfo - Art ${i + 1}`,
    `Beleginfo - Inhalt ${i + 1}`,
  ]).flat(),
  'KOST1 - Kostenstelle',
  'KOST2 - Kostenstelle',
  'Kost-Menge',
  'EU-Land u. UStID (Bestimmung)',
  'EU-Steuersatz (Bestimmung)',
  'Abw. Versteuerungsart',
  'Sachverhalt L+L',
  'Funktionsergänzung L+L',
  'BU 49 Hauptfunktionstyp',
  'BU 49 Hauptfunktionsnummer',
  'BU 49 Funktionsergänzung',
  // DATEV's own spelling: a space before the dash in "Art", none in "Inhalt".
  ...Array.from({ length: 20 }, (_, i) => [
    `Zusatzinformation - Art ${i + 1}`,
    `Zusatzinformation- Inhalt ${i + 1}`,
  ]).flat(),
  'Stück',
  'Gewicht',
  'Zahlweise',
  'Forderungsart',
  'Veranlagungsjahr',
  'Zugeordnete Fälligkeit',
  'Skontotyp',
  'Auftragsnummer',
  'Buchungstyp',
  'USt-Schlüssel (Anzahlungen)',
  'EU-Land (Anzahlungen)',
  'Sachverhalt L+L (Anzahlungen)',
  'EU-Steuersatz (Anzahlungen)',
  'Erlöskonto (Anzahlungen)',
  'Herkunft-Kz',
  'Buchungs GUID',
  'KOST-Datum',
  'SEPA-Mandatsreferenz',
  'Skontosperre',
  'Gesellschaftername',
  'Beteiligtennummer',
  'Identifikationsnummer',
  'Zeichnernummer',
  'Postensperre bis',
  'Bezeichnung SoBil-Sachverhalt',
  'Kennzeichen SoBil-Buchung',
  'Festschreibung',
  'Leistungsdatum',
  'Datum Zuord. Steuerperiode',
  'Fälligkeit',
  'Generalumkehr (GU)',
  'Steuersatz',
  'Land',
  'Abrechnungsreferenz',
  'BVV-Position',
  'EU-Land u. UStID (Ursprung)',
  'EU-Steuersatz (Ursprung)',
  'Abw. Skontokonto',
];

const column = (name: string): number => {
  const index = COLUMNS.indexOf(name);
  if (index < 0) throw new Error(`unknown DATEV column ${name}`);
  return index;
};
const AT = {
  amount: column('Umsatz (ohne Soll/Haben-Kz)'),
  side: column('Soll/Haben-Kennzeichen'),
  currency: column('WKZ Umsatz'),
  account: column('Konto'),
  contraAccount: column('Gegenkonto (ohne BU-Schlüssel)'),
  taxKey: column('BU-Schlüssel'),
  date: column('Belegdatum'),
  reference: column('Belegfeld 1'),
  text: column('Buchungstext'),
  link: column('Beleglink'),
  euVatId: column('EU-Land u. UStID (Bestimmung)'),
} as const;

/** The header's settings: who the batch is for and which period it covers. */
export interface ExtfHeader {
  createdAt: Date;
  consultantNumber: number;
  clientNumber: number;
  /** The first day of the fiscal year the batch belongs to (YYYY-MM-DD). */
  fiscalYearStart: string;
  accountLength: number;
  /** The period (YYYY-MM-DD), inside that fiscal year. */
  from: string;
  to: string;
  chart: 'SKR03' | 'SKR04';
  /** Currency of the header (WKZ): the default of every booking. */
  currency: string;
}

/** One booking line: `amount` on `account` with `side`, against `contraAccount`. */
export interface Booking {
  /** Positive integer minor units (cents). */
  amountMinor: number;
  /** S: debit on `account` (credit on `contraAccount`); H the other way round. */
  side: 'S' | 'H';
  currency: string;
  account: number;
  contraAccount: number;
  /** BU-Schlüssel; empty for automatic accounts. */
  taxKey: string;
  /** YYYY-MM-DD; written as DDMM, the year comes from the header's period. */
  date: string;
  /** Belegfeld 1: the invoice number. */
  reference: string;
  text: string;
  /** The document image's GUID (Beleglink `BEDI "<guid>"`), if one is in the package. */
  documentGuid: string | null;
  /** Country and VAT id of the buyer for intra-EU supplies (`NL123456789B01`). */
  euVatId: string | null;
}

/**
 * A text field: in `"`, inner `"` doubled, no line breaks or control characters, and a
 * formula-like start (`=HYPERLINK(…)` as a partner name) defused with `'` as the CSV lists do:
 * the advisor may open the file in a spreadsheet.
 */
export function text(value: string, max: number): string {
  const clean = defuseFormula(
    value
      .normalize('NFC')
      // eslint-disable-next-line no-control-regex -- exactly the control characters go
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .trim(),
  ).slice(0, max);
  return `"${clean.replace(/"/g, '""')}"`;
}

/**
 * Belegfeld 1 allows letters, digits and `$ & % * + - /` only, at most 36 characters; a
 * leading `+` or `-` (a formula to a spreadsheet, and `'` is not allowed here) becomes `_`.
 */
export function reference(value: string): string {
  return value
    .replace(/[^A-Za-z0-9_$&%*+\-/]/g, '-')
    .replace(/^[+-]/, '_')
    .slice(0, 36);
}

/** Minor units → `1234,56` (no thousands separator, always two decimals). */
export function amount(minor: number): string {
  const cents = Math.abs(minor);
  return `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
}

const compact = (date: string) => date.replace(/-/g, '');
const ddmm = (date: string) => `${date.slice(8, 10)}${date.slice(5, 7)}`;

function stamp(at: Date): string {
  const iso = at.toISOString(); // 2026-03-31T12:34:56.789Z
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}${iso.slice(20, 23)}`;
}

/** Line 1: the 31 header fields in DATEV's order (docs/datev.md lists each). */
export function headerLine(h: ExtfHeader): string {
  return [
    text('EXTF', 4),
    '700',
    '21',
    text('Buchungsstapel', 14),
    '13',
    stamp(h.createdAt),
    '', // imported (DATEV fills it)
    text('RE', 2), // origin; DATEV replaces it by "SV" on import
    text('', 25), // exported by
    text('', 25), // imported by
    String(h.consultantNumber),
    String(h.clientNumber),
    compact(h.fiscalYearStart),
    String(h.accountLength),
    compact(h.from),
    compact(h.to),
    text(`Kontor ${compact(h.from)}-${compact(h.to)}`, 30),
    text('', 2), // initials
    '1', // booking type: financial accounting
    '0', // accounting purpose: independent of it
    '0', // not locked (Festschreibung): the advisor locks after review
    text(h.currency, 3),
    '',
    text('', 0),
    '',
    '',
    text(h.chart === 'SKR03' ? '03' : '04', 2),
    '',
    '',
    text('', 0),
    text('', 0),
  ].join(';');
}

/** Line 2: the column names, unquoted, as in DATEV's sample. */
export const columnLine = (): string => COLUMNS.join(';');

/** One booking as a line of exactly 125 fields. */
export function bookingLine(b: Booking): string {
  const cells: string[] = new Array<string>(COLUMNS.length).fill('');
  cells[AT.amount] = amount(b.amountMinor);
  cells[AT.side] = text(b.side, 1);
  cells[AT.currency] = text(b.currency, 3);
  cells[AT.account] = String(b.account);
  cells[AT.contraAccount] = String(b.contraAccount);
  cells[AT.taxKey] = text(b.taxKey, 4);
  cells[AT.date] = ddmm(b.date);
  cells[AT.reference] = text(reference(b.reference), 36);
  cells[AT.text] = text(b.text, 60);
  if (b.documentGuid) cells[AT.link] = text(`BEDI "${b.documentGuid}"`, 210);
  if (b.euVatId) cells[AT.euVatId] = text(b.euVatId, 15);
  return cells.join(';');
}

/** Text → Windows-1252 bytes; characters it cannot hold become `?`. */
export function encode(value: string): Buffer {
  return iconv.encode(value, 'win1252');
}

export const CRLF = '\r\n';
