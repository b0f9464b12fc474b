/**
 * Units of quantity: UN/ECE Recommendation 20 codes (BT-130, the `unitCode` an e-invoice
 * carries) and the words an invoice prints for them, in German and English. A product's
 * `unit` is free text (`Stunde`, `Std.`, `HUR`, `kg`): `unitCodeOf` reads it as a code, so the
 * lines made from the product bill in that unit.
 */

export type UnitLanguage = 'de' | 'en';

interface Unit {
  /** Singular and plural, per language. */
  names: Record<UnitLanguage, [string, string]>;
  /** What else people write for it in a product's unit (compared without case and final dot). */
  words: string[];
}

const UNITS: Record<string, Unit> = {
  C62: { names: { de: ['Stk.', 'Stk.'], en: ['pc', 'pcs'] }, words: ['einheit', 'unit', 'units'] },
  H87: {
    names: { de: ['Stk.', 'Stk.'], en: ['pc', 'pcs'] },
    words: ['stk', 'st', 'stück', 'stueck', 'piece', 'pieces', 'pc', 'pcs'],
  },
  HUR: {
    names: { de: ['Std.', 'Std.'], en: ['hour', 'hours'] },
    words: ['h', 'std', 'stunde', 'stunden', 'hour', 'hours', 'hr', 'hrs'],
  },
  MIN: {
    names: { de: ['Min.', 'Min.'], en: ['min', 'min'] },
    words: ['min', 'minute', 'minuten', 'minutes'],
  },
  DAY: {
    names: { de: ['Tag', 'Tage'], en: ['day', 'days'] },
    words: ['tag', 'tage', 'day', 'days', 'personentag'],
  },
  WEE: {
    names: { de: ['Woche', 'Wochen'], en: ['week', 'weeks'] },
    words: ['woche', 'wochen', 'week', 'weeks'],
  },
  MON: {
    names: { de: ['Monat', 'Monate'], en: ['month', 'months'] },
    words: ['monat', 'monate', 'month', 'months'],
  },
  ANN: {
    names: { de: ['Jahr', 'Jahre'], en: ['year', 'years'] },
    words: ['jahr', 'jahre', 'year', 'years'],
  },
  KGM: { names: { de: ['kg', 'kg'], en: ['kg', 'kg'] }, words: ['kg', 'kilogramm', 'kilogram'] },
  GRM: { names: { de: ['g', 'g'], en: ['g', 'g'] }, words: ['g', 'gramm', 'gram'] },
  TNE: { names: { de: ['t', 't'], en: ['t', 't'] }, words: ['t', 'tonne', 'tonnen', 'tonnes'] },
  MTR: { names: { de: ['m', 'm'], en: ['m', 'm'] }, words: ['m', 'meter', 'metre', 'metres'] },
  KMT: { names: { de: ['km', 'km'], en: ['km', 'km'] }, words: ['km', 'kilometer'] },
  MTK: { names: { de: ['m²', 'm²'], en: ['m²', 'm²'] }, words: ['m²', 'm2', 'qm'] },
  MTQ: { names: { de: ['m³', 'm³'], en: ['m³', 'm³'] }, words: ['m³', 'm3', 'cbm'] },
  LTR: { names: { de: ['l', 'l'], en: ['l', 'l'] }, words: ['l', 'liter', 'litre', 'litres'] },
  KWH: { names: { de: ['kWh', 'kWh'], en: ['kWh', 'kWh'] }, words: ['kwh'] },
  LS: {
    names: { de: ['pauschal', 'pauschal'], en: ['lump sum', 'lump sum'] },
    words: ['pauschal', 'pauschale', 'psch', 'lump sum', 'flat rate'],
  },
  SET: { names: { de: ['Satz', 'Sätze'], en: ['set', 'sets'] }, words: ['satz', 'set', 'sets'] },
  PR: { names: { de: ['Paar', 'Paar'], en: ['pair', 'pairs'] }, words: ['paar', 'pair', 'pairs'] },
};

const key = (text: string) => text.trim().toLowerCase().replace(/\.$/, '');

/** Every code and word above, by its key; a code wins over a word that spells it. */
const BY_WORD = new Map<string, string>([
  ...Object.entries(UNITS).flatMap(([code, unit]) => unit.words.map((w) => [w, code] as const)),
  ...Object.keys(UNITS).map((code) => [key(code), code] as const),
]);

/** What a Rec. 20 code looks like (the line's `unitCode` pattern). */
const CODE = /^[A-Z0-9]{2,3}$/;

/**
 * The Rec. 20 code a product's `unit` stands for: a code or word listed here (`HUR`, `hur`,
 * `Std.`, `Stunde`, `hours` → `HUR`; `Stück` → `H87`; `kg` → `KGM`), else any text written like
 * a code (`E48`) as it is; undefined for other text and no unit (the line then says C62).
 */
export function unitCodeOf(unit: string | null | undefined): string | undefined {
  if (unit == null) return undefined;
  const known = BY_WORD.get(key(unit));
  if (known) return known;
  const trimmed = unit.trim();
  return CODE.test(trimmed) ? trimmed : undefined;
}

/**
 * A unit code for people: `HUR` → `Std.` / `hours`, `C62` → `Stk.` / `pcs`; no code prints
 * nothing; a code not listed here prints as it is.
 */
export function unitName(
  code: string | null,
  quantity: number | null,
  language: UnitLanguage,
): string {
  if (code === null) return '';
  const names = UNITS[code]?.names[language];
  if (!names) return code;
  return quantity === 1 || quantity === -1 ? names[0] : names[1];
}
