/** The fictional records a compile renders with when no data is supplied. */
import { isoDate } from '../dates.js';
import type { RenderInput } from './context.js';

/**
 * Fictional German sample records for compiling without data: a customer in Köln, a
 * yearly renewing maintenance contract whose current term ends at the end of next year, and
 * an invoice with lines at 19 % and 7 %, delivered today, due in 14 days, 2 % Skonto within
 * 7 days. The seller is never a sample: compiles use the account's own company data.
 */
export function sampleData(
  today: string,
  currency: string,
): Required<Pick<RenderInput, 'partner' | 'contract' | 'document'>> {
  const year = Number(today.slice(0, 4));
  return {
    partner: samplePartner(),
    contract: sampleContract(year, currency),
    document: sampleDocument(today, year, currency),
  };
}

/** The customer in Köln. */
function samplePartner(): Required<RenderInput>['partner'] {
  return {
    id: 'ptr_01kbq3m9a8v6x2c4d7e5f0g1h2',
    partnerNumber: '10001',
    name: 'Muster & Partner GmbH',
    type: 'CUSTOMER',
    description: null,
    website: 'https://muster-partner.example',
    addresses: [
      {
        type: 'BILLING',
        name: 'z. Hd. Frau Erika Mustermann',
        street: 'Beispielweg 12',
        postalCode: '50667',
        city: 'Köln',
        country: 'DE',
        email: 'buchhaltung@muster-partner.example',
        phone: '+49 221 1234567',
      },
    ],
    vatId: 'DE999999999',
    buyerReference: null,
    electronicAddress: { scheme: 'EM', value: 'rechnung@muster-partner.example' },
    einvoiceFormat: null,
    language: 'de',
  };
}

/** The maintenance contract, renewing yearly; its current term ends at the end of next year. */
function sampleContract(year: number, currency: string): Required<RenderInput>['contract'] {
  const endDate = `${year + 1}-12-31`;
  return {
    name: 'Wartungsvertrag Heizungsanlage',
    partnerName: 'Muster & Partner GmbH',
    startDate: `${year - 1}-01-01`,
    endDate,
    totalValue: 1234.56,
    currency,
    status: 'ACTIVE',
    description: 'Jährliche Wartung und Störungsdienst',
    tags: ['Wartung'],
    // 90 days before 31 December is 2 October, in every year.
    cancellationDeadline: `${year + 1}-10-02`,
    nextRenewalDate: endDate,
    advanced: {
      billingCycle: 'YEARLY',
      autoRenew: true,
      renewalMonths: 12,
      noticePeriodDays: 90,
      paymentTermDays: 14,
    },
  };
}

/**
 * An invoice with two rates, so a template's line loop and VAT lines show in the preview:
 * 19 % of 941.00 = 178.79, 7 % of 29.90 = 2.093 → 2.09. Delivered today, due in 14 days.
 */
function sampleDocument(
  today: string,
  year: number,
  currency: string,
): Required<RenderInput>['document'] {
  return {
    name: 'Schreiben an Muster & Partner GmbH',
    documentType: 'INVOICE',
    documentNumber: `${year}-0001`,
    creationDate: today,
    dueDate: isoDate(new Date(Date.parse(`${today}T00:00:00Z`) + 14 * 86_400_000)),
    currency,
    lineItems: [
      {
        description: 'Wartung Heizungsanlage (Jahrespauschale)',
        quantity: 1,
        unitPrice: 850,
        netAmount: 850,
        taxRate: 19,
        taxCategory: 'S',
        unitCode: 'LS',
      },
      {
        description: 'Anfahrt',
        quantity: 2,
        unitPrice: 45.5,
        netAmount: 91,
        taxRate: 19,
        taxCategory: 'S',
        unitCode: 'C62',
      },
      {
        description: 'Fachbuch Heizungstechnik',
        quantity: 1,
        unitPrice: 29.9,
        netAmount: 29.9,
        taxRate: 7,
        taxCategory: 'S',
        unitCode: 'H87',
      },
    ],
    taxes: [
      { rate: 19, net: 941, tax: 178.79, category: 'S' },
      { rate: 7, net: 29.9, tax: 2.09, category: 'S' },
    ],
    netTotal: 970.9,
    taxTotal: 180.88,
    grossTotal: 1151.78,
    invoiceType: 'INVOICE',
    deliveryDate: today,
    servicePeriod: null,
    buyerReference: null,
    orderReference: 'B-4711',
    paymentTerms: null,
    skontoPercent: 2,
    skontoDays: 7,
    note: null,
  };
}
