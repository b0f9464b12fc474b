import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp, type TestUser } from '../../../test/helpers.js';
import { backfillDeductions } from '../../db/migrations/0035_document_deductions.js';
import { ManualClock } from '../../shared/clock.js';
import {
  canValidate,
  describeErrors,
  validateAll,
} from '../../shared/einvoice/validator.test-support.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { downPaymentSteps, type Doc } from './documents.down-payments.test-support.js';
import { call, download } from './documents.test-support.js';

/**
 * The final invoice around its deductions (docs/invoicing.md, "Down payments and final
 * invoices"): a draft answers what it would deduct today; the deductions of a FINAL one are
 * rows of `document_deductions` (the Storno refusal, open-amount sums, the migration's
 * backfill); its Skonto is a share of the remaining amount, in the PDF and in BT-20.
 * Order of every job: 1,000 net at 19 % and 500 net at 7 %, 1,725.00 gross.
 */

const TODAY = '2026-06-01';
const DAY_MS = 86_400_000;
let t: TestApp;
let clock: ManualClock;
let steps: ReturnType<typeof downPaymentSteps>;

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({ clock });
  steps = downPaymentSteps(t, TODAY);
});
afterAll(async () => {
  await t.close();
});

const get = (user: TestUser, id: string) => call<Doc>(t, user, 'GET', `/v1/documents/${id}`);
const pdfText = async (user: TestUser, doc: Doc) =>
  (await pageTexts(await download(t, user, doc.fileId!))).join('\n').replace(/\s+/g, ' ');

interface Tally {
  amount: number;
  count: number;
}
const stats = (user: TestUser) =>
  call<{ receivables: Tally; overdueReceivables: Tally }>(t, user, 'GET', '/v1/dashboard/stats');

const deductionRows = (finalId: string) =>
  t.app.ctx.db
    .selectFrom('document_deductions')
    .select(['down_payment_document_id', 'gross_minor', 'position'])
    .where('final_document_id', '=', finalId)
    .orderBy('position')
    .execute();

const idsWith = async (user: TestUser, status: string) =>
  (
    await call<{ data: { id: string }[] }>(
      t,
      user,
      'GET',
      `/v1/documents?documentType=INVOICE&paymentStatus=${status}`,
    )
  ).data.map((d) => d.id);

describe('a draft final invoice', () => {
  it('answers the deductions of today: a down payment paid or cancelled after it was made', async () => {
    const { user, order } = await steps.order();
    // 30 %: 517.50 gross, not paid yet.
    const dp1 = await steps.downPayment(user, order.id, { percent: 30 });
    const draft = await steps.convert(user, order.id);
    expect(draft.finalInvoice).toBe(true);
    expect(draft.downPaymentDeductions).toEqual([]);

    await steps.pay(user, dp1.id, 517.5);
    const paid = await get(user, draft.id);
    expect(paid.downPaymentDeductions.map((d) => [d.documentId, d.gross])).toEqual([
      [dp1.id, 517.5],
    ]);
    expect(paid.prepaidAmount).toBe(517.5);
    // The list answers the same.
    const listed = await call<{ data: Doc[] }>(t, user, 'GET', '/v1/documents?status=DRAFT');
    expect(listed.data.find((d) => d.id === draft.id)?.prepaidAmount).toBe(517.5);

    // A second one, paid, then cancelled (allowed: no FINAL final invoice deducts it yet).
    const dp2 = await steps.downPayment(user, order.id, { percent: 10 });
    await steps.pay(user, dp2.id, dp2.grossTotal);
    expect((await get(user, draft.id)).prepaidAmount).toBe(517.5 + dp2.grossTotal);
    await call(t, user, 'POST', `/v1/documents/${dp2.id}/cancel`);
    const current = await get(user, draft.id);
    expect(current.downPaymentDeductions.map((d) => d.documentId)).toEqual([dp1.id]);
    // An update answers the same, whatever the draft stored at its conversion.
    const saved = await call<Doc>(t, user, 'PUT', `/v1/documents/${draft.id}`, {
      version: current.version,
      name: 'Umbau, Schlussrechnung',
    });
    expect(saved.prepaidAmount).toBe(517.5);

    // Finalized as it stands: the PDF (rendered once, before the commit) prints the deduction.
    const fin = await steps.finalize(user, saved);
    expect([fin.prepaidAmount, fin.openAmount]).toEqual([517.5, 1207.5]);
    const text = await pdfText(user, fin);
    expect(text).toContain(`Abschlagsrechnung ${dp1.documentNumber}`);
    expect(text).toContain('1.207,50');
    expect(text).not.toContain(`Abschlagsrechnung ${dp2.documentNumber}`);
    expect(await deductionRows(fin.id)).toEqual([
      { down_payment_document_id: dp1.id, gross_minor: 51750, position: 0 },
    ]);
  });
});

describe('Skonto on a final invoice', () => {
  it('is a share of the remaining amount, in the PDF and in BT-20, KoSIT-valid', async () => {
    const { user, order } = await steps.order();
    // 50 %: 862.50 paid; 862.50 remain; 2 % of that is 17.25, so 845.25 to pay within 7 days.
    const dp = await steps.downPayment(user, order.id, { percent: 50 });
    await steps.pay(user, dp.id, 862.5);
    const fin = await steps.finalize(user, await steps.convert(user, order.id), {
      skontoPercent: 2,
      skontoDays: 7,
    });
    expect(fin.openAmount).toBe(862.5);
    const text = await pdfText(user, fin);
    expect(text).toContain('2 % Skonto (17,25 €)');
    expect(text).toContain('845,25');
    expect(text).not.toContain('34,50');

    const cii = (await steps.einvoice(user, fin.id, 'xrechnung-cii')).toString();
    expect(cii).toContain('#SKONTO#TAGE=7#PROZENT=2.00#BASISBETRAG=862.50#');
    expect(cii).toContain(
      '2,00 % Skonto bei Zahlung innerhalb von 7 Tagen auf den verbleibenden Rechnungsbetrag von 862,50 EUR: 17,25 EUR, Zahlbetrag 845,25 EUR.',
    );
    expect(cii).toContain('<ram:DuePayableAmount>862.50</ram:DuePayableAmount>');

    if (canValidate()) {
      const files: { name: string; bytes: Buffer }[] = [];
      for (const format of ['xrechnung-cii', 'xrechnung-ubl', 'zugferd'])
        files.push({
          name: `final-skonto.${format}.${format === 'zugferd' ? 'pdf' : 'xml'}`,
          bytes: await steps.einvoice(user, fin.id, format),
        });
      for (const result of validateAll(files))
        expect(result.errors, `${result.file}: ${describeErrors(result)}`).toBe(0);
    }
  });
});

describe('a FINAL final invoice’s deductions', () => {
  it('are rows: open sums use the remaining amount, Storno is refused until the final invoice is cancelled, the backfill rebuilds them', async () => {
    const { user, order } = await steps.order();
    const dp = await steps.downPayment(user, order.id, { percent: 50 });
    await steps.pay(user, dp.id, 862.5);
    const fin = await steps.finalize(user, await steps.convert(user, order.id));
    expect([fin.prepaidAmount, fin.openAmount, fin.paymentStatus]).toEqual([
      862.5,
      862.5,
      'UNPAID',
    ]);
    expect(await deductionRows(fin.id)).toEqual([
      { down_payment_document_id: dp.id, gross_minor: 86250, position: 0 },
    ]);

    // The dashboard: the remaining amount, once; the paid down payment is not open.
    const before = await stats(user);
    expect(before.receivables).toEqual({ amount: 862.5, count: 1 });
    expect(before.overdueReceivables).toEqual({ amount: 0, count: 0 });

    // The paymentStatus filter compares with the remaining amount too.
    expect(await idsWith(user, 'UNPAID')).toContain(fin.id);
    await steps.pay(user, fin.id, 400);
    expect(await idsWith(user, 'PARTIAL')).toContain(fin.id);
    expect((await stats(user)).receivables).toEqual({ amount: 462.5, count: 1 });

    // Past its due date: overdue by what remains.
    clock.advance(60 * DAY_MS);
    expect((await stats(user)).overdueReceivables).toEqual({ amount: 462.5, count: 1 });
    await steps.pay(user, fin.id, 462.5);
    expect(await idsWith(user, 'PAID')).toEqual(expect.arrayContaining([fin.id, dp.id]));
    expect((await stats(user)).receivables).toEqual({ amount: 0, count: 0 });

    // The migration's backfill: from the stored JSON, idempotent.
    await t.app.ctx.db
      .deleteFrom('document_deductions')
      .where('final_document_id', '=', fin.id)
      .execute();
    await backfillDeductions(t.app.ctx.db as never);
    await backfillDeductions(t.app.ctx.db as never);
    expect(await deductionRows(fin.id)).toEqual([
      { down_payment_document_id: dp.id, gross_minor: 86250, position: 0 },
    ]);

    // Storno of the deducted down payment: 409 naming the final invoice, found by the rows.
    const refused = await t.request({
      method: 'POST',
      url: `/v1/documents/${dp.id}/cancel`,
      token: user.token,
    });
    expect(refused.statusCode, refused.body).toBe(409);
    expect(refused.json()).toMatchObject({
      finalInvoiceId: fin.id,
      finalInvoiceNumber: fin.documentNumber,
    });
    // Once the final invoice is cancelled (its credit note deducts nothing), it is allowed.
    await call(t, user, 'POST', `/v1/documents/${fin.id}/cancel`);
    await call(t, user, 'POST', `/v1/documents/${dp.id}/cancel`);
  });
});
