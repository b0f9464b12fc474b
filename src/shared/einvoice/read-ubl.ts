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

/** OASIS UBL 2.1 `Invoice` and `CreditNote` (XRechnung UBL, Peppol BIS Billing 3). */

function party(node: XmlNode | undefined, what: string): EInvoiceParty {
  if (node === undefined) throw refuse(`The e-invoice has no ${what}.`);
  const name = required(
    text(node, 'PartyLegalEntity', 'RegistrationName') ?? text(node, 'PartyName', 'Name'),
    `${what} name`,
  );
  const schemes = children(node, 'PartyTaxScheme');
  const isVat = (s: XmlNode) => text(s, 'TaxScheme', 'ID')?.toUpperCase() === 'VAT';
  const vatId = text(schemes.find(isVat), 'CompanyID');
  const taxNumber = text(
    schemes.find((s) => !isVat(s)),
    'CompanyID',
  );
  const address = child(node, 'PostalAddress');
  const lines = address
    ? [
        text(address, 'StreetName'),
        text(address, 'AdditionalStreetName'),
        ...children(address, 'AddressLine').map((l) => text(l, 'Line')),
      ].filter((l): l is string => l !== undefined)
    : [];
  const postcode = text(address, 'PostalZone');
  const city = text(address, 'CityName');
  const countryCode = text(address, 'Country', 'IdentificationCode')?.toUpperCase();
  return {
    name,
    ...(vatId !== undefined && { vatId }),
    ...(taxNumber !== undefined && { taxNumber }),
    ...(address !== undefined && {
      address: {
        lines,
        ...(postcode !== undefined && { postcode }),
        ...(city !== undefined && { city }),
        ...(countryCode !== undefined && { countryCode }),
      },
    }),
  };
}

/** Each invoice (or credit note) line's amounts, for the totals check. */
function lineAmountsOf(
  lines: XmlNode[],
  type: 'Invoice' | 'CreditNote',
  currency: string,
): LineAmounts[] {
  return lines.map((line, i): LineAmounts => {
    const net = parseAmount(
      text(line, 'LineExtensionAmount'),
      currency,
      `net amount of line ${i + 1} (BT-131)`,
    );
    if (net === undefined)
      throw refuse(`Line ${i + 1} of the e-invoice has no net amount (BT-131).`);
    const adjustments = children(line, 'AllowanceCharge');
    const amounts = (charge: boolean) =>
      adjustments
        .filter((a) => (text(a, 'ChargeIndicator') === 'true') === charge)
        .map((a) => text(a, 'Amount'))
        .filter((a): a is string => a !== undefined);
    const quantity = text(line, type === 'Invoice' ? 'InvoicedQuantity' : 'CreditedQuantity');
    const price = text(line, 'Price', 'PriceAmount');
    const basis = text(line, 'Price', 'BaseQuantity');
    return {
      index: i + 1,
      net,
      ...(quantity !== undefined && { quantity }),
      ...(price !== undefined && { price }),
      ...(basis !== undefined && { basis }),
      allowances: amounts(false),
      charges: amounts(true),
    };
  });
}

/** The document totals (BG-22) checked against each other, the lines and the VAT breakdown. */
function totalsOf(
  root: XmlNode,
  profile: string | undefined,
  currency: string,
  lineAmounts: LineAmounts[],
) {
  const totals = child(root, 'LegalMonetaryTotal');
  if (totals === undefined) throw refuse('The e-invoice has no LegalMonetaryTotal.');
  const amount = (name: string, what: string) => parseAmount(text(totals, name), currency, what);
  // A second TaxTotal may state the VAT in the VAT accounting currency; take the invoice's.
  const taxTotals = children(root, 'TaxTotal');
  const taxTotal = taxTotals.find(
    (t) => attr(child(t, 'TaxAmount'), 'currencyID')?.toUpperCase() === currency,
  );
  const taxAmount = child(taxTotal, 'TaxAmount');
  if (taxTotals.length > 0 && taxAmount === undefined)
    throw refuse(`The e-invoice states its VAT total only in another currency than ${currency}.`);
  return checkTotals({
    currency,
    en16931: declaresEn16931(profile),
    lineTotal: amount('LineExtensionAmount', 'sum of line net amounts (BT-106)'),
    allowances: amount('AllowanceTotalAmount', 'sum of allowances (BT-107)'),
    charges: amount('ChargeTotalAmount', 'sum of charges (BT-108)'),
    net: amount('TaxExclusiveAmount', 'total without VAT (BT-109)'),
    tax: parseAmount(text(taxAmount), currency, 'VAT total (BT-110)'),
    gross: amount('TaxInclusiveAmount', 'total with VAT (BT-112)'),
    prepaid: amount('PrepaidAmount', 'prepaid amount (BT-113)'),
    rounding: amount('PayableRoundingAmount', 'rounding amount (BT-114)'),
    due: amount('PayableAmount', 'amount due (BT-115)'),
    lines: lineAmounts,
    vatBreakdown: children(taxTotal, 'TaxSubtotal').map(
      (t, i) =>
        parseAmount(text(t, 'TaxAmount'), currency, `VAT of category ${i + 1} (BT-117)`) ?? 0n,
    ),
    // The XRechnung extension reuses PrepaidPayment for third-party claims added to the due.
    ...(profile?.includes('kosit:extension:xrechnung') === true && {
      thirdParty: children(root, 'PrepaidPayment')
        .map((p, i) =>
          parseAmount(text(p, 'PaidAmount'), currency, `third-party payment ${i + 1} (BT-DEX-002)`),
        )
        .reduce<bigint>((a, b) => a + (b ?? 0n), 0n),
    }),
  });
}

/** Reads a UBL invoice or credit note whose root element is `root`. */
export function readUbl(root: XmlNode, type: 'Invoice' | 'CreditNote'): EInvoice {
  const profile = text(root, 'CustomizationID');
  const documentNumber = required(text(root, 'ID'), 'invoice number (BT-1)');
  // UBL 2.1 makes the type code optional; the root element then says what the document is.
  const documentType =
    text(root, type === 'Invoice' ? 'InvoiceTypeCode' : 'CreditNoteTypeCode') ??
    (type === 'Invoice' ? '380' : '381');
  const issueDate = required(
    parseDate(text(root, 'IssueDate'), 'issue date (BT-2)'),
    'issue date (BT-2)',
  );
  const currency = checkCurrency(text(root, 'DocumentCurrencyCode'));

  const lines = children(root, type === 'Invoice' ? 'InvoiceLine' : 'CreditNoteLine');
  const lineAmounts = lineAmountsOf(lines, type, currency);

  const { totals: sums, warnings } = totalsOf(root, profile, currency, lineAmounts);

  const paymentMeans = children(root, 'PaymentMeans');
  const dueDate =
    parseDate(text(root, 'DueDate'), 'payment due date (BT-9)') ??
    paymentMeans
      .map((m) => parseDate(text(m, 'PaymentDueDate'), 'payment due date (BT-9)'))
      .find((d) => d !== undefined);
  const buyerReference = text(root, 'BuyerReference');
  const paymentReference = paymentMeans
    .map((m) => text(m, 'PaymentID'))
    .find((r) => r !== undefined);
  const rawIban = paymentMeans
    .map((m) => text(m, 'PayeeFinancialAccount', 'ID'))
    .find((iban) => iban !== undefined);
  const paymentIban = rawIban === undefined ? undefined : normalizeIban(rawIban);
  const name = profileName(profile);
  const sellerNode = child(root, 'AccountingSupplierParty', 'Party');
  const seller = party(sellerNode, 'seller (BG-4)');
  const buyer = party(child(root, 'AccountingCustomerParty', 'Party'), 'buyer (BG-7)');
  const contact = child(sellerNode, 'Contact');
  if (name === 'XRECHNUNG')
    checkXRechnung({
      buyerReference,
      sellerContact:
        contact === undefined
          ? undefined
          : {
              name: text(contact, 'Name'),
              phone: text(contact, 'Telephone'),
              email: text(contact, 'ElectronicMail'),
            },
      seller,
      buyer,
      paymentInstructions: paymentMeans.length > 0,
    });
  return {
    syntax: 'UBL',
    ...(profile !== undefined && { profile }),
    ...(name !== undefined && { profileName: name }),
    documentNumber,
    documentType,
    kind: type === 'CreditNote' ? 'CREDIT_NOTE' : kindOf(documentType),
    issueDate,
    ...(dueDate !== undefined && { dueDate }),
    currency,
    seller,
    buyer,
    totals: sums,
    lineCount: lines.length,
    ...(buyerReference !== undefined && { buyerReference }),
    ...(paymentReference !== undefined && { paymentReference }),
    ...(paymentIban !== undefined && { paymentIban }),
    warnings,
  };
}
