import { deductionsOf, prepaidMinor, type StoredDeduction } from './documents.deductions.js';
import { AppError } from '../../shared/errors.js';
import { formatDate } from '../../shared/dates.js';
import { minorDigits } from '../../shared/money.js';
import {
  formatMinor,
  formatRate,
  type ElectronicAddress,
  type EnInvoice,
  type InvoiceLine,
  type PostalAddress,
  type Specification,
  type VatBreakdown,
  type VatCategory,
} from '../../shared/einvoice/model.js';
import { toCii, toUbl } from '../../shared/einvoice/index.js';
import { embedFacturX } from '../../shared/einvoice/facturx-pdf.js';
import type { DocumentWithFigures, StoredLine, StoredTaxLine } from './documents.repository.js';
import { divRoundHalfUp } from './totals.js';
import { xrechnungProblems, type FrozenBuyer, type FrozenParties } from './invoice-rules.js';

/**
 * A FINAL Kontor invoice → the EN 16931 model (`shared/einvoice/model.ts`). Everything comes
 * from the stored row and the parties frozen when it became FINAL, so the same invoice always
 * gives the same e-invoice, whatever changed in the master data since.
 */

/** The frozen parties of a FINAL generated invoice, or a 409 for anything else. */
export function einvoiceParties(row: DocumentWithFigures): FrozenParties {
  if (row.document_type !== 'INVOICE')
    throw new AppError('state_conflict', `Document ${row.id} is not an invoice.`);
  if (row.status !== 'FINAL')
    throw new AppError(
      'state_conflict',
      `Invoice ${row.id} is a DRAFT: e-invoices exist for FINAL invoices only.`,
    );
  if (row.source !== 'GENERATED' || row.einvoice_parties === null)
    throw new AppError(
      'state_conflict',
      row.source === 'UPLOADED'
        ? `Invoice ${row.id} was uploaded, not issued by Kontor: its file is the invoice.`
        : `Invoice ${row.id} became FINAL before Kontor kept seller and buyer with its invoices; it has no e-invoice.`,
    );
  return JSON.parse(row.einvoice_parties) as FrozenParties;
}

function postal(a: FrozenBuyer['address'] | FrozenParties['seller']['address']): PostalAddress {
  return {
    ...(a?.street ? { line1: a.street } : {}),
    ...(a && 'name' in a && a.name ? { line2: a.name } : {}),
    ...(a?.city ? { city: a.city } : {}),
    ...(a?.postalCode ? { postalCode: a.postalCode } : {}),
    countryCode: a?.country ?? 'DE',
  };
}

const opt = <K extends string, V>(key: K, value: V | null | undefined) =>
  (value === null || value === undefined || value === '' ? {} : { [key]: value }) as Partial<
    Record<K, V>
  >;

/** A party's electronic address (BT-34/BT-49): the one given, else its email (scheme EM). */
function electronicAddress(
  given: ElectronicAddress | null,
  email: string | undefined,
): ElectronicAddress | undefined {
  return given ?? (email ? { scheme: 'EM', value: email } : undefined);
}

/**
 * The German payment-terms text, with the XRechnung Skonto line (BR-DE-18) when agreed. A final
 * invoice grants its Skonto on the remaining amount it asks for (gross total less the deducted
 * down payments, BT-115), which the text names with the Skonto amount, and the XRechnung line
 * as its `BASISBETRAG`.
 */
function paymentTerms(row: DocumentWithFigures, spec: Specification): string | undefined {
  const parts: string[] = [];
  if (row.payment_terms) parts.push(row.payment_terms);
  else if (row.invoice_type === 'CREDIT_NOTE') parts.push('Der Betrag wird Ihnen erstattet.');
  else if (row.due_date)
    parts.push(`Zahlbar ohne Abzug bis ${formatDate(row.due_date, 'DD.MM.YYYY')}.`);
  if (row.skonto_bp !== null && row.skonto_days !== null) {
    const percent = (Number(row.skonto_bp) / 100).toFixed(2);
    const prepaid = row.invoice_type === 'CREDIT_NOTE' ? 0 : prepaidMinor(row);
    const digits = minorDigits(row.currency);
    const base = Number(row.gross_total) - prepaid;
    const money = (minor: number) =>
      `${formatMinor(minor, digits).replace('.', ',')} ${row.currency}`;
    const discount = Number(divRoundHalfUp(BigInt(base) * BigInt(row.skonto_bp), 10_000n));
    const onRemaining = `auf den verbleibenden Rechnungsbetrag von ${money(base)}: ${money(discount)}, Zahlbetrag ${money(base - discount)}`;
    if (!row.payment_terms)
      parts.push(
        `${percent.replace('.', ',')} % Skonto bei Zahlung innerhalb von ${row.skonto_days} Tagen${prepaid > 0 ? ` ${onRemaining}` : ''}.`,
      );
    else if (prepaid > 0) parts.push(`Skonto ${percent.replace('.', ',')} % ${onRemaining}.`);
    if (spec === 'XRECHNUNG')
      parts.push(
        `#SKONTO#TAGE=${row.skonto_days}#PROZENT=${percent}#${prepaid > 0 ? `BASISBETRAG=${formatMinor(base, digits)}#` : ''}\n`,
      );
  }
  return parts.length > 0 ? parts.join('\n') : undefined;
}

/** A line; a negative price (discount) becomes a negative quantity at a positive price (BR-27). */
function line(l: StoredLine, i: number): InvoiceLine {
  const negative = l.unitPriceMinor < 0;
  return {
    id: String(i + 1),
    name: l.description,
    quantityMilli: negative ? -l.quantityMilli : l.quantityMilli,
    unitCode: l.unitCode ?? 'C62',
    priceMinor: Math.abs(l.unitPriceMinor),
    netMinor: l.netMinor,
    vatCategory: (l.taxCategory ?? 'S') as VatCategory,
    vatRateBp: l.rateBp,
  };
}

/** One breakdown per category and rate (several tax-rate records may share both). */
function breakdown(taxes: StoredTaxLine[]): VatBreakdown[] {
  const byKey = new Map<string, VatBreakdown>();
  for (const t of taxes) {
    const category = (t.category ?? 'S') as VatCategory;
    const key = `${category}|${t.rateBp}`;
    const existing = byKey.get(key);
    if (existing) {
      existing.taxableMinor += t.netMinor;
      existing.taxMinor += t.taxMinor;
      continue;
    }
    byKey.set(key, {
      category,
      rateBp: t.rateBp,
      taxableMinor: t.netMinor,
      taxMinor: t.taxMinor,
      ...opt('exemptionReason', t.exemptionReason),
      ...opt('exemptionCode', t.exemptionCode),
    });
  }
  return [...byKey.values()];
}

/**
 * § 14 (5) UStG in the e-invoice too: a final invoice's note (BT-22) names each deducted down
 * payment with its net, its VAT per rate and its gross; the deduction itself is BT-113.
 */
function deductionNote(deductions: StoredDeduction[], currency: string): string[] {
  if (deductions.length === 0) return [];
  const money = (minor: number) => `${formatMinor(minor, minorDigits(currency))} ${currency}`;
  const parts = deductions.map(
    (d) =>
      `Abschlagsrechnung ${d.documentNumber} vom ${formatDate(d.creationDate, 'DD.MM.YYYY')}: netto ${money(d.netMinor)}, ` +
      d.taxes
        .map((t) => `USt ${formatRate(t.rateBp)} % auf ${money(t.netMinor)}: ${money(t.taxMinor)}`)
        .join(', ') +
      `, brutto ${money(d.grossMinor)}`,
  );
  return [`Abzüglich erhaltener Abschlagszahlungen: ${parts.join('; ')}.`];
}

/** The EN 16931 invoice of a FINAL generated invoice, in the given specification (BT-24). */
export function toEnInvoice(
  row: DocumentWithFigures,
  parties: FrozenParties,
  specification: Specification,
): EnInvoice {
  const { seller, buyer } = parties;
  const lines = (JSON.parse(row.line_items) as StoredLine[]).map(line);
  const vatBreakdown = breakdown(JSON.parse(row.tax_breakdown) as StoredTaxLine[]);
  // Not subject to VAT (O): no VAT identifiers at all (BR-O-02…04).
  const notSubject = vatBreakdown.some((b) => b.category === 'O');
  const credit = row.invoice_type === 'CREDIT_NOTE';
  // A final invoice deducts its received down payments as the prepaid amount (BT-113) and
  // names them (BG-3); its VAT breakdown stays the whole job's.
  const deductions = deductionsOf(row);
  const prepaid = prepaidMinor(row);
  const intraCommunity = vatBreakdown.some((b) => b.category === 'K');
  const gross = Number(row.gross_total);
  const terms = paymentTerms(row, specification);
  return {
    specification,
    number: row.document_number ?? row.id,
    issueDate: row.creation_date,
    typeCode: credit ? '381' : row.billing_role === 'DOWN_PAYMENT' ? '386' : '380',
    currency: row.currency,
    ...opt('dueDate', row.due_date),
    // XRechnung needs BT-10: without a buyer reference, the customer number stands in.
    ...opt(
      'buyerReference',
      row.buyer_reference ??
        (specification === 'XRECHNUNG' ? (buyerIdentifier(buyer) ?? row.id) : undefined),
    ),
    ...opt('orderReference', row.order_reference),
    ...opt('contractReference', row.contract_reference ?? null),
    ...opt('paymentTerms', terms),
    notes: [...(row.note ? [row.note] : []), ...deductionNote(deductions, row.currency)],
    ...(credit && row.preceding_number
      ? {
          precedingInvoice: {
            number: row.preceding_number,
            ...opt('issueDate', row.preceding_date),
          },
        }
      : {}),
    ...(deductions.length > 0
      ? {
          prepaymentInvoices: deductions.map((d) => ({
            number: d.documentNumber,
            issueDate: d.creationDate,
          })),
        }
      : {}),
    seller: sellerParty(seller, notSubject),
    buyer: buyerParty(buyer, notSubject),
    ...(row.delivery_date || intraCommunity
      ? {
          delivery: {
            ...opt('date', row.delivery_date),
            ...(intraCommunity ? { address: postal(buyer.address), partyName: buyer.name } : {}),
          },
        }
      : {}),
    ...(row.service_period_from && row.service_period_to
      ? { invoicingPeriod: { start: row.service_period_from, end: row.service_period_to } }
      : {}),
    payment: paymentOf(row, seller, credit),
    lines,
    vatBreakdown,
    totals: {
      lineNetMinor: Number(row.net_total),
      taxExclusiveMinor: Number(row.net_total),
      taxMinor: Number(row.tax_total),
      taxInclusiveMinor: gross,
      paidMinor: prepaid,
      payableMinor: gross - prepaid,
    },
  };
}

/** The seller (BG-4): without VAT identifiers when the supply is not subject to VAT. */
function sellerParty(seller: FrozenParties['seller'], notSubject: boolean): EnInvoice['seller'] {
  const email = seller.email ?? undefined;
  const legalInfo = [
    seller.managingDirectors.length > 0
      ? `Geschäftsführung: ${seller.managingDirectors.join(', ')}`
      : '',
    seller.registerCourt || seller.registerNumber
      ? `Registergericht: ${[seller.registerCourt, seller.registerNumber].filter(Boolean).join(' ')}`
      : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    name: seller.legalName,
    ...opt('legalRegistrationId', seller.registerNumber),
    ...(notSubject ? {} : opt('vatId', seller.vatId)),
    ...opt('taxNumber', seller.taxNumber),
    ...opt('legalInfo', legalInfo),
    ...opt('electronicAddress', electronicAddress(seller.electronicAddress, email)),
    address: postal(seller.address),
    contact: {
      name: seller.managingDirectors[0] ?? seller.legalName,
      ...opt('phone', seller.phone),
      ...opt('email', email),
    },
  };
}

/**
 * BT-46: the customer number frozen with the invoice; the partner id on invoices frozen
 * before partners had numbers (or for a partner without one).
 */
const buyerIdentifier = (buyer: FrozenBuyer) => buyer.number ?? buyer.id;

/** The buyer (BG-7): without VAT identifiers when the supply is not subject to VAT. */
function buyerParty(buyer: FrozenParties['buyer'], notSubject: boolean): EnInvoice['buyer'] {
  const email = buyer.address?.email ?? undefined;
  return {
    name: buyer.name,
    ...opt('identifier', buyerIdentifier(buyer)),
    ...(notSubject ? {} : opt('vatId', buyer.vatId)),
    ...opt('electronicAddress', electronicAddress(buyer.electronicAddress, email)),
    address: postal(buyer.address),
  };
}

/** Payment instructions (BG-16): a SEPA transfer to the seller's first account, if any. */
function paymentOf(
  row: DocumentWithFigures,
  seller: FrozenParties['seller'],
  credit: boolean,
): EnInvoice['payment'] {
  const bank = seller.bankAccounts[0];
  const remittanceInformation = row.document_number ?? row.id;
  if (credit || !bank) return { meansCode: '1', remittanceInformation };
  return {
    meansCode: row.currency === 'EUR' ? '58' : '30',
    remittanceInformation,
    creditTransfer: {
      iban: bank.iban,
      accountName: bank.accountHolder ?? seller.legalName,
      ...opt('bic', bank.bic),
    },
  };
}

/** An e-invoice file as answered and mailed. */
export interface EInvoiceFile {
  filename: string;
  contentType: string;
  bytes: Buffer;
}

const XML_FORMATS = { 'xrechnung-cii': toCii, 'xrechnung-ubl': toUbl } as const;

/**
 * The XRechnung XML of a FINAL invoice (`xrechnung-cii`, `xrechnung-ubl`), built from the
 * stored document: the same bytes every time.
 */
export function xrechnungFile(
  row: DocumentWithFigures,
  format: keyof typeof XML_FORMATS,
  baseName: string,
): EInvoiceFile {
  const parties = einvoiceParties(row);
  // The parties are frozen: an invoice finalized for a ZUGFeRD buyer without electronic
  // address can never become a valid XRechnung, so it is refused rather than emitted invalid.
  const missing = xrechnungProblems(parties);
  if (missing.length > 0)
    throw new AppError(
      'state_conflict',
      `Invoice ${row.document_number ?? row.id} lacks data XRechnung requires; it was finalized for ${parties.buyer.einvoiceFormat}. Its ZUGFeRD PDF is available.`,
      { errors: missing },
    );
  const xml = XML_FORMATS[format](toEnInvoice(row, parties, 'XRECHNUNG'));
  return {
    filename: `${baseName}.xml`,
    contentType: 'application/xml',
    bytes: Buffer.from(xml, 'utf8'),
  };
}

/**
 * The ZUGFeRD/Factur-X hybrid of a freshly rendered FINAL invoice: the PDF as PDF/A-3 with
 * `factur-x.xml` (profile EN 16931) embedded, dated by its finalization so a re-render of
 * the same invoice gives the same bytes.
 */
export async function zugferdPdf(
  row: DocumentWithFigures,
  pdf: Uint8Array,
  title: string,
  /** The PDF's subject: what the document is and its number (`Stornorechnung GS-2026-0001`). */
  { subject }: { subject: string },
): Promise<Uint8Array> {
  const parties = einvoiceParties(row);
  const xml = toCii(toEnInvoice(row, parties, 'EN16931'));
  return embedFacturX(pdf, xml, {
    title,
    author: parties.seller.legalName,
    subject,
    createdAt: new Date(row.finalized_at ?? row.updated_at),
  });
}
