/**
 * The `invoice` of the render context: what an invoice layout prints beyond the document's
 * own figures, in the partner's language (German or English): the fixed texts, the statutory
 * tax notes (§ 14 (4) Nr. 9, § 14a UStG, § 19 UStG), the Skonto terms (§ 14 (4) Nr. 7 UStG),
 * the amount due and the GiroCode. Kept apart from the context builder because it is the
 * one part that is about invoicing law rather than about shaping records.
 */
import { addDays, isIsoDate } from '../dates.js';
import type { CompanyView } from './company.js';
import type { PartnerView } from './partner.js';
import type { DocumentView } from './document.js';
import {
  INVOICE_LABELS,
  TAX_NOTE_TEXTS,
  type InvoiceLabels,
  type InvoiceLanguage,
} from './invoice-labels.js';

export {
  INVOICE_LABELS,
  invoiceLanguage,
  unitName,
  type InvoiceLabels,
  type InvoiceLanguage,
} from './invoice-labels.js';

/** The Skonto (cash discount) terms of an invoice, in minor units of the document. */
export interface SkontoView {
  /** Percent, e.g. 2 or 1.5: write it with `| number`. */
  percent: number;
  days: number;
  /** The last day the discount applies (YYYY-MM-DD): the invoice date + `days`. */
  until: string;
  /** The discount on the gross total, rounded half-up. */
  amount: number;
  /** What is paid when the discount is taken: the amount due minus the discount. */
  payable: number;
}

export interface InvoiceView {
  language: InvoiceLanguage;
  labels: InvoiceLabels;
  /**
   * `Rechnung`/`Invoice`, `Rechnungskorrektur`/`Credit note`, or for a Storno
   * `Stornorechnung`/`Credit note (cancellation)`.
   */
  title: string;
  creditNote: boolean;
  /** A credit note that cancels its invoice in full (Storno). */
  cancellation: boolean;
  /** The partner's number (Kundennummer), frozen with a FINAL invoice; null: none printed. */
  customerNumber: string | null;
  /**
   * The last line of a foreign recipient's address (DIN 5008): the country's name in capitals
   * in the invoice's language; null when the partner is in the seller's country.
   */
  recipientCountry: string | null;
  /** False for a small business (§ 19 UStG): no VAT column, rate or amount is printed. */
  showVat: boolean;
  /** The statutory notes on the VAT that apply, each once. */
  taxNotes: string[];
  /** Settled so far and still to pay, in minor units of the document's currency. */
  paidAmount: number | null;
  dueAmount: number | null;
  skonto: SkontoView | null;
  /** The GiroCode (EPC QR code) as a `data:image/png` URI, or null when none is printed. */
  giroCode: string | null;
  /** The SEPA pre-notification of an invoice paid by direct debit; null: paid otherwise. */
  directDebit: DirectDebitNotice | null;
}

/**
 * What the pre-notification (Vorabankündigung) of a SEPA direct debit tells the debtor: the
 * amount (minor units of the document's currency), the collection date, the mandate reference
 * and the creditor identifier.
 */
export interface DirectDebitNotice {
  amount: number;
  collectionDate: string;
  mandateReference: string;
  creditorId: string;
}

export interface InvoiceViewInput {
  language: InvoiceLanguage;
  company: CompanyView;
  partner: PartnerView | null;
  customerNumber: string | null;
  document: DocumentView;
  paidMinor: number | null;
  giroCode: string | null;
  /** A credit note that cancels its invoice in full (Storno). */
  cancellation: boolean;
  directDebit?: DirectDebitNotice | null;
}

/**
 * The notes on the VAT: for each category other than S and Z the rate's exemption reason and,
 * where the law prescribes one, the statutory wording (unless the reason already contains
 * it); for reverse charge (AE) and intra-Community supplies (K) both VAT ids (§ 14a (1), (3)
 * UStG); for a small business the § 19 sentence instead of the exemption reasons of its
 * exempt rate. Each text once, in the order found.
 */
export function taxNotes(
  document: DocumentView,
  company: CompanyView,
  partner: PartnerView | null,
  language: InvoiceLanguage,
): string[] {
  const n = TAX_NOTE_TEXTS[language];
  const notes: string[] = [];
  let vatIds = false;
  // The statutory wording, unless the rate's own reason already says it.
  const statutory = (text: string, reason: string | null) => {
    if (!reason?.toLowerCase().includes(text.toLowerCase())) notes.push(text);
  };
  for (const tax of document.taxes) {
    switch (tax.category) {
      case 'S':
      case 'Z':
        continue;
      case 'AE':
        statutory(n.reverseCharge, tax.exemptionReason);
        vatIds = true;
        break;
      case 'K':
        statutory(n.intraCommunity, tax.exemptionReason);
        vatIds = true;
        break;
      case 'E':
        if (company.smallBusiness) continue; // the § 19 sentence below is its reason
        if (tax.exemptionReason === null) notes.push(n.exempt);
        break;
      case 'G':
        if (tax.exemptionReason === null) notes.push(n.export);
        break;
      case 'O':
        if (tax.exemptionReason === null) notes.push(n.notTaxable);
        break;
      default:
        break;
    }
    if (tax.exemptionReason !== null) notes.push(tax.exemptionReason);
  }
  if (vatIds)
    notes.push(
      `${n.sellerVatId}: ${company.vatId ?? '–'} · ${n.buyerVatId}: ${partner?.vatId ?? '–'}`,
    );
  if (company.smallBusiness) notes.push(n.smallBusiness);
  return [...new Set(notes)];
}

/** `minor × percent / 100` rounded half away from zero, in integers (BigInt: no overflow). */
function percentOf(minor: number, percent: number): number {
  const bp = BigInt(Math.round(percent * 100));
  const product = BigInt(minor) * bp;
  const sign = product < 0n ? -1n : 1n;
  const abs = product * sign;
  return Number(((abs + 5_000n) / 10_000n) * sign);
}

/**
 * The Skonto of an invoice: a percentage of what the invoice asks for — its gross total, and
 * on a final invoice its gross total less the down payments it deducts (the remaining amount
 * the customer pays; the down payments were paid without it).
 */
function skontoOf(document: DocumentView, due: number | null): SkontoView | null {
  const { skontoPercent: percent, skontoDays: days, creationDate, grossTotal } = document;
  if (percent === null || days === null || creationDate === null || grossTotal === null)
    return null;
  if (!isIsoDate(creationDate)) return null;
  const until = addDays(creationDate, days);
  const amount = percentOf(grossTotal - (document.prepaidAmount ?? 0), percent);
  return { percent, days, until, amount, payable: (due ?? grossTotal) - amount };
}

function recipientCountry(
  partner: PartnerView | null,
  company: CompanyView,
  language: InvoiceLanguage,
): string | null {
  const country = partner?.address.country?.toUpperCase() ?? null;
  if (country === null || country === (company.address.country?.toUpperCase() ?? 'DE')) return null;
  let name: string | undefined;
  try {
    name = new Intl.DisplayNames([language], { type: 'region' }).of(country);
  } catch {
    name = undefined; // not a region code: printed as it is
  }
  return (name ?? country).toLocaleUpperCase(language);
}

/** Builds the `invoice` of the render context (see `InvoiceView`). */
export function invoiceView(input: InvoiceViewInput): InvoiceView {
  const { language, company, partner, document } = input;
  const labels = INVOICE_LABELS[language];
  const creditNote = document.invoiceType === 'CREDIT_NOTE';
  const cancellation = creditNote && input.cancellation;
  // A final invoice asks for its gross total less the down payments it deducts.
  const gross =
    document.grossTotal === null ? null : document.grossTotal - (document.prepaidAmount ?? 0);
  const paid = input.paidMinor ?? 0;
  // Payments count by their size (a refund of a credit note is outgoing, a payment incoming).
  const dueAmount =
    gross === null ? null : Math.sign(gross) * Math.max(0, Math.abs(gross) - Math.abs(paid));
  return {
    language,
    labels,
    title: cancellation
      ? labels.cancellation
      : creditNote
        ? labels.creditNote
        : document.invoiceType === 'DOWN_PAYMENT'
          ? labels.downPayment
          : document.prepaidAmount !== null
            ? labels.finalInvoice
            : labels.invoice,
    creditNote,
    cancellation,
    customerNumber: input.customerNumber,
    recipientCountry: recipientCountry(partner, company, language),
    showVat: !company.smallBusiness,
    taxNotes: taxNotes(document, company, partner, language),
    paidAmount: input.paidMinor === null ? null : Math.abs(paid),
    dueAmount,
    skonto: creditNote ? null : skontoOf(document, dueAmount),
    giroCode: input.giroCode,
    directDebit: creditNote ? null : (input.directDebit ?? null),
  };
}

/** What a GiroCode is made of (the arguments of `giroCodePayload`). */
export interface GiroCodeRequest {
  bic: string | null;
  name: string;
  iban: string;
  amountMinor: number;
  currency: string;
  reference: string;
}

/**
 * Whether the invoice of `context` gets a GiroCode, and with what: only an invoice (not a
 * credit note) in EUR with a number and an amount due, when the seller has an IBAN. The
 * EPC QR code transfers euros only, and a draft has no number to pay against.
 */
export function giroCodeRequest(context: {
  document: DocumentView | null;
  invoice: InvoiceView | null;
  company: CompanyView;
}): GiroCodeRequest | null {
  const { document, invoice, company } = context;
  if (
    !document ||
    !invoice ||
    invoice.creditNote ||
    (document.invoiceType !== 'INVOICE' && document.invoiceType !== 'DOWN_PAYMENT')
  )
    return null;
  const bank = company.bankAccounts[0];
  const amount = invoice.dueAmount;
  if (
    !bank ||
    document.currency !== 'EUR' ||
    document.documentNumber === null ||
    amount === null ||
    amount <= 0
  )
    return null;
  return {
    bic: bank.bic,
    name: bank.accountHolder ?? company.legalName,
    iban: bank.iban,
    amountMinor: amount,
    currency: document.currency,
    reference: document.documentNumber,
  };
}
