/**
 * One typed EN 16931 invoice (the semantic model of CEN EN 16931-1, named by its business
 * terms BT-n and groups BG-n), built from a FINAL Kontor invoice and written by one serializer
 * per syntax (`cii.ts`, `ubl.ts`). Amounts are integer minor units of `currency`; quantities
 * are thousandths; rates are basis points. Everything a serializer writes is here: serializers
 * compute nothing but formatting.
 */

/** VAT category codes (UNTDID 5305 subset used by Kontor, BT-95/BT-102/BT-118/BT-151). */
export const VAT_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export type VatCategory = (typeof VAT_CATEGORIES)[number];

/** The specification identifier (BT-24) Kontor writes. */
export const SPECIFICATION_IDS = {
  /** XRechnung 3.0 CIUS; also the ZUGFeRD/Factur-X profile XRECHNUNG. */
  XRECHNUNG: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
  /** Plain EN 16931; also the ZUGFeRD/Factur-X profile EN 16931 (COMFORT). */
  EN16931: 'urn:cen.eu:en16931:2017',
} as const;
export type Specification = keyof typeof SPECIFICATION_IDS;

/**
 * The business process (BT-23) written when the invoice names none: Peppol's billing process,
 * which XRechnung requires (PEPPOL-EN16931-R001) and plain EN 16931 allows.
 */
export const DEFAULT_BUSINESS_PROCESS = 'urn:fdc:peppol.eu:2017:poacc:billing:01:1.0';

/** An electronic address (BT-34 / BT-49) with its EAS scheme (e.g. `EM`, `0204`, `9930`). */
export interface ElectronicAddress {
  scheme: string;
  value: string;
}

/** A postal address (BG-5 / BG-8 / BG-15). */
export interface PostalAddress {
  /** BT-35 / BT-50 / BT-75. */
  line1?: string;
  /** BT-36 / BT-51 / BT-76. */
  line2?: string;
  /** BT-37 / BT-52 / BT-77. */
  city?: string;
  /** BT-38 / BT-53 / BT-78. */
  postalCode?: string;
  /** ISO 3166-1 alpha-2 (BT-40 / BT-55 / BT-80). */
  countryCode: string;
}

/** A contact (BG-6 / BG-9). */
export interface Contact {
  /** BT-41 / BT-56. */
  name?: string;
  /** BT-42 / BT-57. */
  phone?: string;
  /** BT-43 / BT-58. */
  email?: string;
}

/** The seller (BG-4). */
export interface Seller {
  /** BT-27. */
  name: string;
  /** BT-29: seller identifier (only written when neither BT-30 nor BT-31 is there). */
  identifier?: string;
  /** BT-30: legal registration identifier, e.g. `HRB 12345`. */
  legalRegistrationId?: string;
  /** BT-31: VAT identifier, e.g. `DE123456789`. */
  vatId?: string;
  /** BT-32: tax registration identifier (Steuernummer), scheme `FC`. */
  taxNumber?: string;
  /** BT-33: additional legal information (register court, managing directors). */
  legalInfo?: string;
  /** BT-34. */
  electronicAddress?: ElectronicAddress;
  address: PostalAddress;
  contact?: Contact;
}

/** The buyer (BG-7). */
export interface Buyer {
  /** BT-44. */
  name: string;
  /** BT-46: buyer identifier, e.g. Kontor's customer number. */
  identifier?: string;
  /** BT-48. */
  vatId?: string;
  /** BT-49. */
  electronicAddress?: ElectronicAddress;
  address: PostalAddress;
  contact?: Contact;
}

/** Payment instructions (BG-16). */
export interface PaymentInstructions {
  /** BT-81, UNTDID 4461: `58` SEPA credit transfer, `30` credit transfer, `1` not defined. */
  meansCode: string;
  /** BT-83: remittance information (Kontor: the invoice number). */
  remittanceInformation?: string;
  /** BG-17 credit transfer: BT-84 IBAN, BT-85 account name, BT-86 BIC. */
  creditTransfer?: { iban: string; accountName?: string; bic?: string };
}

/** One invoice line (BG-25). */
export interface InvoiceLine {
  /** BT-126, unique per invoice (Kontor: 1, 2, …). */
  id: string;
  /** BT-153. */
  name: string;
  /** BT-129 in thousandths (may be negative for a discount line). */
  quantityMilli: number;
  /** BT-130, UN/ECE Recommendation 20 (e.g. `C62` one, `H87` piece, `HUR` hour). */
  unitCode: string;
  /** BT-146: net price per unit in minor units, never negative (BR-27). */
  priceMinor: number;
  /** BT-131: quantity × price, rounded half-up to the minor unit. */
  netMinor: number;
  /** BT-151. */
  vatCategory: VatCategory;
  /** BT-152 in basis points. */
  vatRateBp: number;
}

/** One VAT breakdown (BG-23), one per category and rate. */
export interface VatBreakdown {
  /** BT-118. */
  category: VatCategory;
  /** BT-119 in basis points. */
  rateBp: number;
  /** BT-116. */
  taxableMinor: number;
  /** BT-117. */
  taxMinor: number;
  /** BT-120, required for every category but S and Z. */
  exemptionReason?: string;
  /** BT-121 (VATEX), e.g. `VATEX-EU-AE`. */
  exemptionCode?: string;
}

/** Document totals (BG-22). */
export interface DocumentTotals {
  /** BT-106: sum of line nets. */
  lineNetMinor: number;
  /** BT-109: total without VAT (no document-level allowances or charges in Kontor). */
  taxExclusiveMinor: number;
  /** BT-110: total VAT. */
  taxMinor: number;
  /** BT-112: total with VAT. */
  taxInclusiveMinor: number;
  /** BT-113: amount paid in advance. */
  paidMinor: number;
  /** BT-115: amount due. */
  payableMinor: number;
}

export interface EnInvoice {
  /** BT-24 by name: XRECHNUNG or EN16931. */
  specification: Specification;
  /** BT-23; `DEFAULT_BUSINESS_PROCESS` when absent. */
  businessProcess?: string;
  /** BT-1. */
  number: string;
  /** BT-2, YYYY-MM-DD. */
  issueDate: string;
  /**
   * BT-3, UNTDID 1001: `380` commercial invoice, `381` credit note, `386` prepayment (down
   * payment) invoice.
   */
  typeCode: '380' | '381' | '386';
  /** BT-5, ISO 4217. */
  currency: string;
  /** BT-9, YYYY-MM-DD. */
  dueDate?: string;
  /** BT-10. */
  buyerReference?: string;
  /** BT-13: purchase order reference. */
  orderReference?: string;
  /** BT-12: contract reference. */
  contractReference?: string;
  /** BT-20: payment terms text (for XRechnung, Skonto lines `#SKONTO#TAGE=n#PROZENT=p#`). */
  paymentTerms?: string;
  /** BT-22: invoice notes (BG-1). */
  notes: string[];
  /** BG-3: the preceding invoice (BT-25 number, BT-26 issue date), for credit notes. */
  precedingInvoice?: { number: string; issueDate?: string };
  /** BG-3 of a final invoice: the down-payment invoices it deducts (BT-113), oldest first. */
  prepaymentInvoices?: { number: string; issueDate?: string }[];
  seller: Seller;
  buyer: Buyer;
  /** BG-13 delivery: BT-72 actual delivery date; BG-15 deliver-to address (for K). */
  delivery?: { date?: string; address?: PostalAddress; partyName?: string };
  /** BG-14: invoicing (service) period, BT-73 start, BT-74 end. */
  invoicingPeriod?: { start: string; end: string };
  payment?: PaymentInstructions;
  lines: InvoiceLine[];
  vatBreakdown: VatBreakdown[];
  totals: DocumentTotals;
}

/** Every preceding invoice reference (BG-3) of an invoice, in the order written. */
export function precedingInvoices(inv: EnInvoice): { number: string; issueDate?: string }[] {
  return [
    ...(inv.precedingInvoice ? [inv.precedingInvoice] : []),
    ...(inv.prepaymentInvoices ?? []),
  ];
}

/** Digits of a decimal amount in minor units, e.g. (123456, 2) → `1234.56`, (-5, 2) → `-0.05`. */
export function formatMinor(minor: number, digits: number): string {
  const negative = minor < 0;
  const abs = String(Math.abs(minor)).padStart(digits + 1, '0');
  const text = digits === 0 ? abs : `${abs.slice(0, -digits)}.${abs.slice(-digits)}`;
  return negative ? `-${text}` : text;
}

/** A quantity in thousandths as a decimal without trailing zeros, e.g. 12500 → `12.5`. */
export function formatMilli(milli: number): string {
  return formatMinor(milli, 3).replace(/\.?0+$/, '') || '0';
}

/** A rate in basis points as a percent with two decimals, e.g. 1900 → `19.00`. */
export function formatRate(bp: number): string {
  return formatMinor(bp, 2);
}
