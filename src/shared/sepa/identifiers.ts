import { ibanProblem, normalizeIban } from '../iban.js';

/**
 * Countries in the geographical scope of the SEPA schemes (EPC409-09) with their own IBAN
 * prefix; territories that use another country's IBAN (French overseas departments, Åland,
 * Jersey, …) are covered by it.
 */
const SEPA_IBAN_COUNTRIES = new Set(
  (
    'AD AL AT BE BG CH CY CZ DE DK EE ES FI FR GB GI GR HR HU IE IS IT LI LT LU LV MC MD ME MK ' +
    'MT NL NO PL PT RO RS SE SI SK SM VA'
  ).split(' '),
);

/** Why `iban` cannot be used in a SEPA file, or undefined. */
export function sepaIbanProblem(iban: string): string | undefined {
  const problem = ibanProblem(iban);
  if (problem !== undefined) return `IBAN ${problem}`;
  const country = normalizeIban(iban).slice(0, 2);
  if (!SEPA_IBAN_COUNTRIES.has(country)) return `IBAN of ${country} is outside the SEPA area`;
  return undefined;
}

/**
 * BIC (ISO 9362): 4 letters bank, 2 letters country, 2 location characters (the first not 0
 * or 1, the second not the letter O, as the EPC and DK patterns have it), optional 3 branch.
 */
const BIC = /^[A-Z]{4}[A-Z]{2}[A-Z2-9][A-NP-Z0-9]([A-Z0-9]{3})?$/;

/** The BIC without spaces, upper-cased. */
export function normalizeBic(bic: string): string {
  return bic.replace(/\s+/g, '').toUpperCase();
}

/** True for a well-formed BIC (8 or 11 characters, any case, spaces ignored). */
export function isValidBic(bic: string): boolean {
  return BIC.test(normalizeBic(bic));
}

/** Creditor identifier lengths where the country fixes them (EPC262-08 national formats). */
const CREDITOR_ID_LENGTHS: Record<string, number> = {
  DE: 18,
  AT: 18,
  NL: 19,
  FR: 13,
  BE: 20,
  ES: 16,
  IT: 23,
  LU: 26,
};

/** The creditor identifier without spaces, upper-cased. */
export function normalizeCreditorId(id: string): string {
  return id.replace(/\s+/g, '').toUpperCase();
}

function mod97(value: string): number {
  let remainder = 0;
  for (const ch of value) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder;
}

/**
 * Why `id` is not a SEPA creditor identifier (Gläubiger-Identifikationsnummer), or undefined.
 * Structure (EPC262-08): country, 2 check digits, 3-character business code, national id
 * (≤ 28); check digits ISO 7064 mod 97-10 over national id + country + `00`, the business
 * code skipped; the national length where the country fixes it; for Germany the national id
 * is 11 digits (Deutsche Bundesbank).
 */
export function creditorIdProblem(id: string): string | undefined {
  const ci = normalizeCreditorId(id);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{3}[A-Z0-9]{1,28}$/.test(ci))
    return 'is not a SEPA creditor identifier (country, check digits, business code, national id)';
  const country = ci.slice(0, 2);
  const length = CREDITOR_ID_LENGTHS[country];
  if (length !== undefined && ci.length !== length)
    return `must have ${length} characters for ${country}`;
  if (country === 'DE' && !/^\d{11}$/.test(ci.slice(7))) return 'must end in 11 digits for DE';
  const expected = 98 - mod97(ci.slice(7) + country + '00');
  if (Number(ci.slice(2, 4)) !== expected) return 'has wrong check digits';
  return undefined;
}

/** True for a valid SEPA creditor identifier, e.g. `DE98ZZZ09999999999`. */
export function isValidCreditorId(id: string): boolean {
  return creditorIdProblem(id) === undefined;
}

/**
 * Where an IBAN's BBAN holds the national bank code (offset, length), for the countries whose
 * IBAN structure fixes one (SWIFT IBAN registry): DE Bankleitzahl, AT Bankleitzahl, CH/LI
 * IID, NL/GB/IE bank letters, BE, LU, FR/MC code banque, ES entidad, IT/SM ABI (after the CIN
 * check letter), PT, PL.
 */
const BANK_CODE: Record<string, [number, number]> = {
  DE: [0, 8],
  AT: [0, 5],
  CH: [0, 5],
  LI: [0, 5],
  NL: [0, 4],
  GB: [0, 4],
  IE: [0, 4],
  BE: [0, 3],
  LU: [0, 3],
  FR: [0, 5],
  MC: [0, 5],
  ES: [0, 4],
  IT: [1, 5],
  SM: [1, 5],
  PT: [0, 4],
  PL: [0, 3],
};

/**
 * Whether a debtor who moved from `before` to `after` changed banks — the case a mandate
 * amendment writes as `SMNDA` rather than the original IBAN. Another country is another bank;
 * where the country fixes a bank code in the IBAN the codes are compared; elsewhere the BICs
 * (their first 8 characters, the institution) when both are known, else it counts as another
 * bank (SMNDA is the safe reading when nothing tells).
 */
export function debtorBankChanged(
  before: { iban: string; bic?: string | null },
  after: { iban: string; bic?: string | null },
): boolean {
  const a = normalizeIban(before.iban);
  const b = normalizeIban(after.iban);
  if (a.slice(0, 2) !== b.slice(0, 2)) return true;
  const code = BANK_CODE[a.slice(0, 2)];
  if (code !== undefined) {
    const [at, length] = code;
    return a.slice(4 + at, 4 + at + length) !== b.slice(4 + at, 4 + at + length);
  }
  if (before.bic && after.bic)
    return normalizeBic(before.bic).slice(0, 8) !== normalizeBic(after.bic).slice(0, 8);
  return true;
}
