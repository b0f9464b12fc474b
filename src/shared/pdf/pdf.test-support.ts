import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { AppError } from '../errors.js';
import { analysePdf } from './analyse.js';

/** Helpers shared by the PDF tests (not part of the build). */

export const quietLogger: FastifyBaseLogger = pino({ level: 'silent' });

/** Text of every page of a PDF, via `analysePdf`. */
export async function pageTexts(pdf: Buffer): Promise<string[]> {
  const analysis = await analysePdf(pdf, { maxTextChars: 1_000_000 });
  return analysis.text.split('\f');
}

/** A solid-colour PNG as a data URI (a stand-in logo). */
export function pngDataUri(width: number, height: number, colour: string): string {
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = colour;
  ctx.fillRect(0, 0, width, height);
  return `data:image/png;base64,${canvas.toBuffer('image/png').toString('base64')}`;
}

/** Pixels of a PNG whose colour is close to pure red, inside a rectangle (in pixels). */
export async function redPixels(
  png: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<number> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { data } = ctx.getImageData(box.x, box.y, box.width, box.height);
  let count = 0;
  for (let i = 0; i < data.length; i += 4)
    if ((data[i] ?? 0) > 180 && (data[i + 1] ?? 255) < 80 && (data[i + 2] ?? 255) < 80) count++;
  return count;
}

/** Pixels darker than mid-grey inside a rectangle of a PNG. */
export async function darkPixels(
  png: Buffer,
  box: { x: number; y: number; width: number; height: number },
): Promise<number> {
  const image = await loadImage(png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { data } = ctx.getImageData(box.x, box.y, box.width, box.height);
  let count = 0;
  for (let i = 0; i < data.length; i += 4)
    if ((data[i] ?? 255) + (data[i + 1] ?? 255) + (data[i + 2] ?? 255) < 384) count++;
  return count;
}

/** An HTTP server on a free local port that records every request it gets. */
export async function startRecordingServer() {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end('x');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The AppError a promise rejects with (fails the test when it resolves or throws else). */
export async function rejection(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected the promise to reject with an AppError');
}

export interface CiiOptions {
  profile?: string;
  /** Replaces the amount due (BT-115). */
  due?: string;
  /** Replaces the billed quantity of line 1 (3 × 100.00 = 300.00). */
  quantity1?: string;
  buyerReference?: string | null;
  number?: string;
}

/**
 * A small, self-written XRechnung 3.0 CII invoice: two lines (3 × 100.00 at 19 %,
 * 2 × 12.50 at 7 %), net 325.00, VAT 58.75, gross 383.75, due 383.75 EUR.
 */
export function ciiSample(options: CiiOptions = {}): string {
  const profile =
    options.profile ?? 'urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0';
  const buyerReference =
    options.buyerReference === null
      ? ''
      : `<ram:BuyerReference>${options.buyerReference ?? '04011000-12345-03'}</ram:BuyerReference>`;
  const line = (
    id: number,
    name: string,
    price: string,
    quantity: string,
    total: string,
    rate: string,
  ) => `
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument><ram:LineID>${id}</ram:LineID></ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct><ram:Name>${name}</ram:Name></ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement>
        <ram:NetPriceProductTradePrice><ram:ChargeAmount>${price}</ram:ChargeAmount></ram:NetPriceProductTradePrice>
      </ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">${quantity}</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>${rate}</ram:RateApplicablePercent></ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>${total}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext>
    <ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>${profile}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument>
    <ram:ID>${options.number ?? 'RE-2025-0042'}</ram:ID>
    <ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime><udt:DateTimeString format="102">20250115</udt:DateTimeString></ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>${line(1, 'Beratung', '100.00', options.quantity1 ?? '3', '300.00', '19')}${line(2, 'Bücher', '12.50', '2.0000', '25.00', '7')}
    <ram:ApplicableHeaderTradeAgreement>
      ${buyerReference}
      <ram:SellerTradeParty>
        <ram:Name>M&#252;ller &amp; Söhne GmbH</ram:Name>
        <ram:DefinedTradeContact>
          <ram:PersonName>Erika Muster</ram:PersonName>
          <ram:TelephoneUniversalCommunication><ram:CompleteNumber>+49 221 123456</ram:CompleteNumber></ram:TelephoneUniversalCommunication>
          <ram:EmailURIUniversalCommunication><ram:URIID>rechnung@mueller.example</ram:URIID></ram:EmailURIUniversalCommunication>
        </ram:DefinedTradeContact>
        <ram:PostalTradeAddress>
          <ram:PostcodeCode>50667</ram:PostcodeCode><ram:LineOne>Hauptstraße 1</ram:LineOne><ram:LineTwo>Hinterhaus</ram:LineTwo>
          <ram:CityName>Köln</ram:CityName><ram:CountryID>DE</ram:CountryID>
        </ram:PostalTradeAddress>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">214/5678/0123</ram:ID></ram:SpecifiedTaxRegistration>
        <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">DE123456789</ram:ID></ram:SpecifiedTaxRegistration>
      </ram:SellerTradeParty>
      <ram:BuyerTradeParty>
        <ram:Name>Kunde AG</ram:Name>
        <ram:PostalTradeAddress>
          <ram:PostcodeCode>10115</ram:PostcodeCode><ram:LineOne>Chausseestraße 5</ram:LineOne>
          <ram:CityName>Berlin</ram:CityName><ram:CountryID>DE</ram:CountryID>
        </ram:PostalTradeAddress>
      </ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:PaymentReference>RE-2025-0042</ram:PaymentReference>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans>
        <ram:TypeCode>58</ram:TypeCode>
        <ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02120300000000202051</ram:IBANID></ram:PayeePartyCreditorFinancialAccount>
      </ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:ApplicableTradeTax><ram:CalculatedAmount>57.00</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>300.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      <ram:ApplicableTradeTax><ram:CalculatedAmount>1.75</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>25.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>7</ram:RateApplicablePercent></ram:ApplicableTradeTax>
      <ram:SpecifiedTradePaymentTerms>
        <ram:DueDateDateTime><udt:DateTimeString format="102">20250214</udt:DateTimeString></ram:DueDateDateTime>
      </ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>325.00</ram:LineTotalAmount>
        <ram:TaxBasisTotalAmount>325.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">58.75</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>383.75</ram:GrandTotalAmount>
        <ram:TotalPrepaidAmount>0.00</ram:TotalPrepaidAmount>
        <ram:DuePayableAmount>${options.due ?? '383.75'}</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
`;
}
