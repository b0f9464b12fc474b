/** Which placeholders the render context offers, checked against a template's variables. */
import type { VariableUse } from './engine.js';
import { INVOICE_LABELS } from './invoice-labels.js';

/** A leaf value, a record of named members, or a list of one element shape. */
export type Shape = 'value' | { [key: string]: Shape } | [Shape];

const V = 'value' as const;
const ADDRESS: Shape = {
  type: V,
  name: V,
  street: V,
  postalCode: V,
  city: V,
  country: V,
  email: V,
  phone: V,
};
const ELECTRONIC_ADDRESS: Shape = { scheme: V, value: V };
/** Every label, and the category names (read as `invoice.labels.category[tax.category]`). */
const LABELS: Shape = Object.fromEntries(
  Object.entries(INVOICE_LABELS.de).map(([key, value]: [string, string | object]) => [
    key,
    typeof value === 'string'
      ? V
      : Object.fromEntries(Object.keys(value).map((k): [string, Shape] => [k, V])),
  ]),
);

/** Every placeholder path the context offers (besides `fields`), for unknown-placeholder checks. */
export const CONTEXT_SHAPE: Record<string, Shape> = {
  account: {
    name: V,
    currency: V,
    dateFormat: V,
    numberFormat: V,
    address: ADDRESS,
    addresses: [ADDRESS],
  },
  company: {
    legalName: V,
    address: ADDRESS,
    vatId: V,
    taxNumber: V,
    registerCourt: V,
    registerNumber: V,
    managingDirectors: [V],
    email: V,
    phone: V,
    website: V,
    electronicAddress: ELECTRONIC_ADDRESS,
    bankAccounts: [{ iban: V, ibanGrouped: V, bic: V, accountHolder: V, bankName: V }],
    smallBusiness: V,
    defaultPaymentTermDays: V,
  },
  partner: {
    name: V,
    partnerNumber: V,
    type: V,
    description: V,
    website: V,
    address: ADDRESS,
    addresses: [ADDRESS],
    vatId: V,
    buyerReference: V,
    electronicAddress: ELECTRONIC_ADDRESS,
    einvoiceFormat: V,
    language: V,
  },
  contract: {
    name: V,
    partnerName: V,
    startDate: V,
    endDate: V,
    totalValue: V,
    currency: V,
    status: V,
    description: V,
    tags: [V],
    cancellationDeadline: V,
    nextRenewalDate: V,
    noticePeriodDays: V,
    renewalMonths: V,
    autoRenew: V,
    billingCycle: V,
    paymentTermDays: V,
  },
  document: {
    name: V,
    documentType: V,
    documentNumber: V,
    creationDate: V,
    dueDate: V,
    currency: V,
    lineItems: [
      {
        description: V,
        quantity: V,
        unitPrice: V,
        netAmount: V,
        taxRate: V,
        taxCategory: V,
        unitCode: V,
        unit: V,
      },
    ],
    taxes: [{ rate: V, net: V, tax: V, category: V, exemptionReason: V, exemptionCode: V }],
    netTotal: V,
    taxTotal: V,
    grossTotal: V,
    invoiceType: V,
    deliveryDate: V,
    servicePeriod: { from: V, to: V },
    buyerReference: V,
    orderReference: V,
    paymentTerms: V,
    skontoPercent: V,
    skontoDays: V,
    note: V,
    precedingDocumentId: V,
    precedingDocumentNumber: V,
    precedingDocumentDate: V,
    cancelledByDocumentId: V,
    downPaymentDeductions: [
      {
        documentNumber: V,
        creationDate: V,
        net: V,
        tax: V,
        gross: V,
        taxes: [{ rate: V, category: V, net: V, tax: V }],
      },
    ],
    prepaidAmount: V,
    validUntil: V,
    originDocumentNumber: V,
  },
  invoice: {
    language: V,
    labels: LABELS,
    title: V,
    creditNote: V,
    cancellation: V,
    customerNumber: V,
    recipientCountry: V,
    showVat: V,
    taxNotes: [V],
    paidAmount: V,
    dueAmount: V,
    skonto: { percent: V, days: V, until: V, amount: V, payable: V },
    giroCode: V,
    directDebit: { amount: V, collectionDate: V, mandateReference: V, creditorId: V },
  },
  today: V,
};

/** Names a field key may not take: the context's own roots and Liquid's loop variables. */
export const RESERVED_KEYS = [
  ...Object.keys(CONTEXT_SHAPE),
  'fields',
  'forloop',
  'tablerowloop',
  'empty',
  'blank',
  'nil',
  'null',
  'true',
  'false',
];

const BUILT_IN_MEMBERS = new Set(['size', 'first', 'last']);

/** The first segment path that the context does not offer, or undefined when all is known. */
export function unknownPath(
  segments: VariableUse['segments'],
  fieldKeys: Set<string>,
): string | undefined {
  const [root, ...rest] = segments;
  if (typeof root !== 'string') return undefined;
  if (root === 'fields') {
    const key = rest[0];
    if (typeof key === 'string' && !fieldKeys.has(key) && !BUILT_IN_MEMBERS.has(key))
      return `fields.${key}`;
    return undefined;
  }
  if (fieldKeys.has(root)) return undefined;
  const rootShape = CONTEXT_SHAPE[root];
  if (rootShape === undefined) return root;
  let shape: Shape = rootShape;
  const path = [root];
  for (const segment of rest) {
    if (Array.isArray(segment)) return undefined; // dynamic member: decided at render time
    path.push(String(segment));
    if (shape === 'value')
      return BUILT_IN_MEMBERS.has(String(segment)) ? undefined : path.join('.');
    if (Array.isArray(shape)) {
      if (segment === 'size') return undefined;
      if (typeof segment === 'number' || segment === 'first' || segment === 'last') {
        shape = shape[0];
        continue;
      }
      return path.join('.');
    }
    const member = typeof segment === 'string' ? shape[segment] : undefined;
    if (member !== undefined && Object.hasOwn(shape, segment)) shape = member;
    else return segment === 'size' ? undefined : path.join('.');
  }
  return undefined;
}
