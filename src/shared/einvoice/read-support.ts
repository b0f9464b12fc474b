import { isIsoDate } from '../dates.js';
import { isCurrency, minorDigits } from '../money.js';
import { refuse } from '../pdf/xml.js';

/** Types and helpers shared by the CII and UBL readers of `read.ts`. */

export interface EInvoiceAddress {
  /** Street lines in document order (CII LineOne–Three, UBL StreetName/AdditionalStreetName/AddressLine). */
  lines: string[];
  postcode?: string;
  city?: string;
  /** ISO 3166-1 alpha-2. */
  countryCode?: string;
}

export interface EInvoiceParty {
  name: string;
  /** VAT identifier (CII scheme `VA`, UBL tax scheme `VAT`). */
  vatId?: string;
  /** National tax number (CII scheme `FC`, UBL non-VAT tax scheme). */
  taxNumber?: string;
  address?: EInvoiceAddress;
}

export interface EInvoiceTotals {
  /** Total without VAT (BT-109: CII TaxBasisTotalAmount, UBL TaxExclusiveAmount). */
  netMinor: number;
  /** Total VAT in the invoice currency (BT-110); 0 when the invoice states none. */
  taxMinor: number;
  /** Total with VAT (BT-112: CII GrandTotalAmount, UBL TaxInclusiveAmount). */
  grossMinor: number;
  /** Amount due (BT-115: CII DuePayableAmount, UBL PayableAmount). */
  dueMinor: number;
}

export interface EInvoice {
  syntax: 'CII' | 'UBL';
  /** The specification identifier (BT-24): CII guideline ID, UBL CustomizationID. */
  profile?: string;
  /** A readable name of the profile: MINIMUM, BASIC WL, BASIC, COMFORT, EN 16931, EXTENDED, XRECHNUNG, PEPPOL. */
  profileName?: string;
  /** Invoice number (BT-1). */
  documentNumber: string;
  /** UNTDID 1001 document type code (BT-3), e.g. `380` invoice, `381` credit note. */
  documentType: string;
  /** INVOICE or CREDIT_NOTE, from the type code or the UBL root element. */
  kind: 'INVOICE' | 'CREDIT_NOTE';
  /** Issue date (BT-2), YYYY-MM-DD. */
  issueDate: string;
  /** Payment due date (BT-9), YYYY-MM-DD. */
  dueDate?: string;
  /** Invoice currency (BT-5), ISO 4217; the minor units of `totals` are in it. */
  currency: string;
  seller: EInvoiceParty;
  buyer: EInvoiceParty;
  totals: EInvoiceTotals;
  /** Number of invoice lines (0 for profiles without lines, e.g. MINIMUM). */
  lineCount: number;
  /** Buyer reference (BT-10), the Leitweg-ID for German public buyers. */
  buyerReference?: string;
  /** Remittance information (BT-83), the text a payment should carry. */
  paymentReference?: string;
  /** The payee's IBAN (BT-84) of the first credit transfer, upper-case without spaces. */
  paymentIban?: string;
  /**
   * Inconsistencies that EN 16931 does not make errors, e.g. a line whose quantity × price
   * differs from its net amount while all totals add up.
   */
  warnings: string[];
}

/** Credit-note type codes of UNTDID 1001 used in EN 16931. */
const CREDIT_NOTE_CODES = new Set([
  '81',
  '83',
  '261',
  '262',
  '296',
  '308',
  '381',
  '396',
  '420',
  '458',
  '532',
]);

export function kindOf(typeCode: string): EInvoice['kind'] {
  return CREDIT_NOTE_CODES.has(typeCode) ? 'CREDIT_NOTE' : 'INVOICE';
}

export function required(value: string | undefined, what: string): string {
  if (value === undefined) throw refuse(`The e-invoice has no ${what}.`);
  return value;
}

export function checkCurrency(code: string | undefined): string {
  const currency = required(code, 'invoice currency (BT-5)').toUpperCase();
  if (!isCurrency(currency))
    throw refuse(`The e-invoice currency ${currency} is not one Kontor supports.`);
  return currency;
}

/** A calendar date of `YYYY-MM-DD` (UBL) or `YYYYMMDD` (CII format 102). */
export function parseDate(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  const iso = compact ? `${compact[1]}-${compact[2]}-${compact[3]}` : value.slice(0, 10);
  if (!isIsoDate(iso) || (!compact && !/^\d{4}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$/.test(value)))
    throw refuse(`The ${what} "${value}" is not a valid date.`);
  return iso;
}

/**
 * A decimal amount → integer units of `10^-scale` of the currency's minor unit, from the
 * string (never through floating point). Digits beyond `scale` must be zeros (BR-DEC rules:
 * "100.0000" is fine, "12.345" EUR is refused).
 */
export function parseAmount(
  value: string | undefined,
  currency: string,
  what: string,
): bigint | undefined {
  if (value === undefined) return undefined;
  const match = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(value) ?? /^([+-]?)()\.(\d+)$/.exec(value);
  if (!match) throw refuse(`The ${what} "${value}" is not a decimal number.`);
  const [, sign, whole = '', fraction = ''] = match;
  const digits = minorDigits(currency);
  const kept = fraction.slice(0, digits).padEnd(digits, '0');
  if (/[1-9]/.test(fraction.slice(digits)))
    throw refuse(
      `The ${what} ${value} has more decimals than ${currency} allows (${minorDigits(currency)}).`,
    );
  const units = BigInt(`${whole || '0'}${kept}`);
  return sign === '-' ? -units : units;
}

/** bigint minor units → a safe JSON number, refusing absurd amounts. */
export function toSafeMinor(value: bigint, what: string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER) || value < -BigInt(Number.MAX_SAFE_INTEGER))
    throw refuse(`The ${what} is too large.`);
  return Number(value);
}

export function formatMinor(value: bigint, currency: string): string {
  const digits = minorDigits(currency);
  const sign = value < 0n ? '-' : '';
  const abs = (value < 0n ? -value : value).toString().padStart(digits + 1, '0');
  return digits === 0 ? `${sign}${abs}` : `${sign}${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
}

/** True when a specification identifier (BT-24) claims EN 16931 or one of its profiles. */
export function declaresEn16931(id: string | undefined): boolean {
  return id !== undefined && /en16931|factur-x|zugferd|xrechnung|peppol|urn:ferd:/i.test(id);
}

/** A readable name of a specification identifier (BT-24). */
export function profileName(id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  const s = id.toLowerCase();
  if (s.includes('xrechnung')) return 'XRECHNUNG';
  if (s.includes('peppol.eu')) return 'PEPPOL';
  if (s.includes('minimum')) return 'MINIMUM';
  if (s.includes('basicwl')) return 'BASIC WL';
  if (s.includes('extended')) return 'EXTENDED';
  if (s.includes('comfort')) return 'COMFORT';
  if (s.includes('basic')) return 'BASIC';
  if (s.includes('en16931')) return 'EN 16931';
  return undefined;
}
