import { minorDigits } from '../money.js';
import {
  precedingInvoices,
  DEFAULT_BUSINESS_PROCESS,
  SPECIFICATION_IDS,
  formatMilli,
  formatMinor,
  formatRate,
  type Contact,
  type ElectronicAddress,
  type EnInvoice,
  type InvoiceLine,
  type PostalAddress,
  type VatBreakdown,
} from './model.js';
import { XmlWriter } from './xml-writer.js';

/**
 * UN/CEFACT Cross Industry Invoice D16B (`rsm:CrossIndustryInvoice`) as EN 16931 binds it: the
 * XRechnung CII syntax and, with specification EN16931, the `factur-x.xml` a ZUGFeRD/Factur-X
 * EN 16931 PDF embeds. Element order follows the D16B schema, which is strict about it.
 */

const NAMESPACES = {
  'xmlns:rsm': 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  'xmlns:ram': 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  'xmlns:qdt': 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  'xmlns:udt': 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
};

/** `2026-11-20` → `20261120` (date format 102). */
const date102 = (iso: string) => iso.replaceAll('-', '');

/**
 * Serializes an EN 16931 invoice as CII D16B XML (UTF-8, with declaration). Deterministic: the
 * same invoice gives the same bytes. Writes exactly what the model carries; computes nothing.
 */
export function toCii(inv: EnInvoice): string {
  const w = new XmlWriter();
  const digits = minorDigits(inv.currency);
  const amount = (minor: number) => formatMinor(minor, digits);
  const dateTime = (name: string, iso: string | undefined, ns: 'udt' | 'qdt' = 'udt') => {
    if (iso === undefined) return;
    w.group(name, () => w.leaf(`${ns}:DateTimeString`, date102(iso), { format: '102' }));
  };

  w.group(
    'rsm:CrossIndustryInvoice',
    () => {
      w.group('rsm:ExchangedDocumentContext', () => {
        w.group('ram:BusinessProcessSpecifiedDocumentContextParameter', () =>
          w.leaf('ram:ID', inv.businessProcess ?? DEFAULT_BUSINESS_PROCESS),
        );
        w.group('ram:GuidelineSpecifiedDocumentContextParameter', () =>
          w.leaf('ram:ID', SPECIFICATION_IDS[inv.specification]),
        );
      });
      w.group('rsm:ExchangedDocument', () => {
        w.leaf('ram:ID', inv.number);
        w.leaf('ram:TypeCode', inv.typeCode);
        dateTime('ram:IssueDateTime', inv.issueDate);
        for (const note of inv.notes)
          w.group('ram:IncludedNote', () => w.leaf('ram:Content', note));
      });
      w.group('rsm:SupplyChainTradeTransaction', () => {
        for (const line of inv.lines) writeLine(w, line, amount);
        writeAgreement(w, inv);
        writeDelivery(w, inv, dateTime);
        writeSettlement(w, inv, amount, dateTime);
      });
    },
    { attrs: NAMESPACES },
  );
  return w.toString();
}

function writeLine(w: XmlWriter, line: InvoiceLine, amount: (minor: number) => string): void {
  w.group('ram:IncludedSupplyChainTradeLineItem', () => {
    w.group('ram:AssociatedDocumentLineDocument', () => w.leaf('ram:LineID', line.id));
    w.group('ram:SpecifiedTradeProduct', () => w.leaf('ram:Name', line.name));
    w.group('ram:SpecifiedLineTradeAgreement', () =>
      w.group('ram:NetPriceProductTradePrice', () =>
        w.leaf('ram:ChargeAmount', amount(line.priceMinor)),
      ),
    );
    w.group('ram:SpecifiedLineTradeDelivery', () =>
      w.leaf('ram:BilledQuantity', formatMilli(line.quantityMilli), { unitCode: line.unitCode }),
    );
    w.group('ram:SpecifiedLineTradeSettlement', () => {
      w.group('ram:ApplicableTradeTax', () => {
        w.leaf('ram:TypeCode', 'VAT');
        w.leaf('ram:CategoryCode', line.vatCategory);
        // BR-O-05: a line not subject to VAT carries no rate at all.
        if (line.vatCategory !== 'O')
          w.leaf('ram:RateApplicablePercent', formatRate(line.vatRateBp));
      });
      w.group('ram:SpecifiedTradeSettlementLineMonetarySummation', () =>
        w.leaf('ram:LineTotalAmount', amount(line.netMinor)),
      );
    });
  });
}

function writeAddress(w: XmlWriter, address: PostalAddress | undefined): void {
  if (address === undefined) return;
  w.group('ram:PostalTradeAddress', () => {
    w.leaf('ram:PostcodeCode', address.postalCode);
    w.leaf('ram:LineOne', address.line1);
    w.leaf('ram:LineTwo', address.line2);
    w.leaf('ram:CityName', address.city);
    w.leaf('ram:CountryID', address.countryCode);
  });
}

function writeContact(w: XmlWriter, contact: Contact | undefined): void {
  if (contact === undefined) return;
  w.group('ram:DefinedTradeContact', () => {
    w.leaf('ram:PersonName', contact.name);
    w.group('ram:TelephoneUniversalCommunication', () =>
      w.leaf('ram:CompleteNumber', contact.phone),
    );
    w.group('ram:EmailURIUniversalCommunication', () => w.leaf('ram:URIID', contact.email));
  });
}

function writeElectronicAddress(w: XmlWriter, address: ElectronicAddress | undefined): void {
  if (address === undefined) return;
  w.group('ram:URIUniversalCommunication', () =>
    w.leaf('ram:URIID', address.value, { schemeID: address.scheme }),
  );
}

function writeTaxRegistration(w: XmlWriter, id: string | undefined, scheme: 'VA' | 'FC'): void {
  if (id === undefined) return;
  w.group('ram:SpecifiedTaxRegistration', () => w.leaf('ram:ID', id, { schemeID: scheme }));
}

function writeAgreement(w: XmlWriter, inv: EnInvoice): void {
  const { seller, buyer } = inv;
  w.group('ram:ApplicableHeaderTradeAgreement', () => {
    w.leaf('ram:BuyerReference', inv.buyerReference);
    w.group('ram:SellerTradeParty', () => {
      // BT-29 only as the last resort of BR-CO-26: XRechnung receivers route on BT-30/BT-31.
      if (seller.legalRegistrationId === undefined && seller.vatId === undefined)
        w.leaf('ram:ID', seller.identifier);
      w.leaf('ram:Name', seller.name);
      w.leaf('ram:Description', seller.legalInfo);
      w.group('ram:SpecifiedLegalOrganization', () => w.leaf('ram:ID', seller.legalRegistrationId));
      writeContact(w, seller.contact);
      writeAddress(w, seller.address);
      writeElectronicAddress(w, seller.electronicAddress);
      writeTaxRegistration(w, seller.vatId, 'VA');
      writeTaxRegistration(w, seller.taxNumber, 'FC');
    });
    w.group('ram:BuyerTradeParty', () => {
      w.leaf('ram:ID', buyer.identifier);
      w.leaf('ram:Name', buyer.name);
      writeContact(w, buyer.contact);
      writeAddress(w, buyer.address);
      writeElectronicAddress(w, buyer.electronicAddress);
      writeTaxRegistration(w, buyer.vatId, 'VA');
    });
    w.group('ram:BuyerOrderReferencedDocument', () =>
      w.leaf('ram:IssuerAssignedID', inv.orderReference),
    );
    w.group('ram:ContractReferencedDocument', () =>
      w.leaf('ram:IssuerAssignedID', inv.contractReference),
    );
    for (const more of precedingInvoices(inv).slice(1))
      w.group('ram:AdditionalReferencedDocument', () => {
        w.leaf('ram:IssuerAssignedID', more.number);
        w.leaf('ram:TypeCode', '916');
        w.leaf(
          'ram:Name',
          `Preceding invoice ${more.number}${more.issueDate ? ` of ${more.issueDate}` : ''}`,
        );
      });
  });
}

function writeDelivery(
  w: XmlWriter,
  inv: EnInvoice,
  dateTime: (name: string, iso: string | undefined) => void,
): void {
  // Mandatory in the D16B schema even when EN 16931 has nothing to say about delivery.
  w.group(
    'ram:ApplicableHeaderTradeDelivery',
    () => {
      const delivery = inv.delivery;
      if (delivery === undefined) return;
      w.group('ram:ShipToTradeParty', () => {
        w.leaf('ram:Name', delivery.partyName);
        writeAddress(w, delivery.address);
      });
      w.group('ram:ActualDeliverySupplyChainEvent', () =>
        dateTime('ram:OccurrenceDateTime', delivery.date),
      );
    },
    { keepEmpty: true },
  );
}

function writeBreakdown(w: XmlWriter, vat: VatBreakdown, amount: (minor: number) => string) {
  w.group('ram:ApplicableTradeTax', () => {
    w.leaf('ram:CalculatedAmount', amount(vat.taxMinor));
    w.leaf('ram:TypeCode', 'VAT');
    w.leaf('ram:ExemptionReason', vat.exemptionReason);
    w.leaf('ram:BasisAmount', amount(vat.taxableMinor));
    w.leaf('ram:CategoryCode', vat.category);
    w.leaf('ram:ExemptionReasonCode', vat.exemptionCode);
    // Also for O: XRechnung requires BT-119 on every breakdown (BR-DE-14).
    w.leaf('ram:RateApplicablePercent', formatRate(vat.rateBp));
  });
}

function writeSettlement(
  w: XmlWriter,
  inv: EnInvoice,
  amount: (minor: number) => string,
  dateTime: (name: string, iso: string | undefined, ns?: 'udt' | 'qdt') => void,
): void {
  const { payment, totals } = inv;
  w.group('ram:ApplicableHeaderTradeSettlement', () => {
    w.leaf('ram:PaymentReference', payment?.remittanceInformation);
    w.leaf('ram:InvoiceCurrencyCode', inv.currency);
    if (payment !== undefined)
      w.group('ram:SpecifiedTradeSettlementPaymentMeans', () => {
        w.leaf('ram:TypeCode', payment.meansCode);
        const transfer = payment.creditTransfer;
        if (transfer === undefined) return;
        w.group('ram:PayeePartyCreditorFinancialAccount', () => {
          w.leaf('ram:IBANID', transfer.iban);
          w.leaf('ram:AccountName', transfer.accountName);
        });
        w.group('ram:PayeeSpecifiedCreditorFinancialInstitution', () =>
          w.leaf('ram:BICID', transfer.bic),
        );
      });
    for (const vat of inv.vatBreakdown) writeBreakdown(w, vat, amount);
    if (inv.invoicingPeriod !== undefined) {
      const period = inv.invoicingPeriod;
      w.group('ram:BillingSpecifiedPeriod', () => {
        dateTime('ram:StartDateTime', period.start);
        dateTime('ram:EndDateTime', period.end);
      });
    }
    // EN 16931 binds BT-20 and BT-9 to the same (single) payment terms element.
    w.group('ram:SpecifiedTradePaymentTerms', () => {
      w.leaf('ram:Description', inv.paymentTerms);
      dateTime('ram:DueDateDateTime', inv.dueDate);
    });
    w.group('ram:SpecifiedTradeSettlementHeaderMonetarySummation', () => {
      w.leaf('ram:LineTotalAmount', amount(totals.lineNetMinor));
      w.leaf('ram:TaxBasisTotalAmount', amount(totals.taxExclusiveMinor));
      w.leaf('ram:TaxTotalAmount', amount(totals.taxMinor), { currencyID: inv.currency });
      w.leaf('ram:GrandTotalAmount', amount(totals.taxInclusiveMinor));
      if (totals.paidMinor !== 0) w.leaf('ram:TotalPrepaidAmount', amount(totals.paidMinor));
      w.leaf('ram:DuePayableAmount', amount(totals.payableMinor));
    });
    // CII (D16B) holds one InvoiceReferencedDocument: the first; the rest are supporting
    // documents (BG-24) of the agreement.
    for (const preceding of precedingInvoices(inv).slice(0, 1))
      w.group('ram:InvoiceReferencedDocument', () => {
        w.leaf('ram:IssuerAssignedID', preceding.number);
        dateTime('ram:FormattedIssueDateTime', preceding.issueDate, 'qdt');
      });
  });
}
