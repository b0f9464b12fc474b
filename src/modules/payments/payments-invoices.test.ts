import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { DAY, ManualClock } from '../../shared/clock.js';
import { isoDate } from '../../shared/dates.js';
import {
  getDocument,
  newInvoice,
  newPartner,
  paymentBody,
  payments,
  type InvoiceView,
  type PaymentView,
} from './payments.test-support.js';

let t: TestApp;
let api: ReturnType<typeof payments>;
let user: TestUser;
let partnerId: string;
// The test clock starts now: documents judge `overdue` on today's date.
const clock = new ManualClock();
const today = () => isoDate(clock.now());
const daysFromToday = (n: number) => isoDate(new Date(clock.now().getTime() + n * DAY));

beforeAll(async () => {
  t = await buildTestApp({ clock });
  api = payments(t);
  user = await createUser(t);
  partnerId = (await newPartner(t, user)).id;
});
afterAll(() => t.close());

async function finalInvoice(extra: Record<string, unknown> = {}): Promise<InvoiceView> {
  const draft = await newInvoice(t, user, { partnerId, ...extra });
  const res = await t.request({
    method: 'PUT',
    url: `/v1/documents/${draft.id}`,
    token: user.token,
    payload: { version: draft.version, status: 'FINAL' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<InvoiceView>();
}

async function pay(documentId: string, extra: Record<string, unknown> = {}): Promise<PaymentView> {
  const res = await api.post(user, paymentBody({ documentId, partnerName: undefined, ...extra }));
  expect(res.statusCode, res.body).toBe(201);
  return res.json<PaymentView>();
}

describe('invoices: paymentStatus from linked MARKED payments', () => {
  it('goes UNPAID → PARTIAL → PAID, counting MARKED payments only, and refunds back', async () => {
    const invoice = await finalInvoice({ dueDate: daysFromToday(14) });
    expect(invoice).toMatchObject({ grossTotal: 119, paymentStatus: 'UNPAID', overdue: false });

    const pending = await pay(invoice.id, { amount: 119, status: 'PENDING' });
    expect(pending.documentNumber).toBe(invoice.documentNumber);
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('UNPAID');

    await pay(invoice.id, { amount: 50, status: 'MARKED' });
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PARTIAL');

    const rest = await pay(invoice.id, { amount: 69, status: 'PENDING' });
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PARTIAL');
    await api.put(user, rest.id, { version: 1, status: 'MARKED' });
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PAID');

    // A refund (money going back) reopens it.
    const refund = await pay(invoice.id, { amount: 19, direction: 'OUTGOING', status: 'MARKED' });
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PARTIAL');
    await api.del(user, refund.id);
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PAID');
    // Un-marking a payment takes it out again.
    await api.put(user, rest.id, { version: 2, status: 'PENDING' });
    expect((await getDocument(t, user, invoice.id)).paymentStatus).toBe('PARTIAL');
  });

  it('counts overpayment as PAID and a vendor invoice paid by outgoing payments too', async () => {
    const over = await finalInvoice();
    await pay(over.id, { amount: 200, status: 'MARKED' });
    expect((await getDocument(t, user, over.id)).paymentStatus).toBe('PAID');
    const vendor = await finalInvoice();
    await pay(vendor.id, { amount: 119, direction: 'OUTGOING', status: 'MARKED' });
    expect((await getDocument(t, user, vendor.id)).paymentStatus).toBe('PAID');
  });

  it('answers the status of every invoice of a list page, and null for contract documents', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner, 'Listen GmbH');
    const made: InvoiceView[] = [];
    for (let i = 0; i < 3; i++) made.push(await newInvoice(t, owner, { partnerId: p.id }));
    const payAs = (documentId: string, amount: number) =>
      api.post(
        owner,
        paymentBody({ documentId, amount, status: 'MARKED', partnerName: undefined }),
      );
    await payAs(made[1]!.id, 20);
    await payAs(made[2]!.id, 119);
    const contractDoc = await newInvoice(t, owner, {
      documentType: 'CONTRACT',
      name: 'Vertrag',
      lineItems: undefined,
    });
    const res = await t.request({ method: 'GET', url: '/v1/documents', token: owner.token });
    expect(res.statusCode).toBe(200);
    const byId = new Map(
      res.json<{ data: InvoiceView[] }>().data.map((d) => [d.id, [d.paymentStatus, d.overdue]]),
    );
    expect(byId.get(made[0]!.id)).toEqual(['UNPAID', false]);
    expect(byId.get(made[1]!.id)).toEqual(['PARTIAL', false]);
    expect(byId.get(made[2]!.id)).toEqual(['PAID', false]);
    expect(byId.get(contractDoc.id)).toEqual([null, false]);
  });
});

describe('invoices: a payment recorded by hand settles at once', () => {
  it('marks it, pays the invoice in the same write and answers where the invoice stands', async () => {
    const invoice = await finalInvoice({ dueDate: daysFromToday(-3) });
    const first = await pay(invoice.id, { amount: 100 });
    expect(first).toMatchObject({
      status: 'MARKED',
      document: {
        id: invoice.id,
        documentNumber: invoice.documentNumber,
        paymentStatus: 'PARTIAL',
        openAmount: 19,
        paidAt: null,
      },
    });
    const rest = await pay(invoice.id, { amount: 19 });
    expect(rest.status).toBe('MARKED');
    expect(rest.document).toMatchObject({ paymentStatus: 'PAID', openAmount: 0 });
    const read = await getDocument(t, user, invoice.id);
    expect(read).toMatchObject({ paymentStatus: 'PAID', overdue: false });
    expect((rest.document as { paidAt: string }).paidAt).toBe(
      (read as InvoiceView & { paidAt: string }).paidAt,
    );
    // Reads and lists answer the same standing.
    expect((await api.get(user, first.id)).json<PaymentView>().document).toEqual(rest.document);
    const page = await api.list(user, `documentId=${invoice.id}`);
    expect(page.data.map((p) => p.document)).toEqual([rest.document, rest.document]);
    // Each payment audited once, as created (settled from the start: nothing to mark).
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', 'in', [first.id, rest.id])
      .execute();
    expect(events.map((e) => e.action)).toEqual(['payment.created', 'payment.created']);
  });

  it('keeps a provider’s payment PENDING and the invoice open until the provider reports', async () => {
    const invoice = await finalInvoice();
    const p = await pay(invoice.id, { amount: 119, providerPaymentIntentId: `pi_${Date.now()}` });
    expect(p).toMatchObject({
      status: 'PENDING',
      document: { paymentStatus: 'UNPAID', openAmount: 119, paidAt: null },
    });
    const marked = await api.put(user, p.id, { version: 1, status: 'MARKED' });
    expect(marked.json<PaymentView>().document).toMatchObject({
      paymentStatus: 'PAID',
      openAmount: 0,
    });
  });
});

describe('invoices: overdue', () => {
  it('is overdue when FINAL, not PAID and due before today', async () => {
    const due = await finalInvoice({ dueDate: daysFromToday(-1) });
    expect(due).toMatchObject({ paymentStatus: 'UNPAID', overdue: true });
    await pay(due.id, { amount: 100, status: 'MARKED' });
    expect(await getDocument(t, user, due.id)).toMatchObject({
      paymentStatus: 'PARTIAL',
      overdue: true,
    });
    await pay(due.id, { amount: 19, status: 'MARKED' });
    expect(await getDocument(t, user, due.id)).toMatchObject({
      paymentStatus: 'PAID',
      overdue: false,
    });

    const dueToday = await finalInvoice({ dueDate: today() });
    expect(dueToday.overdue).toBe(false);
    const draft = await newInvoice(t, user, { partnerId, dueDate: daysFromToday(-30) });
    expect((await getDocument(t, user, draft.id)).overdue).toBe(false);
    const noDueDate = await finalInvoice();
    expect(noDueDate.overdue).toBe(false);
  });
});
