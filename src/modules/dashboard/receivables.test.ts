import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { NEW_DOCUMENT_HISTORY } from '../documents/documents.repository.js';
import { EMPTY_INVOICE_FIELDS } from '../documents/documents.service.js';
import { newId } from '../../shared/ids.js';
import { DayClock, getJson } from './dashboard.test-support.js';

/**
 * Receivables and payables are what is still owed on FINAL invoices, not PENDING payments:
 * invoices are written straight into the table (issuing one is the documents module's
 * business), their payments go through the payments API so settlement runs as in use.
 * Today is 2026-03-10; every figure is worked out by hand in the comments.
 */

const TODAY = '2026-03-10';
let t: TestApp;
let admin: TestUser;

interface Tally {
  amount: number;
  count: number;
}
interface OpenFigures {
  receivables: Tally;
  overdueReceivables: Tally;
  payables: Tally;
  overduePayables: Tally;
  pendingIncomingPayments: Tally;
  pendingOutgoingPayments: Tally;
}

interface InvoiceRow {
  gross: number;
  due?: string | null;
  source?: 'GENERATED' | 'UPLOADED';
  status?: 'DRAFT' | 'FINAL';
  currency?: string;
  invoiceType?: 'INVOICE' | 'CREDIT_NOTE';
  preceding?: string;
  cancelledBy?: string;
}

/** A FINAL invoice row of `user`'s account (gross in minor units); answers its id. */
async function invoice(user: TestUser, r: InvoiceRow): Promise<string> {
  const id = newId('document');
  const at = new Date(`${TODAY}T08:00:00Z`).toISOString();
  const status = r.status ?? 'FINAL';
  await t.app.ctx.db
    .insertInto('documents')
    .values({
      ...NEW_DOCUMENT_HISTORY,
      ...EMPTY_INVOICE_FIELDS,
      id,
      account_id: user.accountId,
      document_type: 'INVOICE',
      name: 'Rechnung',
      search_name: 'rechnung',
      document_number: status === 'FINAL' ? `RE-${id.slice(-8)}` : null,
      contract_id: null,
      contract_name: null,
      partner_id: null,
      partner_name: 'Kunde GmbH',
      creation_date: '2026-02-01',
      due_date: r.due ?? null,
      status,
      source: r.source ?? 'GENERATED',
      template_id: null,
      file_id: null,
      file_type: null,
      pdf_sha256: null,
      currency: r.currency ?? 'EUR',
      line_items: '[]',
      tax_breakdown: '[]',
      net_total: r.gross,
      tax_total: 0,
      gross_total: r.gross,
      fields: '{}',
      processing_status: null,
      finalized_at: status === 'FINAL' ? at : null,
      invoice_type: r.invoiceType ?? 'INVOICE',
      preceding_document_id: r.preceding ?? null,
      cancelled_by_document_id: r.cancelledBy ?? null,
      created_at: at,
      updated_at: at,
    })
    .execute();
  return id;
}

async function pay(user: TestUser, documentId: string, body: Record<string, unknown>) {
  const res = await t.request({
    method: 'POST',
    url: '/v1/payments',
    token: user.token,
    payload: { documentId, currency: 'EUR', paymentDate: '2026-03-09', ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
}

beforeAll(async () => {
  t = await buildTestApp({ clock: new DayClock(TODAY) });
  admin = await createUser(t);

  // Overdue and untouched: 1 416.10 open.
  await invoice(admin, { gross: 141_610, due: '2026-03-01' });
  // Not yet due, 500.00 settled: 690.00 open; a PENDING 690.00 does not reduce it.
  const partial = await invoice(admin, { gross: 119_000, due: '2026-03-20' });
  await pay(admin, partial, { amount: 500 });
  await pay(admin, partial, { amount: 690, status: 'PENDING' });
  // Overdue, 200.00 credited: 300.00 open (the credit note itself is no receivable).
  const credited = await invoice(admin, { gross: 50_000, due: '2026-02-01' });
  await invoice(admin, { gross: 20_000, invoiceType: 'CREDIT_NOTE', preceding: credited });
  // Paid in full by a payment recorded by hand: nothing open.
  const paid = await invoice(admin, { gross: 30_000, due: '2026-03-01' });
  await pay(admin, paid, { amount: 300 });
  // Overpaid settles too, without a negative open amount.
  const over = await invoice(admin, { gross: 10_000, due: '2026-03-01' });
  await pay(admin, over, { amount: 150 });
  // Not receivables: a DRAFT, a cancelled invoice (Storno) and one in GBP.
  await invoice(admin, { gross: 99_900, status: 'DRAFT', due: '2026-03-01' });
  const storno = await invoice(admin, { gross: 7_700, invoiceType: 'CREDIT_NOTE' });
  await invoice(admin, { gross: 7_700, due: '2026-03-01', cancelledBy: storno });
  await invoice(admin, { gross: 12_345, due: '2026-03-01', currency: 'GBP' });

  // Payables: suppliers' bills. Overdue with 100.00 paid out: 138.00; no due date: 50.00.
  const bill = await invoice(admin, { gross: 23_800, due: '2026-03-05', source: 'UPLOADED' });
  await pay(admin, bill, { amount: 100, direction: 'OUTGOING' });
  await invoice(admin, { gross: 5_000, source: 'UPLOADED' });

  // Another account's invoices never show.
  const other = await createUser(t);
  await invoice(other, { gross: 777_700, due: '2026-03-01' });
  await invoice(other, { gross: 777_700, due: '2026-03-01', source: 'UPLOADED' });
});
afterAll(() => t.close());

describe('GET /v1/dashboard/stats: receivables and payables', () => {
  it('answers what is still owed on FINAL invoices, and the part past due', async () => {
    const s = await getJson<OpenFigures>(t, admin, '/v1/dashboard/stats');
    // 1 416.10 + 690.00 + 300.00; overdue: 1 416.10 + 300.00.
    expect(s.receivables).toEqual({ amount: 2406.1, count: 3 });
    expect(s.overdueReceivables).toEqual({ amount: 1716.1, count: 2 });
    // 138.00 + 50.00; overdue: 138.00.
    expect(s.payables).toEqual({ amount: 188, count: 2 });
    expect(s.overduePayables).toEqual({ amount: 138, count: 1 });
    // The old figures, under their own names.
    expect(s.pendingIncomingPayments).toEqual({ amount: 690, count: 1 });
    expect(s.pendingOutgoingPayments).toEqual({ amount: 0, count: 0 });
  });

  it('drops an invoice from the receivables once its payment is recorded', async () => {
    const user = await createUser(t);
    const id = await invoice(user, { gross: 141_610, due: '2026-03-01' });
    const before = await getJson<OpenFigures>(t, user, '/v1/dashboard/stats');
    expect(before.receivables).toEqual({ amount: 1416.1, count: 1 });
    expect(before.overdueReceivables).toEqual({ amount: 1416.1, count: 1 });
    await pay(user, id, { amount: 1416.1 });
    const after = await getJson<OpenFigures>(t, user, '/v1/dashboard/stats');
    expect(after.receivables).toEqual({ amount: 0, count: 0 });
    expect(after.overdueReceivables).toEqual({ amount: 0, count: 0 });
  });
});
