/**
 * The fixed texts of the invoice layout in German and English: labels, the statutory
 * sentences of the tax notes (§ 14 (4) Nr. 9, § 14a, § 19 UStG) and the names of units.
 */

export type InvoiceLanguage = 'de' | 'en';

/** Every fixed text of the invoice layout. */
export interface InvoiceLabels {
  invoice: string;
  /**
   * The title of a credit note that corrects an invoice: "Rechnungskorrektur", never
   * "Gutschrift" (§ 14 (2) Satz 2 UStG keeps that word for self-billing).
   */
  creditNote: string;
  /** The title of a credit note that cancels an invoice in full (Storno): "Stornorechnung". */
  cancellation: string;
  invoiceNumber: string;
  creditNoteNumber: string;
  cancellationNumber: string;
  invoiceDate: string;
  creditNoteDate: string;
  deliveryDate: string;
  servicePeriod: string;
  customerNumber: string;
  buyerReference: string;
  orderReference: string;
  buyerVatId: string;
  precedingInvoice: string;
  /** "Diese Rechnungskorrektur bezieht sich auf die Rechnung" + number + `of` + date. */
  refersTo: string;
  /** "Diese Stornorechnung storniert die Rechnung" + number + `of` + date. */
  cancels: string;
  of: string;
  position: string;
  description: string;
  quantity: string;
  unitPrice: string;
  vatRate: string;
  amount: string;
  netTotal: string;
  vat: string;
  /** "USt. 19 % auf 941,00 €": between the rate and the net it is charged on. */
  vatOn: string;
  grossTotal: string;
  paid: string;
  amountDue: string;
  paymentTerms: string;
  payableBy: string;
  skontoIf: string;
  skonto: string;
  skontoPayable: string;
  payGiroCode: string;
  payGiroCodeHint: string;
  /**
   * The SEPA pre-notification, in parts around its values: "Der Betrag von 119,00 € wird am
   * 15.12.2026 mit der SEPA-Lastschrift zum Mandat M-1 (Gläubiger-ID DE98ZZZ09999999999)
   * eingezogen."
   */
  directDebitAmount: string;
  directDebitOn: string;
  directDebitMandate: string;
  directDebitCreditorId: string;
  directDebitEnd: string;
  bank: string;
  accountHolder: string;
  iban: string;
  bic: string;
  managingDirectors: string;
  registerCourt: string;
  vatId: string;
  taxNumber: string;
  phone: string;
  email: string;
  website: string;
  thanks: string;
  /** Quotes and order confirmations (the layouts of `QUOTE` and `ORDER_CONFIRMATION`). */
  quote: string;
  quoteNumber: string;
  quoteDate: string;
  validUntil: string;
  /** The title of a down-payment invoice: "Abschlagsrechnung". */
  downPayment: string;
  /** The title of a final invoice: "Schlussrechnung". */
  finalInvoice: string;
  /** "Abzüglich erhaltener Abschlagszahlungen" (the deduction block of a final invoice). */
  deductions: string;
  /** "Abschlagsrechnung" + number + `of` + date, in the deduction block. */
  deductedInvoice: string;
  /** "Verbleibender Rechnungsbetrag": gross total less the deductions. */
  remaining: string;
  /** "zu Auftrag" / "on order", after the title of a down payment or final invoice. */
  forOrder: string;
  /** "Dieses Angebot ist gültig bis" + date. */
  quoteValidity: string;
  quoteThanks: string;
  orderConfirmation: string;
  orderConfirmationNumber: string;
  orderConfirmationDate: string;
  /** "Wir bestätigen Ihren Auftrag" + (quote number) … */
  orderConfirmationIntro: string;
  /** "zu unserem Angebot" between the intro and the quote's number. */
  toQuote: string;
  orderConfirmationThanks: string;
  /** Names of the VAT categories other than S, for the tax breakdown. */
  category: Record<string, string>;
}

const DE: InvoiceLabels = {
  invoice: 'Rechnung',
  creditNote: 'Rechnungskorrektur',
  cancellation: 'Stornorechnung',
  invoiceNumber: 'Rechnungsnummer',
  creditNoteNumber: 'Rechnungskorrektur-Nr.',
  cancellationNumber: 'Stornorechnung-Nr.',
  invoiceDate: 'Rechnungsdatum',
  creditNoteDate: 'Datum',
  deliveryDate: 'Liefer-/Leistungsdatum',
  servicePeriod: 'Leistungszeitraum',
  customerNumber: 'Kundennummer',
  buyerReference: 'Ihre Referenz',
  orderReference: 'Bestellnummer',
  buyerVatId: 'Ihre USt-IdNr.',
  precedingInvoice: 'Zur Rechnung',
  refersTo: 'Diese Rechnungskorrektur bezieht sich auf die Rechnung',
  cancels: 'Diese Stornorechnung storniert die Rechnung',
  of: 'vom',
  position: 'Pos.',
  description: 'Beschreibung',
  quantity: 'Menge',
  unitPrice: 'Einzelpreis',
  vatRate: 'USt.',
  amount: 'Betrag',
  netTotal: 'Nettobetrag',
  vat: 'USt.',
  vatOn: 'auf',
  grossTotal: 'Gesamtbetrag',
  paid: 'Bereits bezahlt',
  amountDue: 'Offener Betrag',
  paymentTerms: 'Zahlungsbedingungen',
  payableBy: 'Zahlbar ohne Abzug bis zum',
  skontoIf: 'Bei Zahlung bis zum',
  skonto: 'Skonto',
  skontoPayable: 'Zahlbetrag',
  directDebitAmount: 'Der Betrag von',
  directDebitOn: 'wird am',
  directDebitMandate: 'mit der SEPA-Lastschrift zum Mandat',
  directDebitCreditorId: 'Gläubiger-ID',
  directDebitEnd: ' eingezogen.',
  payGiroCode: 'Bezahlen per GiroCode',
  payGiroCodeHint:
    'Mit der Banking-App scannen: Empfänger, IBAN, Betrag und Verwendungszweck sind ausgefüllt.',
  bank: 'Bankverbindung',
  accountHolder: 'Kontoinhaber',
  iban: 'IBAN',
  bic: 'BIC',
  managingDirectors: 'Geschäftsführer',
  registerCourt: 'Registergericht',
  vatId: 'USt-IdNr.',
  taxNumber: 'Steuernummer',
  phone: 'Tel.',
  email: 'E-Mail',
  website: 'Web',
  thanks: 'Vielen Dank für Ihren Auftrag.',
  quote: 'Angebot',
  quoteNumber: 'Angebotsnummer',
  quoteDate: 'Angebotsdatum',
  validUntil: 'gültig bis',
  downPayment: 'Abschlagsrechnung',
  finalInvoice: 'Schlussrechnung',
  deductions: 'Abzüglich erhaltener Abschlagszahlungen',
  deductedInvoice: 'Abschlagsrechnung',
  remaining: 'Verbleibender Rechnungsbetrag',
  forOrder: 'zu Auftrag',
  quoteValidity: 'Dieses Angebot ist gültig bis',
  quoteThanks: 'Wir freuen uns auf Ihren Auftrag.',
  orderConfirmation: 'Auftragsbestätigung',
  orderConfirmationNumber: 'Auftragsnummer',
  orderConfirmationDate: 'Datum',
  orderConfirmationIntro: 'Vielen Dank für Ihren Auftrag. Wir bestätigen ihn wie folgt',
  toQuote: 'zu unserem Angebot',
  orderConfirmationThanks: 'Wir freuen uns auf die Zusammenarbeit.',
  category: {
    S: '',
    Z: 'Nullsatz',
    E: 'steuerfrei',
    AE: 'Reverse Charge',
    K: 'innergemeinschaftliche Lieferung',
    G: 'Ausfuhrlieferung',
    O: 'nicht steuerbar',
  },
};

const EN: InvoiceLabels = {
  invoice: 'Invoice',
  creditNote: 'Credit note',
  cancellation: 'Credit note (cancellation)',
  invoiceNumber: 'Invoice number',
  creditNoteNumber: 'Credit note number',
  cancellationNumber: 'Credit note number',
  invoiceDate: 'Invoice date',
  creditNoteDate: 'Date',
  deliveryDate: 'Delivery date',
  servicePeriod: 'Service period',
  customerNumber: 'Customer number',
  buyerReference: 'Buyer reference',
  orderReference: 'Order number',
  buyerVatId: 'Your VAT ID',
  precedingInvoice: 'Original invoice',
  refersTo: 'This credit note refers to invoice',
  cancels: 'This credit note cancels invoice',
  of: 'of',
  position: 'Item',
  description: 'Description',
  quantity: 'Quantity',
  unitPrice: 'Unit price',
  vatRate: 'VAT',
  amount: 'Amount',
  netTotal: 'Net amount',
  vat: 'VAT',
  vatOn: 'on',
  grossTotal: 'Total amount',
  paid: 'Already paid',
  amountDue: 'Amount due',
  paymentTerms: 'Payment terms',
  payableBy: 'Payable without deduction by',
  skontoIf: 'If paid by',
  skonto: 'early payment discount',
  skontoPayable: 'amount to pay',
  directDebitAmount: 'The amount of',
  directDebitOn: 'will be collected on',
  directDebitMandate: 'by SEPA direct debit under mandate',
  directDebitCreditorId: 'creditor ID',
  directDebitEnd: '.',
  payGiroCode: 'Pay by GiroCode',
  payGiroCodeHint: 'Scan with your banking app: payee, IBAN, amount and reference are filled in.',
  bank: 'Bank details',
  accountHolder: 'Account holder',
  iban: 'IBAN',
  bic: 'BIC',
  managingDirectors: 'Managing directors',
  registerCourt: 'Register court',
  vatId: 'VAT ID',
  taxNumber: 'Tax number',
  phone: 'Phone',
  email: 'Email',
  website: 'Web',
  thanks: 'Thank you for your business.',
  quote: 'Quote',
  quoteNumber: 'Quote number',
  quoteDate: 'Quote date',
  validUntil: 'valid until',
  downPayment: 'Down payment invoice',
  finalInvoice: 'Final invoice',
  deductions: 'Less down payments received',
  deductedInvoice: 'Down payment invoice',
  remaining: 'Remaining amount',
  forOrder: 'on order',
  quoteValidity: 'This quote is valid until',
  quoteThanks: 'We look forward to your order.',
  orderConfirmation: 'Order confirmation',
  orderConfirmationNumber: 'Order number',
  orderConfirmationDate: 'Date',
  orderConfirmationIntro: 'Thank you for your order, which we confirm as follows',
  toQuote: 'referring to our quote',
  orderConfirmationThanks: 'We look forward to working with you.',
  category: {
    S: '',
    Z: 'zero rated',
    E: 'exempt',
    AE: 'reverse charge',
    K: 'intra-Community supply',
    G: 'export',
    O: 'not subject to VAT',
  },
};

/** The fixed texts per language. */
export const INVOICE_LABELS: Readonly<Record<InvoiceLanguage, InvoiceLabels>> = { de: DE, en: EN };

/** The statutory sentences of the tax notes, per language. */
export const TAX_NOTE_TEXTS: Record<
  InvoiceLanguage,
  {
    reverseCharge: string;
    intraCommunity: string;
    exempt: string;
    export: string;
    notTaxable: string;
    smallBusiness: string;
    sellerVatId: string;
    buyerVatId: string;
  }
> = {
  de: {
    reverseCharge: 'Steuerschuldnerschaft des Leistungsempfängers',
    intraCommunity: 'Steuerfreie innergemeinschaftliche Lieferung',
    exempt: 'Steuerfreie Leistung',
    export: 'Steuerfreie Ausfuhrlieferung',
    notTaxable: 'Im Inland nicht steuerbare Leistung',
    smallBusiness: 'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.',
    sellerVatId: 'USt-IdNr. des Leistenden',
    buyerVatId: 'USt-IdNr. des Leistungsempfängers',
  },
  en: {
    reverseCharge: 'Reverse charge',
    intraCommunity: 'Exempt intra-Community supply',
    exempt: 'VAT exempt supply',
    export: 'Exempt export supply',
    notTaxable: 'Not subject to VAT in Germany',
    smallBusiness: 'No VAT is charged: small business under § 19 UStG (German VAT Act).',
    sellerVatId: 'Supplier VAT ID',
    buyerVatId: 'Customer VAT ID',
  },
};

/** `de` or `en` from a partner's language; German for anything else. */
export function invoiceLanguage(value: unknown): InvoiceLanguage {
  return value === 'en' ? 'en' : 'de';
}

// The unit words live with the unit codes (src/shared/units.ts); the layout reads them here.
export { unitName } from '../units.js';
