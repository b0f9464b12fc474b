/** IBAN lengths per country (SWIFT IBAN registry). */
const LENGTHS: Record<string, number> = Object.fromEntries(
  (
    'AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 DK18 DO28 EE20 ' +
    'EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 ' +
    'KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 ' +
    'PS29 PT25 QA29 RO24 RS22 SA24 SC31 SE24 SI19 SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20'
  )
    .split(' ')
    .map((entry) => [entry.slice(0, 2), Number(entry.slice(2))]),
);

/** The IBAN without spaces, upper-cased. */
export function normalizeIban(value: string): string {
  return value.replace(/\s+/g, '').toUpperCase();
}

/** Why an IBAN is invalid, or undefined when it is valid (country, length, ISO 7064 mod 97). */
export function ibanProblem(value: string): string | undefined {
  const iban = normalizeIban(value);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(iban)) return 'is not an IBAN';
  const length = LENGTHS[iban.slice(0, 2)];
  if (length === undefined) return `has an unknown country code ${iban.slice(0, 2)}`;
  if (iban.length !== length) return `must have ${length} characters for ${iban.slice(0, 2)}`;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = ch >= 'A' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1 ? undefined : 'has a wrong check sum';
}

/** In groups of four, as IBANs are printed: `DE02 1203 0000 0000 2020 51`. */
export function groupIban(value: string): string {
  return normalizeIban(value).replace(/(.{4})(?=.)/g, '$1 ');
}

/** `DE89 **** **** **** **30 00` style: country, check digits and the last four stay visible. */
export function maskIban(value: string): string {
  const iban = normalizeIban(value);
  return groupIban(iban.slice(0, 4) + '*'.repeat(Math.max(0, iban.length - 8)) + iban.slice(-4));
}

/**
 * True when the text holds something that looks like a full card number: 12–19 digits, on
 * their own or grouped by spaces or dashes. Such values are refused before anything else
 * touches them, so they reach neither the database nor the log.
 */
export function looksLikeCardNumber(text: string): boolean {
  return /(?:\d[ -]?){11,18}\d/.test(text);
}
