import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { parseEInvoiceXml, type EInvoice } from './read.js';
import { ciiSample } from '../pdf/pdf.test-support.js';

function refusal(xml: string | Buffer): AppError {
  try {
    parseEInvoiceXml(xml);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the XML to be refused');
}

const SELLER: EInvoice['seller'] = {
  name: 'Müller & Söhne GmbH',
  vatId: 'DE123456789',
  taxNumber: '214/5678/0123',
  address: {
    lines: ['Hauptstraße 1', 'Hinterhaus'],
    postcode: '50667',
    city: 'Köln',
    countryCode: 'DE',
  },
};
const BUYER: EInvoice['buyer'] = {
  name: 'Kunde AG',
  address: { lines: ['Chausseestraße 5'], postcode: '10115', city: 'Berlin', countryCode: 'DE' },
};
const TOTALS = { netMinor: 32500, taxMinor: 5875, grossMinor: 38375, dueMinor: 38375 };

/** The same invoice as `ciiSample`, in UBL. */
function ublSample(
  options: {
    root?: 'Invoice' | 'CreditNote';
    customization?: string | null;
    payable?: string;
  } = {},
): string {
  const root = options.root ?? 'Invoice';
  const lineName = root === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine';
  const quantityName = root === 'Invoice' ? 'InvoicedQuantity' : 'CreditedQuantity';
  const customization =
    options.customization === null
      ? ''
      : `<cbc:CustomizationID>${options.customization ?? 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0'}</cbc:CustomizationID>`;
  const line = (id: number, quantity: string, amount: string, price: string, rate: string) => `
  <cac:${lineName}>
    <cbc:ID>${id}</cbc:ID>
    <cbc:${quantityName} unitCode="C62">${quantity}</cbc:${quantityName}>
    <cbc:LineExtensionAmount currencyID="EUR">${amount}</cbc:LineExtensionAmount>
    <cac:Item><cbc:Name>Position ${id}</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>${rate}</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
    <cac:Price><cbc:PriceAmount currencyID="EUR">${price}</cbc:PriceAmount></cac:Price>
  </cac:${lineName}>`;
  const party = (
    name: string,
    street: string,
    city: string,
    zip: string,
    vat?: string,
    contact = '',
  ) => `
    <cac:Party>
      <cac:PostalAddress><cbc:StreetName>${street}</cbc:StreetName><cbc:CityName>${city}</cbc:CityName><cbc:PostalZone>${zip}</cbc:PostalZone><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
      ${vat ? `<cac:PartyTaxScheme><cbc:CompanyID>${vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>` : ''}
      <cac:PartyLegalEntity><cbc:RegistrationName>${name}</cbc:RegistrationName></cac:PartyLegalEntity>
      ${contact}
    </cac:Party>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<${root} xmlns="urn:oasis:names:specification:ubl:schema:xsd:${root}-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  ${customization}
  <cbc:ID>GS-7</cbc:ID>
  <cbc:IssueDate>2025-01-15</cbc:IssueDate>
  ${root === 'Invoice' ? '<cbc:DueDate>2025-02-14</cbc:DueDate><cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>' : '<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>'}
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>04011000-12345-03</cbc:BuyerReference>
  <cac:AccountingSupplierParty>${party(
    'Müller &amp; Söhne GmbH',
    'Hauptstraße 1',
    'Köln',
    '50667',
    'DE123456789',
    '<cac:Contact><cbc:Name>Erika Muster</cbc:Name><cbc:Telephone>+49 221 123456</cbc:Telephone><cbc:ElectronicMail>rechnung@mueller.example</cbc:ElectronicMail></cac:Contact>',
  )}</cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>${party('Kunde AG', 'Chausseestraße 5', 'Berlin', '10115')}</cac:AccountingCustomerParty>
  <cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cbc:PaymentID>GS-7</cbc:PaymentID><cac:PayeeFinancialAccount><cbc:ID>DE02 1203 0000 0000 2020 51</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">58.75</cbc:TaxAmount>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">300.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">57.00</cbc:TaxAmount></cac:TaxSubtotal>
    <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">25.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">1.75</cbc:TaxAmount></cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:TaxTotal><cbc:TaxAmount currencyID="CHF">55.10</cbc:TaxAmount></cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">325.00</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="EUR">325.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">383.75</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">${options.payable ?? '383.75'}</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>${line(1, '3', '300.00', '100.00', '19')}${line(2, '2', '25.00', '12.50', '7')}
</${root}>`;
}

/** A ZUGFeRD 1.0 (2014) COMFORT invoice: one line, 4-decimal amounts with currencyID. */
const ZUGFERD1 = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
  <rsm:SpecifiedExchangedDocumentContext>
    <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:comfort</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:SpecifiedExchangedDocumentContext>
  <rsm:HeaderExchangedDocument>
    <ram:ID>2014-17</ram:ID><ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20140605</udt:DateTimeString></ram:IssueDateTime>
  </rsm:HeaderExchangedDocument>
  <rsm:SpecifiedSupplyChainTradeTransaction>
    <ram:ApplicableSupplyChainTradeAgreement>
      <ram:SellerTradeParty><ram:Name>Lieferant GmbH</ram:Name>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
      <ram:BuyerTradeParty><ram:Name>Kunden AG</ram:Name></ram:BuyerTradeParty>
    </ram:ApplicableSupplyChainTradeAgreement>
    <ram:ApplicableSupplyChainTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementMonetarySummation>
        <ram:LineTotalAmount currencyID="EUR">100.0000</ram:LineTotalAmount>
        <ram:TaxBasisTotalAmount currencyID="EUR">100.0000</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">19.0000</ram:TaxTotalAmount>
        <ram:GrandTotalAmount currencyID="EUR">119.0000</ram:GrandTotalAmount>
      </ram:SpecifiedTradeSettlementMonetarySummation>
    </ram:ApplicableSupplyChainTradeSettlement>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:IncludedNote><ram:Content>Nur ein Hinweis</ram:Content></ram:IncludedNote></ram:AssociatedDocumentLineDocument>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:SpecifiedSupplyChainTradeSettlement>
        <ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">100.0000</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>
      </ram:SpecifiedSupplyChainTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>
  </rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>`;

describe('parseEInvoiceXml: CII', () => {
  it('reads a CII XRechnung completely', () => {
    expect(parseEInvoiceXml(ciiSample())).toEqual({
      syntax: 'CII',
      profile: 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0',
      profileName: 'XRECHNUNG',
      documentNumber: 'RE-2025-0042',
      documentType: '380',
      kind: 'INVOICE',
      issueDate: '2025-01-15',
      dueDate: '2025-02-14',
      currency: 'EUR',
      seller: SELLER,
      buyer: BUYER,
      totals: TOTALS,
      lineCount: 2,
      buyerReference: '04011000-12345-03',
      paymentReference: 'RE-2025-0042',
      paymentIban: 'DE02120300000000202051',
      warnings: [],
    });
  });

  it('reads bytes in UTF-8 with BOM, UTF-16 and ISO-8859-1', () => {
    const xml = ciiSample();
    expect(
      parseEInvoiceXml(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(xml)])).seller
        .name,
    ).toBe('Müller & Söhne GmbH');
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(xml.replace('UTF-8', 'UTF-16'), 'utf16le'),
    ]);
    expect(parseEInvoiceXml(utf16).seller.address?.city).toBe('Köln');
    const latin1 = Buffer.from(xml.replace('UTF-8', 'ISO-8859-1'), 'latin1');
    expect(parseEInvoiceXml(latin1).buyer.address?.lines).toEqual(['Chausseestraße 5']);
    // Latin-1 bytes declared as UTF-8 are refused, not turned into replacement characters.
    expect(refusal(Buffer.from(xml, 'latin1')).message).toBe('The XML is not valid UTF-8 text.');
  });

  it('reads ZUGFeRD 1.0, skipping text-only lines', () => {
    const invoice = parseEInvoiceXml(ZUGFERD1);
    expect(invoice).toMatchObject({
      syntax: 'CII',
      profileName: 'COMFORT',
      documentNumber: '2014-17',
      issueDate: '2014-06-05',
      seller: { name: 'Lieferant GmbH', vatId: 'DE123456789' },
      buyer: { name: 'Kunden AG' },
      // No DuePayableAmount: the amount due is the gross total.
      totals: { netMinor: 10000, taxMinor: 1900, grossMinor: 11900, dueMinor: 11900 },
      lineCount: 1,
    });
  });

  it('reads ZUGFeRD 1.0 by its own rules: a Skonto-reduced amount due is reported, not refused', () => {
    // A 1.0 generator that wrote the amount due after 2 % Skonto and rounded a line sum:
    // EN 16931's BR-CO-16 and BR-CO-10 do not bind 1.0, whose schema only sums the grand total.
    const xml = ZUGFERD1.replace(
      '<ram:GrandTotalAmount currencyID="EUR">119.0000</ram:GrandTotalAmount>',
      '<ram:GrandTotalAmount currencyID="EUR">119.0000</ram:GrandTotalAmount><ram:DuePayableAmount currencyID="EUR">116.6200</ram:DuePayableAmount>',
    ).replace(
      '<ram:LineTotalAmount currencyID="EUR">100.0000</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>',
      '<ram:LineTotalAmount currencyID="EUR">99.9900</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation>',
    );
    const invoice = parseEInvoiceXml(xml);
    expect(invoice.totals).toMatchObject({ grossMinor: 11900, dueMinor: 11662 });
    expect(invoice.warnings.map((w) => w.split(' ')[0])).toEqual(['BR-CO-10', 'BR-CO-16']);
    // Its own rule still holds: net + VAT must be the grand total.
    const broken = xml.replace(
      '119.0000</ram:GrandTotalAmount>',
      '120.0000</ram:GrandTotalAmount>',
    );
    expect(refusal(broken).message).toMatch(/ZUGFeRD 1\.0 totals do not add up/);
  });

  it('reports a line whose quantity × price differs, without refusing the invoice', () => {
    const invoice = parseEInvoiceXml(ciiSample({ quantity1: '2' }));
    expect(invoice.totals).toEqual(TOTALS);
    expect(invoice.warnings).toEqual(['Line 1 is 2 × 100.00, but its net amount is 300.00 EUR.']);
    // Rounded quantities within what their precision explains are fine.
    expect(parseEInvoiceXml(ciiSample({ quantity1: '3.0000' })).warnings).toEqual([]);
  });

  it('refuses totals that do not add up (EN 16931 BR-CO rules)', () => {
    expect(refusal(ciiSample({ due: '383.76' })).message).toBe(
      'The e-invoice totals do not add up (BR-CO-16): total with VAT − prepaid + rounding is 383.75 EUR but the amount due is 383.76 EUR.',
    );
    const gross = ciiSample().replace(
      '<ram:GrandTotalAmount>383.75',
      '<ram:GrandTotalAmount>383.70',
    );
    expect(refusal(gross).message).toMatch(
      /\(BR-CO-15\): 325\.00 EUR \+ VAT 58\.75 EUR is 383\.75 EUR/,
    );
    const lines = ciiSample().replace('<ram:LineTotalAmount>25.00', '<ram:LineTotalAmount>26.00');
    expect(refusal(lines).message).toMatch(/\(BR-CO-10\): the lines sum to 326\.00 EUR/);
    const vat = ciiSample().replace('<ram:CalculatedAmount>1.75', '<ram:CalculatedAmount>1.85');
    expect(refusal(vat).message).toMatch(/\(BR-CO-14\)/);
  });

  it('refuses amounts with more decimals than the currency has, but accepts trailing zeros', () => {
    expect(refusal(ciiSample({ due: '383.751' })).message).toBe(
      'The amount due (BT-115) 383.751 has more decimals than EUR allows (2).',
    );
    expect(parseEInvoiceXml(ciiSample({ due: '383.7500' })).totals.dueMinor).toBe(38375);
    expect(refusal(ciiSample({ due: '1e3' })).message).toMatch(/is not a decimal number/);
  });

  it('refuses an XRechnung without what XRechnung requires', () => {
    expect(refusal(ciiSample({ buyerReference: null })).message).toBe(
      'The XRechnung lacks the buyer reference / Leitweg-ID (BR-DE-15).',
    );
    // The same invoice as plain EN 16931 needs no buyer reference.
    const plain = parseEInvoiceXml(
      ciiSample({ buyerReference: null, profile: 'urn:cen.eu:en16931:2017' }),
    );
    expect(plain.profileName).toBe('EN 16931');
    expect(plain.buyerReference).toBeUndefined();
  });

  it('refuses a currencyID where EN 16931 CII forbids it (CII-DT-031)', () => {
    const xml = ciiSample().replace(
      '<ram:GrandTotalAmount>',
      '<ram:GrandTotalAmount currencyID="EUR">',
    );
    expect(refusal(xml).message).toBe(
      'The e-invoice gives GrandTotalAmount a currencyID, which EN 16931 CII does not allow (CII-DT-031).',
    );
  });

  it('takes the VAT total in the invoice currency when it is also given in another', () => {
    const xml = ciiSample().replace(
      '<ram:TaxTotalAmount currencyID="EUR">58.75</ram:TaxTotalAmount>',
      '<ram:TaxTotalAmount currencyID="CHF">55.10</ram:TaxTotalAmount><ram:TaxTotalAmount currencyID="EUR">58.75</ram:TaxTotalAmount>',
    );
    expect(parseEInvoiceXml(xml).totals.taxMinor).toBe(5875);
  });

  it('refuses missing or invalid mandatory data with the business term', () => {
    expect(refusal(ciiSample({ number: '' })).message).toBe(
      'The e-invoice has no invoice number (BT-1).',
    );
    expect(refusal(ciiSample().replace('20250115', '20250230')).message).toBe(
      'The issue date (BT-2) "20250230" is not a valid date.',
    );
    expect(refusal(ciiSample().replace('>EUR<', '>XXX<')).message).toBe(
      'The e-invoice currency XXX is not one Kontor supports.',
    );
    expect(
      refusal(ciiSample().replace('format="102">20250115', 'format="610">202501')).message,
    ).toMatch(/only format 102/);
  });
});

describe('parseEInvoiceXml: UBL', () => {
  it('reads a UBL XRechnung invoice like its CII twin', () => {
    const cii = parseEInvoiceXml(ciiSample());
    const ubl = parseEInvoiceXml(ublSample());
    expect(ubl).toEqual({
      ...cii,
      syntax: 'UBL',
      documentNumber: 'GS-7',
      paymentReference: 'GS-7',
      seller: {
        ...SELLER,
        taxNumber: undefined,
        address: { ...SELLER.address!, lines: ['Hauptstraße 1'] },
      },
    });
  });

  it('reads a credit note', () => {
    const note = parseEInvoiceXml(ublSample({ root: 'CreditNote' }));
    expect(note).toMatchObject({ kind: 'CREDIT_NOTE', documentType: '381', totals: TOTALS });
    expect(note.dueDate).toBeUndefined();
  });

  it('checks totals only for documents that declare EN 16931', () => {
    expect(refusal(ublSample({ payable: '380.00' })).message).toMatch(/BR-CO-16/);
    const plain = parseEInvoiceXml(ublSample({ customization: null, payable: '380.00' }));
    expect(plain.totals.dueMinor).toBe(38000);
    expect(plain.profile).toBeUndefined();
  });
});

describe('parseEInvoiceXml: hostile and broken input', () => {
  it('refuses DOCTYPEs, so no external entity is read and nothing expands', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]>
      <Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"><ID>&x;</ID></Invoice>`;
    expect(refusal(xxe).message).toBe(
      'The XML contains a DOCTYPE or entity declaration, which is not accepted.',
    );
    const laughs = `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><l>&b;</l>`;
    expect(refusal(laughs).code).toBe('file_unprocessable');
  });

  it('refuses malformed XML, other documents and empty input with a reason', () => {
    expect(refusal('<Invoice><ID>1</Invoice>').message).toMatch(/^The XML is not well-formed: /);
    expect(refusal('').code).toBe('file_unprocessable');
    expect(refusal('<html><body>Rechnung</body></html>').message).toMatch(
      /^The XML's root element is html without a namespace; an e-invoice is/,
    );
    expect(refusal('<Invoice xmlns="urn:example:invoice"><ID>1</ID></Invoice>').message).toMatch(
      /root element is Invoice in namespace urn:example:invoice/,
    );
    const order = ciiSample().replace(/CrossIndustryInvoice/g, 'CrossIndustryOrder');
    expect(refusal(order).message).toMatch(/root element is CrossIndustryOrder/);
  });
});
