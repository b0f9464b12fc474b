import { COUNTRY_CODES } from './countries.js';

/**
 * VAT identification numbers (USt-IdNr., EN 16931 BT-31 / BT-48): the syntax of every EU
 * member state as the Commission's VIES publishes it, Northern Ireland (`XI`), and the three
 * neighbours German businesses invoice most (GB, CH, NO). Any other ISO 3166-1 prefix passes a
 * generic shape check, because EN 16931 (BR-CO-9) only asks for a country prefix and a buyer
 * outside Europe may well have a VAT number. Greece uses `EL`, not `GR` (VIES and BR-CO-9).
 */
const PATTERNS: Record<string, RegExp> = {
  AT: /^ATU\d{8}$/,
  BE: /^BE[01]\d{9}$/,
  BG: /^BG\d{9,10}$/,
  CY: /^CY\d{8}[A-Z]$/,
  CZ: /^CZ\d{8,10}$/,
  DE: /^DE\d{9}$/,
  DK: /^DK\d{8}$/,
  EE: /^EE\d{9}$/,
  EL: /^EL\d{9}$/,
  ES: /^ES[A-Z0-9]\d{7}[A-Z0-9]$/,
  FI: /^FI\d{8}$/,
  FR: /^FR[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^HR\d{11}$/,
  HU: /^HU\d{8}$/,
  IE: /^IE(?:\d{7}[A-W][A-IW]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^IT\d{11}$/,
  LT: /^LT(?:\d{9}|\d{12})$/,
  LU: /^LU\d{8}$/,
  LV: /^LV\d{11}$/,
  MT: /^MT\d{8}$/,
  NL: /^NL\d{9}B\d{2}$/,
  PL: /^PL\d{10}$/,
  PT: /^PT\d{9}$/,
  RO: /^RO[1-9]\d{1,9}$/,
  SE: /^SE\d{10}01$/,
  SI: /^SI\d{8}$/,
  SK: /^SK\d{10}$/,
  XI: /^XI(?:\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  GB: /^GB(?:\d{9}|\d{12}|GD\d{3}|HA\d{3})$/,
  CH: /^CHE\d{9}(?:MWST|TVA|IVA)?$/,
  NO: /^NO\d{9}(?:MVA)?$/,
};

/** What each country's number looks like, for the problem message. */
const SHAPES: Record<string, string> = {
  AT: 'ATU + 8 digits',
  BE: 'BE + 10 digits starting with 0 or 1',
  BG: 'BG + 9 or 10 digits',
  CY: 'CY + 8 digits + a letter',
  CZ: 'CZ + 8 to 10 digits',
  DE: 'DE + 9 digits',
  DK: 'DK + 8 digits',
  EE: 'EE + 9 digits',
  EL: 'EL + 9 digits',
  ES: 'ES + 9 characters (letter or digit, 7 digits, letter or digit)',
  FI: 'FI + 8 digits',
  FR: 'FR + 2 characters + 9 digits',
  HR: 'HR + 11 digits',
  HU: 'HU + 8 digits',
  IE: 'IE + 8 or 9 characters',
  IT: 'IT + 11 digits',
  LT: 'LT + 9 or 12 digits',
  LU: 'LU + 8 digits',
  LV: 'LV + 11 digits',
  MT: 'MT + 8 digits',
  NL: 'NL + 9 digits + B + 2 digits',
  PL: 'PL + 10 digits',
  PT: 'PT + 9 digits',
  RO: 'RO + 2 to 10 digits',
  SE: 'SE + 12 digits ending in 01',
  SI: 'SI + 8 digits',
  SK: 'SK + 10 digits',
  XI: 'XI + 9 or 12 digits, or GD/HA + 3 digits',
  GB: 'GB + 9 or 12 digits, or GD/HA + 3 digits',
  CH: 'CHE + 9 digits (+ MWST, TVA or IVA)',
  NO: 'NO + 9 digits (+ MVA)',
};

/** The id upper-cased, without spaces, dots or hyphens (`de 123.456.789` → `DE123456789`). */
export function normalizeVatId(value: string): string {
  return value.replace(/[\s.-]+/g, '').toUpperCase();
}

/**
 * The check digit of a German USt-IdNr. (BZSt: ISO 7064 MOD 11,10 over the first 8 digits)
 * equals its 9th digit.
 */
function germanCheckDigitOk(digits: string): boolean {
  let product = 10;
  for (const d of digits.slice(0, 8)) {
    let sum = (Number(d) + product) % 10;
    if (sum === 0) sum = 10;
    product = (2 * sum) % 11;
  }
  const check = (11 - product) % 10;
  return check === Number(digits[8]);
}

/**
 * Why a VAT id is invalid, or undefined when it is valid. Checks the value after
 * `normalizeVatId`: the country prefix, that country's syntax and, for Germany, the check digit.
 */
export function vatIdProblem(value: string): string | undefined {
  const id = normalizeVatId(value);
  const prefix = id.slice(0, 2);
  if (!/^[A-Z]{2}/.test(id)) return 'must start with a country prefix, e.g. DE';
  if (prefix === 'GR') return 'must use the prefix EL for Greece';
  const pattern = PATTERNS[prefix];
  if (pattern) {
    if (!pattern.test(id)) return `must be ${SHAPES[prefix]} for ${prefix}`;
    if (prefix === 'DE' && !germanCheckDigitOk(id.slice(2))) return 'has a wrong check digit';
    return undefined;
  }
  if (!COUNTRY_CODES.includes(prefix)) return `has an unknown country prefix ${prefix}`;
  return /^[A-Z]{2}[A-Z0-9]{2,13}$/.test(id)
    ? undefined
    : 'must be the country prefix and 2 to 13 letters or digits';
}
