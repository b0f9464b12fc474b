/**
 * Text that ends up in a spreadsheet (the CSV lists, the DATEV Buchungsstapel, which tax
 * advisors open in Excel as often as in DATEV) must never run as a formula there.
 */

/** Cells a spreadsheet would run as a formula (OWASP CSV injection), full-width forms too. */
const FORMULA_START = /^[=+\-@\t\r＝＋－＠]/;

/** `text` as a spreadsheet shows it: a formula-like start is defused with a leading `'`. */
export function defuseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}
