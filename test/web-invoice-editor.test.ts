/**
 * The invoice editor's form model: what a German user types becomes the API's request, and a
 * problem's pointer finds the editor field it names. No totals here: those are the API's.
 */
import { describe, expect, it } from 'vitest';
import {
  createBody,
  editorFieldOf,
  emptyLine,
  formatAmountInput,
  inputIdOf,
  numberProblems,
  parseDecimal,
  updateBody,
  type EditorValues,
} from '../web/src/routes/invoices/editor-model.js';

const values = (change: Partial<EditorValues> = {}): EditorValues => ({
  partnerId: 'ptr_1',
  partnerName: 'Kunde',
  creationDate: '2026-11-28',
  dueDate: '',
  validUntil: '',
  periodKind: 'date',
  deliveryDate: '2026-11-27',
  periodFrom: '',
  periodTo: '',
  buyerReference: '',
  paymentTerms: '',
  note: ' Danke ',
  lines: [
    { ...emptyLine('txr_19'), description: 'Beratung', quantity: '2,5', unitPrice: '1.234,50' },
  ],
  ...change,
});

describe('invoice editor model', () => {
  it('reads German and English decimals, and refuses what is not a number', () => {
    expect(parseDecimal('12,5')).toBe(12.5);
    expect(parseDecimal('12.5')).toBe(12.5);
    expect(parseDecimal('1.234,50')).toBe(1234.5);
    expect(parseDecimal('-3')).toBe(-3);
    expect(parseDecimal(' ')).toBeUndefined();
    expect(formatAmountInput(217.7, 'EUR', 'de')).toBe('217,70');
    expect(formatAmountInput(1500, 'JPY', 'en')).toBe('1500');
    expect(parseDecimal('zwölf')).toBeNaN();
    expect(numberProblems(values({ lines: [{ ...emptyLine(), quantity: 'x' }] }))).toEqual([
      'lines.0.quantity',
    ]);
  });

  it('sends every field on update, null where cleared, and only what is set on create', () => {
    const update = updateBody(values(), 7);
    expect(update).toMatchObject({
      version: 7,
      partnerId: 'ptr_1',
      deliveryDate: '2026-11-27',
      servicePeriod: null,
      dueDate: null,
      note: 'Danke',
      lineItems: [
        {
          description: 'Beratung',
          quantity: 2.5,
          unitPrice: 1234.5,
          taxRateId: 'txr_19',
          unitCode: 'C62',
        },
      ],
    });
    const period = updateBody(
      values({ periodKind: 'period', periodFrom: '2026-11-01', periodTo: '2026-11-30' }),
      1,
    );
    expect(period.deliveryDate).toBeNull();
    expect(period.servicePeriod).toEqual({ from: '2026-11-01', to: '2026-11-30' });
    const created = createBody(values(), 'Rechnung');
    expect(created).not.toHaveProperty('dueDate');
    expect(created).toMatchObject({ documentType: 'INVOICE', status: 'DRAFT', name: 'Rechnung' });
  });

  it('sends validUntil for a quote and a due date only for an invoice', () => {
    const typed = values({ dueDate: '2026-12-12', validUntil: '2026-12-31' });
    const quote = createBody(typed, 'Angebot', 'QUOTE');
    expect(quote).toMatchObject({ documentType: 'QUOTE', validUntil: '2026-12-31' });
    expect(quote).not.toHaveProperty('dueDate');
    const confirmation = updateBody(typed, 2, 'ORDER_CONFIRMATION');
    expect(confirmation).not.toHaveProperty('dueDate');
    expect(confirmation).not.toHaveProperty('validUntil');
    expect(updateBody(values(), 3, 'QUOTE').validUntil).toBeNull();
    expect(updateBody(typed, 3)).not.toHaveProperty('validUntil');
    expect(editorFieldOf('/body/validUntil')).toBe('validUntil');
  });

  it('finds the editor field a problem points at', () => {
    expect(editorFieldOf('/body/lineItems/1/taxRateId')).toBe('lines.1.taxRateId');
    expect(editorFieldOf('/body/deliveryDate')).toBe('deliveryDate');
    expect(editorFieldOf('/body/servicePeriod/to')).toBe('periodTo');
    expect(editorFieldOf('/company/address/street')).toBeUndefined();
    expect(inputIdOf('lines.1.taxRateId')).toBe('invoice-lines-1-taxRateId');
    expect(inputIdOf('partnerId')).toBe('invoice-partner');
  });
});
