/**
 * The editor's form values and how they become the API's request body (and back). Numbers
 * are typed as text (a German user writes `12,5`), read here only to hand them to the API;
 * every total and tax comes back from the API's answer.
 */
import type { components } from '@kontor/client';
import { numbers } from '../../format.js';

// The document type itself (not from ./shared, a React module): the root typecheck reads this
// file through its unit test.
type Invoice = components['schemas']['Document'];

export interface LineValues {
  productId: string;
  description: string;
  quantity: string;
  unitPrice: string;
  taxRateId: string;
  unitCode: string;
}

export interface EditorValues {
  partnerId: string;
  partnerName: string;
  creationDate: string;
  dueDate: string;
  /** Quotes only: the last day the quote can be accepted (gültig bis). */
  validUntil: string;
  periodKind: 'date' | 'period';
  deliveryDate: string;
  periodFrom: string;
  periodTo: string;
  buyerReference: string;
  paymentTerms: string;
  note: string;
  lines: LineValues[];
}

export type DocumentBody = components['schemas']['CreateDocument'];
/** The documents the editor writes: invoices, quotes and order confirmations. */
export type SalesType = 'INVOICE' | 'QUOTE' | 'ORDER_CONFIRMATION';
type UpdateBody = components['schemas']['UpdateDocument'];

export const emptyLine = (taxRateId = ''): LineValues => ({
  productId: '',
  description: '',
  quantity: '1',
  unitPrice: '',
  taxRateId,
  unitCode: 'C62',
});

/** `12,5` and `12.5` both mean twelve and a half; anything else is not a number. */
export function parseDecimal(text: string): number | undefined {
  const trimmed = text.trim().replace(/\s/g, '');
  if (trimmed === '') return undefined;
  // German thousands dots before a decimal comma: 1.234,50.
  const normalized = trimmed.includes(',') ? trimmed.replace(/\./g, '').replace(',', '.') : trimmed;
  if (!/^-?\d+(\.\d+)?$/.test(normalized)) return Number.NaN;
  return Number(normalized);
}

export function formatDecimal(value: number, language: string): string {
  return numbers(language.startsWith('en') ? 'en-GB' : 'de-DE', {
    useGrouping: false,
    maximumFractionDigits: 3,
  }).format(value);
}

/** An amount for an input, with the currency's decimals (`217,70`, `1500` for JPY). */
export function formatAmountInput(value: number, currency: string, language: string): string {
  const locale = language.startsWith('en') ? 'en-GB' : 'de-DE';
  const digits = numbers(locale, { style: 'currency', currency }).resolvedOptions()
    .maximumFractionDigits;
  return numbers(locale, {
    useGrouping: false,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(value);
}

export function valuesOf(invoice: Invoice, language: string): EditorValues {
  return {
    partnerId: invoice.partnerId ?? '',
    partnerName: invoice.partnerName ?? '',
    creationDate: invoice.creationDate,
    dueDate: invoice.dueDate ?? '',
    validUntil: invoice.validUntil ?? '',
    periodKind: invoice.servicePeriod ? 'period' : 'date',
    deliveryDate: invoice.deliveryDate ?? '',
    periodFrom: invoice.servicePeriod?.from ?? '',
    periodTo: invoice.servicePeriod?.to ?? '',
    buyerReference: invoice.buyerReference ?? '',
    paymentTerms: invoice.paymentTerms ?? '',
    note: invoice.note ?? '',
    lines: invoice.lineItems.map((line) => ({
      productId: line.productId ?? '',
      description: line.description,
      quantity: formatDecimal(line.quantity, language),
      unitPrice: formatDecimal(line.unitPrice, language),
      taxRateId: line.taxRateId,
      unitCode: line.unitCode,
    })),
  };
}

/** A line's number fields that are not numbers, by field name (`lines.0.quantity`). */
export function numberProblems(
  values: EditorValues,
): `lines.${number}.${'quantity' | 'unitPrice'}`[] {
  const wrong: `lines.${number}.${'quantity' | 'unitPrice'}`[] = [];
  values.lines.forEach((line, index) => {
    if (Number.isNaN(parseDecimal(line.quantity))) wrong.push(`lines.${index}.quantity`);
    if (Number.isNaN(parseDecimal(line.unitPrice))) wrong.push(`lines.${index}.unitPrice`);
  });
  return wrong;
}

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

function lineItems(values: EditorValues): NonNullable<UpdateBody['lineItems']> {
  return values.lines.map((line) => {
    const unitPrice = parseDecimal(line.unitPrice);
    return {
      ...(line.productId ? { productId: line.productId } : {}),
      ...(line.description.trim() ? { description: line.description.trim() } : {}),
      quantity: parseDecimal(line.quantity) ?? 0,
      ...(unitPrice === undefined ? {} : { unitPrice }),
      ...(line.taxRateId ? { taxRateId: line.taxRateId } : {}),
      ...(line.unitCode ? { unitCode: line.unitCode } : {}),
    };
  });
}

/**
 * The PUT body: every field the editor shows, null where cleared. A due date belongs to an
 * invoice, `validUntil` to a quote: each is sent only for its type.
 */
export function updateBody(
  values: EditorValues,
  version: number,
  documentType: SalesType = 'INVOICE',
): UpdateBody {
  const period = values.periodKind === 'period';
  return {
    version,
    partnerId: values.partnerId || null,
    creationDate: values.creationDate,
    ...(documentType === 'INVOICE' ? { dueDate: orNull(values.dueDate) } : {}),
    ...(documentType === 'QUOTE' ? { validUntil: orNull(values.validUntil) } : {}),
    deliveryDate: period ? null : orNull(values.deliveryDate),
    servicePeriod:
      period && values.periodFrom && values.periodTo
        ? { from: values.periodFrom, to: values.periodTo }
        : null,
    buyerReference: orNull(values.buyerReference),
    paymentTerms: orNull(values.paymentTerms),
    note: orNull(values.note),
    lineItems: lineItems(values),
  };
}

/** The POST body of a new draft: only what is filled in. */
export function createBody(
  values: EditorValues,
  name: string,
  documentType: SalesType = 'INVOICE',
): DocumentBody {
  const period = values.periodKind === 'period';
  const optional = (key: string, text: string) => (text.trim() ? { [key]: text.trim() } : {});
  return {
    documentType,
    status: 'DRAFT',
    name,
    creationDate: values.creationDate,
    ...(values.partnerId ? { partnerId: values.partnerId } : {}),
    ...(documentType === 'INVOICE' ? optional('dueDate', values.dueDate) : {}),
    ...(documentType === 'QUOTE' ? optional('validUntil', values.validUntil) : {}),
    ...(period ? {} : optional('deliveryDate', values.deliveryDate)),
    ...(period && values.periodFrom && values.periodTo
      ? { servicePeriod: { from: values.periodFrom, to: values.periodTo } }
      : {}),
    ...optional('buyerReference', values.buyerReference),
    ...optional('paymentTerms', values.paymentTerms),
    ...optional('note', values.note),
    lineItems: lineItems(values),
  };
}

/** The editor field a problem's pointer names (`/body/lineItems/0/quantity` → `lines.0.quantity`). */
export function editorFieldOf(pointer: string): string | undefined {
  const parts = pointer.split('/').filter(Boolean);
  if (parts[0] === 'body') parts.shift();
  if (parts[0] === 'lineItems' && parts[1] !== undefined && parts[2] !== undefined) {
    return `lines.${parts[1]}.${parts[2]}`;
  }
  if (parts[0] === 'servicePeriod') return parts[1] === 'to' ? 'periodTo' : 'periodFrom';
  const direct = [
    'partnerId',
    'creationDate',
    'dueDate',
    'validUntil',
    'deliveryDate',
    'buyerReference',
    'paymentTerms',
    'note',
  ];
  return parts.length === 1 && direct.includes(parts[0] ?? '') ? parts[0] : undefined;
}

/** The id of the input where the user fixes a field of the editor. */
export function inputIdOf(field: string): string {
  if (field === 'partnerId') return 'invoice-partner';
  return `invoice-${field.replace(/\./g, '-')}`;
}
