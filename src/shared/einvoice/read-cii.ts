import { normalizeIban } from '../iban.js';
import { checkTotals, checkXRechnung, type LineAmounts } from './read-rules.js';
import {
  checkCurrency,
  declaresEn16931,
  kindOf,
  parseAmount,
  parseDate,
  profileName,
  required,
  type EInvoice,
  type EInvoiceParty,
} from './read-support.js';
import { attr, child, children, refuse, text, type XmlNode } from '../pdf/xml.js';

/**
 * UN/CEFACT Cross Industry Invoice: D16B `CrossIndustryInvoice` (ZUGFeRD 2.x, Factur-X,
 * XRechnung CII) and ZUGFeRD 1.0's `CrossIndustryDocument`, which has the same content under
 * older element names.
 */

const NAMES = {
  D16B: {
    context: 'ExchangedDocumentContext',
    document: 'ExchangedDocument',
    transaction: 'SupplyChainTradeTransaction',
    agreement: 'ApplicableHeaderTradeAgreement',
    settlement: 'ApplicableHeaderTradeSettlement',
    summation: 'SpecifiedTradeSettlementHeaderMonetarySummation',
    lineSettlement: 'SpecifiedLineTradeSettlement',
    lineSummation: 'SpecifiedTradeSettlementLineMonetarySummation',
  },
  ZUGFeRD1: {
    context: 'SpecifiedExchangedDocumentContext',
    document: 'HeaderExchangedDocument',
    transaction: 'SpecifiedSupplyChainTradeTransaction',
    agreement: 'ApplicableSupplyChainTradeAgreement',
    settlement: 'ApplicableSupplyChainTradeSettlement',
    summation: 'SpecifiedTradeSettlementMonetarySummation',
    lineSettlement: 'SpecifiedSupplyChainTradeSettlement',
    lineSummation: 'SpecifiedTradeSettlementMonetarySummation',
  },
} as const;

function dateTime(node: XmlNode | undefined, what: string): string | undefined {
  const value = child(node, 'DateTimeString');
  if (value === undefined) return undefined;
  const format = attr(value, 'format');
  if (format !== undefined && format !== '102')
    throw refuse(`The ${what} uses date format ${format}; only format 102 (YYYYMMDD) is read.`);
  return parseDate(text(value), what);
}

function party(node: XmlNode | undefined, what: string): EInvoiceParty {
  if (node === undefined) throw refuse(`The e-invoice has no ${what}.`);
  const name = required(text(node, 'Name'), `${what} name`);
  const registrations = children(node, 'SpecifiedTaxRegistration').map((r) => child(r, 'ID'));
  const scheme = (id: string) =>
    text(registrations.find((r) => attr(r, 'schemeID')?.toUpperCase() === id));
  const address = child(node, 'PostalTradeAddress');
  return {
    name,
    ...(scheme('VA') !== undefined && { vatId: scheme('VA') }),
    ...(scheme('FC') !== undefined && { taxNumber: scheme('FC') }),
    ...(address !== undefined && {
      address: {
        lines: ['LineOne', 'LineTwo', 'LineThree']
          .map((l) => text(address, l))
          .filter((l): l is string => l !== undefined),
        ...(text(address, 'PostcodeCode') !== undefined && {
          postcode: text(address, 'PostcodeCode'),
        }),
        ...(text(address, 'CityName') !== undefined && { city: text(address, 'CityName') }),
        ...(text(address, 'CountryID') !== undefined && {
          countryCode: text(address, 'CountryID')?.toUpperCase(),
        }),
      },
    }),
  };
}

/** EN 16931's CII binding (CII-DT-031): only the VAT total may carry a currencyID. */
function checkNoCurrencyIds(summation: XmlNode, lines: XmlNode[], n: (typeof NAMES)['D16B']) {
  const offending = Object.keys(summation).find(
    (name) =>
      name !== 'TaxTotalAmount' &&
      name.endsWith('Amount') &&
      children(summation, name).some((a) => attr(a, 'currencyID') !== undefined),
  );
  const lineIndex = lines.findIndex(
    (line) =>
      attr(child(line, n.lineSettlement, n.lineSummation, 'LineTotalAmount'), 'currencyID') !==
      undefined,
  );
  const where =
    offending ?? (lineIndex === -1 ? undefined : `LineTotalAmount of line ${lineIndex + 1}`);
  if (where !== undefined)
    throw refuse(
      `The e-invoice gives ${where} a currencyID, which EN 16931 CII does not allow (CII-DT-031).`,
    );
}

function contact(party: XmlNode | undefined) {
  const node = child(party, 'DefinedTradeContact');
  if (node === undefined) return undefined;
  return {
    name: text(node, 'PersonName') ?? text(node, 'DepartmentName'),
    phone: text(node, 'TelephoneUniversalCommunication', 'CompleteNumber'),
    email: text(node, 'EmailURIUniversalCommunication', 'URIID'),
  };
}

/** A line's net amount (BT-131) as written. */
function lineNet(line: XmlNode, version: keyof typeof NAMES): string | undefined {
  const n = NAMES[version];
  return text(child(line, n.lineSettlement), n.lineSummation, 'LineTotalAmount');
}

/**
 * Each invoice line's amounts, for the totals check; undefined when lines nest (EXTENDED's
 * sub-lines and information lines, whose amounts are not summed).
 */
function lineAmountsOf(
  lines: XmlNode[],
  version: keyof typeof NAMES,
  currency: string,
): LineAmounts[] | undefined {
  // EXTENDED may nest lines (sub-lines, information lines) whose amounts are not summed.
  const hierarchical = lines.some((line) => {
    const doc = child(line, 'AssociatedDocumentLineDocument');
    return (
      text(doc, 'ParentLineID') !== undefined || text(doc, 'LineStatusReasonCode') !== undefined
    );
  });
  if (hierarchical) return undefined;
  const n = NAMES[version];
  return lines.map((line, i): LineAmounts => {
    const lineSettlement = child(line, n.lineSettlement);
    const net = parseAmount(
      lineNet(line, version),
      currency,
      `net amount of line ${i + 1} (BT-131)`,
    );
    if (net === undefined)
      throw refuse(`Line ${i + 1} of the e-invoice has no net amount (BT-131).`);
    if (version === 'ZUGFeRD1') return { index: i + 1, net, allowances: [], charges: [] };
    const price = child(line, 'SpecifiedLineTradeAgreement', 'NetPriceProductTradePrice');
    const adjustments = children(lineSettlement, 'SpecifiedTradeAllowanceCharge');
    const amounts = (charge: boolean) =>
      adjustments
        .filter((a) => (text(a, 'ChargeIndicator', 'Indicator') === 'true') === charge)
        .map((a) => text(a, 'ActualAmount'))
        .filter((a): a is string => a !== undefined);
    const quantity = text(line, 'SpecifiedLineTradeDelivery', 'BilledQuantity');
    const netPrice = text(price, 'ChargeAmount');
    const basis = text(price, 'BasisQuantity');
    return {
      index: i + 1,
      net,
      ...(quantity !== undefined && { quantity }),
      ...(netPrice !== undefined && { price: netPrice }),
      ...(basis !== undefined && { basis }),
      allowances: amounts(false),
      charges: amounts(true),
    };
  });
}

/** The document totals (BG-22) checked against each other, the lines and the VAT breakdown. */
function totalsOf(
  settlement: XmlNode | undefined,
  summation: XmlNode,
  about: {
    currency: string;
    en16931: boolean;
    version: keyof typeof NAMES;
    name: string | undefined;
    lineAmounts: LineAmounts[] | undefined;
  },
) {
  const { currency, en16931, version, name, lineAmounts } = about;
  const amount = (element: string, what: string) =>
    parseAmount(text(summation, element), currency, what);
  // With a separate VAT accounting currency the VAT total appears twice; take the invoice's.
  const taxTotals = children(summation, 'TaxTotalAmount');
  const taxTotal =
    taxTotals.find((t) => attr(t, 'currencyID')?.toUpperCase() === currency) ??
    taxTotals.find((t) => attr(t, 'currencyID') === undefined);
  if (taxTotals.length > 0 && taxTotal === undefined)
    throw refuse(`The e-invoice states its VAT total only in another currency than ${currency}.`);
  return checkTotals({
    currency,
    en16931,
    generation: version,
    lineTotal: amount('LineTotalAmount', 'sum of line net amounts (BT-106)'),
    allowances: amount('AllowanceTotalAmount', 'sum of allowances (BT-107)'),
    charges: amount('ChargeTotalAmount', 'sum of charges (BT-108)'),
    net: amount('TaxBasisTotalAmount', 'total without VAT (BT-109)'),
    tax: parseAmount(text(taxTotal), currency, 'VAT total (BT-110)'),
    gross: amount('GrandTotalAmount', 'total with VAT (BT-112)'),
    prepaid: amount('TotalPrepaidAmount', 'prepaid amount (BT-113)'),
    rounding: amount('RoundingAmount', 'rounding amount (BT-114)'),
    due: amount('DuePayableAmount', 'amount due (BT-115)'),
    ...(lineAmounts !== undefined && { lines: lineAmounts }),
    vatBreakdown: children(settlement, 'ApplicableTradeTax').map(
      (t, i) =>
        parseAmount(text(t, 'CalculatedAmount'), currency, `VAT of category ${i + 1} (BT-117)`) ??
        0n,
    ),
    dueUncheckable: name === 'MINIMUM',
  });
}

/** Reads a CII invoice whose root element is `root`. */
export function readCii(root: XmlNode, version: keyof typeof NAMES): EInvoice {
  const n = NAMES[version];
  const profile = text(root, n.context, 'GuidelineSpecifiedDocumentContextParameter', 'ID');
  const name = profileName(profile);
  // ZUGFeRD 1.0's `urn:ferd:…:1p0:…` profiles predate EN 16931: its rules do not apply.
  const en16931 = version !== 'ZUGFeRD1' && declaresEn16931(profile);
  const document = child(root, n.document);
  const documentNumber = required(text(document, 'ID'), 'invoice number (BT-1)');
  const documentType = required(text(document, 'TypeCode'), 'document type code (BT-3)');
  const issueDate = required(
    dateTime(child(document, 'IssueDateTime'), 'issue date (BT-2)'),
    'issue date (BT-2)',
  );
  const transaction = child(root, n.transaction);
  if (transaction === undefined) throw refuse(`The e-invoice has no ${n.transaction}.`);
  const agreement = child(transaction, n.agreement);
  const settlement = child(transaction, n.settlement);
  const currency = checkCurrency(text(settlement, 'InvoiceCurrencyCode'));
  const summation = child(settlement, n.summation);
  if (summation === undefined) throw refuse(`The e-invoice has no ${n.summation}.`);

  const allLines = children(transaction, 'IncludedSupplyChainTradeLineItem');
  if (version === 'D16B' && en16931 && name !== 'MINIMUM' && name !== 'BASIC WL')
    checkNoCurrencyIds(summation, allLines, NAMES.D16B);
  // ZUGFeRD 1.0 and EXTENDED know text-only lines without amounts; they are not invoice lines.
  const textLinesAllowed = version === 'ZUGFeRD1' || name === 'EXTENDED';
  const lines = textLinesAllowed
    ? allLines.filter((l) => lineNet(l, version) !== undefined)
    : allLines;
  const lineAmounts = lineAmountsOf(lines, version, currency);

  const { totals, warnings } = totalsOf(settlement, summation, {
    currency,
    en16931,
    version,
    name,
    lineAmounts,
  });

  const dueDate = children(settlement, 'SpecifiedTradePaymentTerms')
    .map((terms) => dateTime(child(terms, 'DueDateDateTime'), 'payment due date (BT-9)'))
    .find((d) => d !== undefined);
  const buyerReference = text(agreement, 'BuyerReference');
  const paymentReference = text(settlement, 'PaymentReference');
  const rawIban = children(settlement, 'SpecifiedTradeSettlementPaymentMeans')
    .map((m) => text(m, 'PayeePartyCreditorFinancialAccount', 'IBANID'))
    .find((iban) => iban !== undefined);
  const paymentIban = rawIban === undefined ? undefined : normalizeIban(rawIban);
  const sellerNode = child(agreement, 'SellerTradeParty');
  const seller = party(sellerNode, 'seller (BG-4)');
  const buyer = party(child(agreement, 'BuyerTradeParty'), 'buyer (BG-7)');
  if (name === 'XRECHNUNG')
    checkXRechnung({
      buyerReference,
      sellerContact: contact(sellerNode),
      seller,
      buyer,
      paymentInstructions: children(settlement, 'SpecifiedTradeSettlementPaymentMeans').length > 0,
    });
  return {
    syntax: 'CII',
    ...(profile !== undefined && { profile }),
    ...(name !== undefined && { profileName: name }),
    documentNumber,
    documentType,
    kind: kindOf(documentType),
    issueDate,
    ...(dueDate !== undefined && { dueDate }),
    currency,
    seller,
    buyer,
    totals,
    lineCount: lines.length,
    ...(buyerReference !== undefined && { buyerReference }),
    ...(paymentReference !== undefined && { paymentReference }),
    ...(paymentIban !== undefined && { paymentIban }),
    warnings,
  };
}
