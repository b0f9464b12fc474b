/**
 * The EPC SEPA basic Latin character set (EPC217-08): `a-z A-Z 0-9 / - ? : ( ) . , ' +` and
 * space. Every text a SEPA file carries must stay inside it; German banks accept more (the DK
 * extension with umlauts, `ß`, `&`, `*`, `$`, `%`), but other banks along the way need not, so
 * the writers transliterate to the basic set.
 */
const BASIC = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
const NOT_BASIC = /[^A-Za-z0-9/\-?:().,'+ ]/g;

/**
 * Replacements before the accents are stripped: the German letters as German spells them
 * without umlauts, ligatures and letters NFD does not decompose, and symbols with a readable
 * equivalent inside the set (the `§`/`%` words follow German usage).
 */
const REPLACEMENTS: Record<string, string> = {
  Ä: 'Ae',
  Ö: 'Oe',
  Ü: 'Ue',
  ä: 'ae',
  ö: 'oe',
  ü: 'ue',
  ß: 'ss',
  ẞ: 'SS',
  Æ: 'AE',
  æ: 'ae',
  Œ: 'OE',
  œ: 'oe',
  Ø: 'O',
  ø: 'o',
  Å: 'A',
  å: 'a',
  Ł: 'L',
  ł: 'l',
  Đ: 'D',
  đ: 'd',
  Ð: 'D',
  ð: 'd',
  Þ: 'Th',
  þ: 'th',
  ı: 'i',
  Ħ: 'H',
  ħ: 'h',
  '&': '+',
  '§': ' Par. ',
  '%': ' Prozent',
  '€': ' EUR ',
  '@': '(at)',
  '*': '.',
  '#': ' ',
  _: '-',
  '–': '-',
  '—': '-',
  '‐': '-',
  '‑': '-',
  '−': '-',
  '~': '-',
  '=': '-',
  '"': "'",
  '`': "'",
  '´': "'",
  '‘': "'",
  '’': "'",
  '‚': "'",
  '“': "'",
  '”': "'",
  '„': "'",
  '«': "'",
  '»': "'",
  '‹': "'",
  '›': "'",
  ';': ',',
  '!': '.',
  '<': '(',
  '>': ')',
  '[': '(',
  ']': ')',
  '{': '(',
  '}': ')',
  '\\': '/',
  '|': '/',
};
const REPLACE = new RegExp(
  `[${Object.keys(REPLACEMENTS)
    .map((c) => c.replace(/[\\\]^-]/g, '\\$&'))
    .join('')}]`,
  'g',
);

/** True when every character of `value` is in the EPC basic Latin set. */
export function isSepaText(value: string): boolean {
  return BASIC.test(value);
}

/**
 * `value` in the EPC basic Latin set: German umlauts and `ß` spelt out (ü → ue, ß → ss),
 * accents dropped (é → e), `&` → `+`, `§` → `Par.`, `%` → `Prozent`, typographic quotes and
 * dashes to `'` and `-`, anything else that has no equivalent (control characters, other
 * scripts, emoji) to a space; runs of spaces collapsed, ends trimmed, then cut to `max`
 * characters (and trimmed again). May be empty when nothing of `value` is representable.
 */
export function sepaText(value: string, max: number): string {
  if (BASIC.test(value) && value.length <= max && !/^ | $| {2}/.test(value)) return value;
  const out = value
    .normalize('NFC')
    .replace(REPLACE, (c) => REPLACEMENTS[c]!)
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(NOT_BASIC, ' ')
    .replace(/ {2,}/g, ' ')
    .replace(/\( /g, '(')
    .replace(/ \)/g, ')')
    .trim();
  return out.length <= max ? out : out.slice(0, max).trimEnd();
}

/**
 * True when `id` may be a SEPA identification (MsgId, PmtInfId, EndToEndId, InstrId, MndtId):
 * 1–35 characters of the basic set, no space, not starting or ending with `/`, no `//`.
 * (The set allows a space, but a space in an id is lost or split by too many bank systems.)
 */
export function isValidSepaId(id: string): boolean {
  return (
    id.length >= 1 &&
    id.length <= 35 &&
    /^[A-Za-z0-9/\-?:().,'+]+$/.test(id) &&
    !id.startsWith('/') &&
    !id.endsWith('/') &&
    !id.includes('//')
  );
}

/**
 * A valid SEPA id made of `parts` (joined with `-`): each part transliterated, every character
 * an id must not carry turned into `-`, `//` collapsed, leading and trailing `/` and `-`
 * dropped, then cut to 35 characters from the START when `keep` is `'end'` (the distinctive
 * tail, e.g. a running number, survives) or from the end otherwise. Throws when nothing is
 * left.
 */
export function sepaId(
  parts: readonly (string | number)[],
  keep: 'start' | 'end' = 'start',
): string {
  const cleaned = parts
    .map((p) =>
      sepaText(String(p), 1000)
        .replace(/[^A-Za-z0-9/\-?:().,'+]/g, '-')
        .replace(/-{2,}/g, '-')
        .replace(/^[/-]+|[/-]+$/g, ''),
    )
    .filter((p) => p !== '')
    .join('-');
  const trim = (s: string) => s.replace(/\/{2,}/g, '/').replace(/^[/-]+|[/-]+$/g, '');
  let id = trim(cleaned);
  if (id.length > 35) id = trim(keep === 'end' ? id.slice(-35) : id.slice(0, 35));
  if (!isValidSepaId(id))
    throw new RangeError(`no SEPA id can be made of ${JSON.stringify(parts)}`);
  return id;
}
