import { minorDigits } from '../money.js';
import {
  precedingInvoices,
  DEFAULT_BUSINESS_PROCESS,
  SPECIFICATION_IDS,
  formatMilli,
  formatMinor,
  formatRate,
  type Contact,
  type EnInvoice,
  type InvoiceLine,
  type PostalAddress,
  type VatBreakdown,
  type VatCategory,
} from './model.js';
import { XmlWriter } from './xml-writer.js';

/**
 * OASIS UBL 2.1 as EN 16931 binds it (the XRechnung UBL syntax): an `Invoice`, or for type code
 * 381 a `CreditNote`, whose names differ in a few places (type code, line, quantity, due date).
 * Element order follows the UBL 2.1 schemas, which are strict about it.
 */

const CAC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2';
const CBC = 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2';

/** The names that differ between the two UBL document types. */
interface Syntax {
  root: string;
  namespace: string;
  typeCode: string;
  line: string;
  quantity: string;
}

const INVOICE: Syntax = {
  root: 'Invoice',
  namespace: 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2',
  typeCode: 'cbc:InvoiceTypeCode',
  line: 'cac:InvoiceLine',
  quantity: 'cbc:InvoicedQuantity',
};

const CREDIT_NOTE: Syntax = {
  root: 'CreditNote',
  namespace: 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2',
  typeCode: 'cbc:CreditNoteTypeCode',
  line: 'cac:CreditNoteLine',
  quantity: 'cbc:CreditedQuantity',
};

/**
 * Serializes an EN 16931 invoice as UBL 2.1 XML (UTF-8, with declaration): `Invoice`, or
 * `CreditNote` for type code 381. Deterministic: the same invoice gives the same bytes. Writes
 * exactly what the model carries; computes nothing. A credit note's BT-9 lives in the payment
 * means, so a credit note without payment instructions cannot carry a due date.
 */
export function toUbl(inv: EnInvoice): string {
  const syntax = inv.typeCode === '381' ? CREDIT_NOTE : INVOICE;
  const creditNote = syntax === CREDIT_NOTE;
  const w = new XmlWriter();
  const digits = minorDigits(inv.currency);
  const money = (name: string, minor: number) =>
    w.leaf(name, formatMinor(minor, digits), { currencyID: inv.currency });

  w.group(
    syntax.root,
    () => {
      w.leaf('cbc:CustomizationID', SPECIFICATION_IDS[inv.specification]);
      w.leaf('cbc:ProfileID', inv.businessProcess ?? DEFAULT_BUSINESS_PROCESS);
      w.leaf('cbc:ID', inv.number);
      w.leaf('cbc:IssueDate', inv.issueDate);
      // A CreditNote has no DueDate; EN 16931 binds its BT-9 to the payment means instead.
      if (!creditNote) w.leaf('cbc:DueDate', inv.dueDate);
      w.leaf(syntax.typeCode, inv.typeCode);
      for (const note of inv.notes) w.leaf('cbc:Note', note);
      w.leaf('cbc:DocumentCurrencyCode', inv.currency);
      w.leaf('cbc:BuyerReference', inv.buyerReference);
      if (inv.invoicingPeriod !== undefined) {
        const period = inv.invoicingPeriod;
        w.group('cac:InvoicePeriod', () => {
          w.leaf('cbc:StartDate', period.start);
          w.leaf('cbc:EndDate', period.end);
        });
      }
      w.group('cac:OrderReference', () => w.leaf('cbc:ID', inv.orderReference));
      for (const preceding of precedingInvoices(inv))
        w.group('cac:BillingReference', () =>
          w.group('cac:InvoiceDocumentReference', () => {
            w.leaf('cbc:ID', preceding.number);
            w.leaf('cbc:IssueDate', preceding.issueDate);
          }),
        );
      w.group('cac:ContractDocumentReference', () => w.leaf('cbc:ID', inv.contractReference));
      writeSeller(w, inv);
      writeBuyer(w, inv);
      writeDelivery(w, inv);
      writePayment(w, inv, creditNote);
      w.group('cac:PaymentTerms', () => w.leaf('cbc:Note', inv.paymentTerms));
      w.group('cac:TaxTotal', () => {
        money('cbc:TaxAmount', inv.totals.taxMinor);
        for (const vat of inv.vatBreakdown) writeSubtotal(w, vat, money);
      });
      w.group('cac:LegalMonetaryTotal', () => {
        const totals = inv.totals;
        money('cbc:LineExtensionAmount', totals.lineNetMinor);
        money('cbc:TaxExclusiveAmount', totals.taxExclusiveMinor);
        money('cbc:TaxInclusiveAmount', totals.taxInclusiveMinor);
        if (totals.paidMinor !== 0) money('cbc:PrepaidAmount', totals.paidMinor);
        money('cbc:PayableAmount', totals.payableMinor);
      });
      for (const line of inv.lines) writeLine(w, syntax, line, money);
    },
    { attrs: { xmlns: syntax.namespace, 'xmlns:cac': CAC, 'xmlns:cbc': CBC } },
  );
  return w.toString();
}

function writeAddress(w: XmlWriter, name: string, address: PostalAddress | undefined): void {
  if (address === undefined) return;
  w.group(name, () => {
    w.leaf('cbc:StreetName', address.line1);
    w.leaf('cbc:AdditionalStreetName', address.line2);
    w.leaf('cbc:CityName', address.city);
    w.leaf('cbc:PostalZone', address.postalCode);
    w.group('cac:Country', () => w.leaf('cbc:IdentificationCode', address.countryCode));
  });
}

function writeContact(w: XmlWriter, contact: Contact | undefined): void {
  if (contact === undefined) return;
  w.group('cac:Contact', () => {
    w.leaf('cbc:Name', contact.name);
    w.leaf('cbc:Telephone', contact.phone);
    w.leaf('cbc:ElectronicMail', contact.email);
  });
}

function writeTaxScheme(w: XmlWriter, id: string | undefined, scheme: 'VAT' | 'FC'): void {
  if (id === undefined) return;
  w.group('cac:PartyTaxScheme', () => {
    w.leaf('cbc:CompanyID', id);
    w.group('cac:TaxScheme', () => w.leaf('cbc:ID', scheme));
  });
}

function writeSeller(w: XmlWriter, inv: EnInvoice): void {
  const seller = inv.seller;
  w.group('cac:AccountingSupplierParty', () =>
    w.group('cac:Party', () => {
      const endpoint = seller.electronicAddress;
      if (endpoint !== undefined)
        w.leaf('cbc:EndpointID', endpoint.value, { schemeID: endpoint.scheme });
      // BT-29 only as the last resort of BR-CO-26: XRechnung receivers route on BT-30/BT-31.
      if (seller.legalRegistrationId === undefined && seller.vatId === undefined)
        w.group('cac:PartyIdentification', () => w.leaf('cbc:ID', seller.identifier));
      writeAddress(w, 'cac:PostalAddress', seller.address);
      writeTaxScheme(w, seller.vatId, 'VAT');
      writeTaxScheme(w, seller.taxNumber, 'FC');
      w.group('cac:PartyLegalEntity', () => {
        w.leaf('cbc:RegistrationName', seller.name);
        w.leaf('cbc:CompanyID', seller.legalRegistrationId);
        w.leaf('cbc:CompanyLegalForm', seller.legalInfo);
      });
      writeContact(w, seller.contact);
    }),
  );
}

function writeBuyer(w: XmlWriter, inv: EnInvoice): void {
  const buyer = inv.buyer;
  w.group('cac:AccountingCustomerParty', () =>
    w.group('cac:Party', () => {
      const endpoint = buyer.electronicAddress;
      if (endpoint !== undefined)
        w.leaf('cbc:EndpointID', endpoint.value, { schemeID: endpoint.scheme });
      w.group('cac:PartyIdentification', () => w.leaf('cbc:ID', buyer.identifier));
      writeAddress(w, 'cac:PostalAddress', buyer.address);
      writeTaxScheme(w, buyer.vatId, 'VAT');
      w.group('cac:PartyLegalEntity', () => w.leaf('cbc:RegistrationName', buyer.name));
      writeContact(w, buyer.contact);
    }),
  );
}

function writeDelivery(w: XmlWriter, inv: EnInvoice): void {
  const delivery = inv.delivery;
  if (delivery === undefined) return;
  w.group('cac:Delivery', () => {
    w.leaf('cbc:ActualDeliveryDate', delivery.date);
    w.group('cac:DeliveryLocation', () => writeAddress(w, 'cac:Address', delivery.address));
    w.group('cac:DeliveryParty', () =>
      w.group('cac:PartyName', () => w.leaf('cbc:Name', delivery.partyName)),
    );
  });
}

function writePayment(w: XmlWriter, inv: EnInvoice, creditNote: boolean): void {
  const payment = inv.payment;
  if (payment === undefined) return;
  w.group('cac:PaymentMeans', () => {
    w.leaf('cbc:PaymentMeansCode', payment.meansCode);
    if (creditNote) w.leaf('cbc:PaymentDueDate', inv.dueDate);
    w.leaf('cbc:PaymentID', payment.remittanceInformation);
    const transfer = payment.creditTransfer;
    if (transfer === undefined) return;
    w.group('cac:PayeeFinancialAccount', () => {
      w.leaf('cbc:ID', transfer.iban);
      w.leaf('cbc:Name', transfer.accountName);
      w.group('cac:FinancialInstitutionBranch', () => w.leaf('cbc:ID', transfer.bic));
    });
  });
}

/** A tax category (`cac:TaxCategory` or `cac:ClassifiedTaxCategory`) with its VAT scheme. */
function writeCategory(
  w: XmlWriter,
  name: string,
  category: VatCategory,
  rateBp: number | undefined,
  exemption?: Pick<VatBreakdown, 'exemptionCode' | 'exemptionReason'>,
): void {
  w.group(name, () => {
    w.leaf('cbc:ID', category);
    if (rateBp !== undefined) w.leaf('cbc:Percent', formatRate(rateBp));
    w.leaf('cbc:TaxExemptionReasonCode', exemption?.exemptionCode);
    w.leaf('cbc:TaxExemptionReason', exemption?.exemptionReason);
    w.group('cac:TaxScheme', () => w.leaf('cbc:ID', 'VAT'));
  });
}

function writeSubtotal(
  w: XmlWriter,
  vat: VatBreakdown,
  money: (name: string, minor: number) => void,
): void {
  w.group('cac:TaxSubtotal', () => {
    money('cbc:TaxableAmount', vat.taxableMinor);
    money('cbc:TaxAmount', vat.taxMinor);
    // Also for O: XRechnung requires BT-119 on every breakdown (BR-DE-14).
    writeCategory(w, 'cac:TaxCategory', vat.category, vat.rateBp, vat);
  });
}

function writeLine(
  w: XmlWriter,
  syntax: Syntax,
  line: InvoiceLine,
  money: (name: string, minor: number) => void,
): void {
  w.group(syntax.line, () => {
    w.leaf('cbc:ID', line.id);
    w.leaf(syntax.quantity, formatMilli(line.quantityMilli), { unitCode: line.unitCode });
    money('cbc:LineExtensionAmount', line.netMinor);
    w.group('cac:Item', () => {
      w.leaf('cbc:Name', line.name);
      // BR-O-05: a line not subject to VAT carries no rate at all.
      const rate = line.vatCategory === 'O' ? undefined : line.vatRateBp;
      writeCategory(w, 'cac:ClassifiedTaxCategory', line.vatCategory, rate);
    });
    w.group('cac:Price', () => money('cbc:PriceAmount', line.priceMinor));
  });
}
