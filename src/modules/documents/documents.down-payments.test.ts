import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import {
  canValidate,
  describeErrors,
  validateAll,
} from '../../shared/einvoice/validator.test-support.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { downPaymentShares } from './documents.down-payments.js';
import { downPaymentSteps, type Doc } from './documents.down-payments.test-support.js';
import { call, download, type Body } from './documents.test-support.js';

/**
 * Down payments and final invoices (docs/invoicing.md, "Down payments and final invoices"):
 * a down payment by percent and by amount over two VAT rates, numbered in the invoice range;
 * the final invoice deducting the PAID down payments (an unpaid one is not deducted), its
 * totals and open amount, the deduction block on its PDF, every e-invoice under KoSIT's rules,
 * and the refusal to cancel a deducted down payment.
 */

const TODAY = '2026-06-01';
let t: TestApp;
let steps: ReturnType<typeof downPaymentSteps>;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(`${TODAY}T08:00:00Z`)) });
  steps = downPaymentSteps(t, TODAY);
});
afterAll(async () => {
  await t.close();
});

const order = () => steps.order();
const finalize = (user: TestUser, doc: Doc) => steps.finalize(user, doc);
const downPayment = (user: TestUser, orderId: string, body: Body) =>
  steps.downPayment(user, orderId, body);
const pay = (user: TestUser, documentId: string, amount: number) =>
  steps.pay(user, documentId, amount);
const einvoice = (user: TestUser, id: string, format: string) => steps.einvoice(user, id, format);

describe('down payments: the shares per VAT rate', () => {
  const taxes = [
    { taxRateId: 'r19', rateBp: 1900, netMinor: 100000, taxMinor: 19000 },
    { taxRateId: 'r7', rateBp: 700, netMinor: 50000, taxMinor: 3500 },
  ];
  it('scales each rate’s net by a percentage, half-up', () => {
    expect(downPaymentShares(taxes, { percentBp: 3333 })).toEqual([
      { taxRateId: 'r19', rateBp: 1900, netMinor: 33330 },
      { taxRateId: 'r7', rateBp: 700, netMinor: 16665 },
    ]);
  });
  it('splits a gross amount in proportion to the rates’ gross, net = share / (1 + rate)', () => {
    // 333.33 of 1,725.00: 229.95 at 19 % (net 193.24) and 103.38 at 7 % (net 96.62).
    expect(downPaymentShares(taxes, { grossMinor: 33333 })).toEqual([
      { taxRateId: 'r19', rateBp: 1900, netMinor: 19324 },
      { taxRateId: 'r7', rateBp: 700, netMinor: 9662 },
    ]);
  });
});

describe('down payments and the final invoice', () => {
  // Renders a dozen PDFs and runs the e-invoice validators: tens of seconds on a busy machine.
  it('bills down payments by percent and amount, deducts the paid ones, refuses their Storno', async () => {
    const { user, order: oc } = await order();
    // 30 %: 300.00 at 19 % (57.00 VAT) and 150.00 at 7 % (10.50 VAT).
    const dp1 = await downPayment(user, oc.id, { percent: 30 });
    expect(dp1.invoiceType).toBe('DOWN_PAYMENT');
    expect(dp1.documentNumber).toBe('2026-0001');
    expect(dp1.originDocumentId).toBe(oc.id);
    expect(dp1.lineItems.map((l) => [l.description, l.unitPrice, l.taxRate])).toEqual([
      [
        `Abschlagsrechnung 1 zu Auftrag ${oc.documentNumber}, 30 % der Leistungen zu 19 % USt.`,
        300,
        19,
      ],
      [
        `Abschlagsrechnung 1 zu Auftrag ${oc.documentNumber}, 30 % der Leistungen zu 7 % USt.`,
        150,
        7,
      ],
    ]);
    expect([dp1.netTotal, dp1.taxTotal, dp1.grossTotal]).toEqual([450, 67.5, 517.5]);
    // 333.33 gross: rounding per rate gives 333.34.
    const dp2 = await downPayment(user, oc.id, { amount: 333.33 });
    expect(dp2.documentNumber).toBe('2026-0002');
    expect([dp2.netTotal, dp2.taxTotal, dp2.grossTotal]).toEqual([289.86, 43.48, 333.34]);
    // A third, never paid: not deducted.
    const dp3 = await downPayment(user, oc.id, { percent: 10 });
    await pay(user, dp1.id, 517.5);
    await pay(user, dp2.id, 333.34);

    // Bad input: neither or both, too much, a draft order.
    for (const body of [{}, { percent: 10, amount: 5 }, { amount: 5000 }]) {
      const res = await t.request({
        method: 'POST',
        url: `/v1/documents/${oc.id}/down-payments`,
        token: user.token,
        payload: body,
      });
      expect(res.statusCode, res.body).toBe(400);
    }

    const draft = await call<Doc>(t, user, 'POST', `/v1/documents/${oc.id}/convert`, {
      documentType: 'INVOICE',
    });
    expect(draft.finalInvoice).toBe(true);
    const fin = await finalize(user, draft);
    expect(fin.documentNumber).toBe('2026-0004');
    expect([fin.netTotal, fin.taxTotal, fin.grossTotal]).toEqual([1500, 225, 1725]);
    expect(fin.downPaymentDeductions.map((d) => [d.documentNumber, d.gross])).toEqual([
      ['2026-0001', 517.5],
      ['2026-0002', 333.34],
    ]);
    expect(fin.downPaymentDeductions[0]!.taxes).toEqual([
      { rate: 19, category: 'S', net: 300, tax: 57 },
      { rate: 7, category: 'S', net: 150, tax: 10.5 },
    ]);
    expect(fin.prepaidAmount).toBe(850.84);
    expect(fin.openAmount).toBe(874.16);
    expect(fin.paymentStatus).toBe('UNPAID');
    await pay(user, fin.id, 874.16);
    const paid = await call<Doc>(t, user, 'GET', `/v1/documents/${fin.id}`);
    expect([paid.openAmount, paid.paymentStatus]).toEqual([0, 'PAID']);

    // The chain shows the down payments and the final invoice.
    const again = await call<Doc>(t, user, 'GET', `/v1/documents/${oc.id}`);
    expect(again.convertedToDocumentIds).toEqual([dp1.id, dp2.id, dp3.id, fin.id]);

    // The PDF: the deduction block with each down payment's VAT per rate.
    const text = (await pageTexts(await download(t, user, fin.fileId!))).join('\n');
    for (const words of [
      'Schlussrechnung 2026-0004',
      'Abzüglich erhaltener Abschlagszahlungen',
      'Abschlagsrechnung 2026-0001',
      'Abschlagsrechnung 2026-0002',
      'Verbleibender Rechnungsbetrag',
      '874,16',
    ])
      expect(text).toContain(words);
    const dpText = (await pageTexts(await download(t, user, dp1.fileId!))).join('\n');
    expect(dpText).toContain('Abschlagsrechnung 2026-0001');

    // The e-invoice: BT-113 and BG-3 per down payment, type code 386 for a down payment.
    const cii = (await einvoice(user, fin.id, 'xrechnung-cii')).toString();
    const ubl = (await einvoice(user, fin.id, 'xrechnung-ubl')).toString();
    expect(cii).toContain('<ram:TotalPrepaidAmount>850.84</ram:TotalPrepaidAmount>');
    expect(cii).toContain('<ram:DuePayableAmount>874.16</ram:DuePayableAmount>');
    // CII holds one InvoiceReferencedDocument (BG-3); the second is a supporting document.
    expect(cii).toMatch(
      /<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>2026-0001<\/ram:IssuerAssignedID>/,
    );
    expect(cii).toMatch(
      /<ram:AdditionalReferencedDocument>\s*<ram:IssuerAssignedID>2026-0002<\/ram:IssuerAssignedID>/,
    );
    expect(cii).toContain('USt 19.00 % auf 300.00 EUR: 57.00 EUR');
    expect(ubl).toContain('<cbc:PrepaidAmount currencyID="EUR">850.84</cbc:PrepaidAmount>');
    expect(ubl.match(/<cac:BillingReference>/g)).toHaveLength(2);
    const dpCii = (await einvoice(user, dp1.id, 'xrechnung-cii')).toString();
    expect(dpCii).toContain('<ram:TypeCode>386</ram:TypeCode>');

    // Storno: a deducted down payment is refused naming the final invoice; an unpaid one is not.
    const refused = await t.request({
      method: 'POST',
      url: `/v1/documents/${dp1.id}/cancel`,
      token: user.token,
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json<{ detail: string; finalInvoiceId: string }>()).toMatchObject({
      finalInvoiceId: fin.id,
      finalInvoiceNumber: '2026-0004',
    });
    expect(refused.json<{ detail: string }>().detail).toContain('2026-0004');
    const storno = await t.request({
      method: 'POST',
      url: `/v1/documents/${dp3.id}/cancel`,
      token: user.token,
    });
    expect(storno.statusCode, storno.body).toBe(201);

    // One down payment only: a second order and its final invoice.
    const second = await order();
    const only = await downPayment(second.user, second.order.id, { percent: 50 });
    await pay(second.user, only.id, only.grossTotal);
    const oneDraft = await call<Doc>(
      t,
      second.user,
      'POST',
      `/v1/documents/${second.order.id}/convert`,
      { documentType: 'INVOICE' },
    );
    const one = await finalize(second.user, oneDraft);
    expect(one.prepaidAmount).toBe(862.5);
    expect(one.openAmount).toBe(862.5);

    if (canValidate()) {
      const files: { name: string; bytes: Buffer }[] = [];
      for (const [name, u, id] of [
        ['down-payment', user, dp1.id],
        ['final-two', user, fin.id],
        ['final-one', second.user, one.id],
      ] as const)
        for (const format of ['xrechnung-cii', 'xrechnung-ubl', 'zugferd'])
          files.push({
            name: `${name}.${format}.${format === 'zugferd' ? 'pdf' : 'xml'}`,
            bytes: await einvoice(u, id, format),
          });
      const results = validateAll(files);
      for (const result of results)
        expect(result.errors, `${result.file}: ${describeErrors(result)}`).toBe(0);
    }
  }, 120_000);
});
