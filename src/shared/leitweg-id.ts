/**
 * The Leitweg-ID: how German public-sector buyers are addressed in e-invoices (BT-10 buyer
 * reference; EAS scheme `0204` for BT-49). KoSIT's format specification 2.0: the
 * Grobadressierung (2–12 digits), an optional Feinadressierung (up to 30 letters or digits) and
 * two check digits, joined by hyphens, e.g. `04011000-12345-03` or `991-33333TEST-33`.
 */
const FORMAT = /^(\d{2,12})(?:-([A-Za-z0-9]{1,30}))?-(\d{2})$/;

/** True for values that start like a Leitweg-ID (2–12 digits, then a hyphen). */
export function looksLikeLeitwegId(value: string): boolean {
  return /^\d{2,12}-/.test(value.trim());
}

/**
 * ISO 7064 MOD 97-10 over the characters without hyphens, letters counting A=10 … Z=35 (as in
 * the IBAN): a valid id leaves the remainder 1.
 */
function mod97(text: string): number {
  let remainder = 0;
  for (const ch of text.toUpperCase()) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder;
}

/** Why a Leitweg-ID is invalid, or undefined when it is valid (format and check digits). */
export function leitwegIdProblem(value: string): string | undefined {
  if (!FORMAT.test(value.trim()))
    return 'must be a Leitweg-ID: 2–12 digits, optionally a hyphen and up to 30 letters or digits, a hyphen and 2 check digits';
  return mod97(value.trim().replace(/-/g, '')) === 1 ? undefined : 'has wrong check digits';
}
