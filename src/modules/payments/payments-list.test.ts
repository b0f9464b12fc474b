import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import {
  newContract,
  newInvoice,
  newPartner,
  paymentBody,
  payments,
  type Body,
  type PaymentView,
} from './payments.test-support.js';

let t: TestApp;
let api: ReturnType<typeof payments>;
let owner: TestUser;
const ids: Record<string, string> = {};
let partnerA: { id: string };
let partnerB: { id: string };
let contract: { id: string };
let invoiceId: string;

/** Creates the payments in order (oldest first) and remembers them by label. */
async function seed(rows: [string, Body][]): Promise<void> {
  for (const [label, body] of rows) {
    // Expected (PENDING) unless the row says otherwise, so both statuses are in the set.
    const res = await api.post(owner, paymentBody({ status: 'PENDING', ...body }));
    expect(res.statusCode, res.body).toBe(201);
    ids[label] = res.json<PaymentView>().id;
  }
}

const labels = (page: { data: PaymentView[] }) =>
  page.data.map((p) => Object.keys(ids).find((k) => ids[k] === p.id));

beforeAll(async () => {
  t = await buildTestApp();
  api = payments(t);
  owner = await createUser(t);
  partnerA = await newPartner(t, owner, 'Bäckerei Groß');
  partnerB = await newPartner(t, owner, 'Autohaus 100% Sicher');
  contract = await newContract(t, owner, partnerB.id, 'Leasing Kombi');
  const invoice = await newInvoice(t, owner, {
    partnerId: partnerA.id,
    documentNumber: 'RE-2026-0042',
  });
  invoiceId = invoice.id;
  await seed([
    ['a', { partnerId: partnerA.id, amount: 10, paymentDate: '2026-01-05' }],
    [
      'b',
      { partnerId: partnerB.id, direction: 'OUTGOING', amount: 250.5, paymentDate: '2026-02-10' },
    ],
    ['c', { contractId: contract.id, amount: 9.99, status: 'MARKED', paymentDate: '2026-02-28' }],
    [
      'd',
      { documentId: invoiceId, partnerName: undefined, amount: 119, paymentDate: '2026-03-01' },
    ],
    ['e', { partnerName: 'Kiosk', amount: 10, currency: 'JPY', paymentDate: '2026-03-15' }],
    [
      'f',
      {
        partnerName: 'Kiosk',
        amount: 11,
        currency: 'JPY',
        status: 'MARKED',
        paymentDate: '2026-03-31',
      },
    ],
  ]);
  // Another account's payments never show.
  const stranger = await createUser(t);
  await api.post(stranger, paymentBody({ partnerName: 'Bäckerei Groß' }));
});
afterAll(() => t.close());

describe('payments: list', () => {
  it('pages newest first with a stable cursor', async () => {
    const page1 = await api.list(owner, 'limit=4');
    expect(labels(page1)).toEqual(['f', 'e', 'd', 'c']);
    expect(page1.nextCursor).toEqual(expect.any(String));
    await api.post(owner, paymentBody({ partnerName: 'Meanwhile' }));
    const page2 = await api.list(owner, `limit=4&cursor=${page1.nextCursor}`);
    expect(labels(page2)).toEqual(['b', 'a']);
    expect(page2.nextCursor).toBeNull();
  });

  it.each([
    ['direction=OUTGOING', ['b']],
    ['status=MARKED', ['f', 'c']],
    ['source=MANUAL&currency=JPY', ['f', 'e']],
    ['partnerId=PARTNER_A', ['d', 'a']],
    ['partnerId=PARTNER_B', ['c', 'b']],
    ['contractId=CONTRACT', ['c']],
    ['documentId=INVOICE', ['d']],
    ['from=2026-02-10&to=2026-03-01', ['d', 'c', 'b']],
    ['to=2026-01-05', ['a']],
    ['source=PROVIDER', []],
    // Amount bounds in major units of each payment's own currency.
    ['minAmount=10&maxAmount=10', ['e', 'a']],
    ['minAmount=10.5&currency=JPY', ['f']],
    ['maxAmount=9.99', ['c']],
    ['minAmount=200', ['b']],
    ['q=backerei', ['d', 'a']],
    ['q=GRO%C3%9F', ['d', 'a']],
    ['q=kombi', ['c']],
    ['q=RE-2026-0042', ['d']],
    ['q=100%25', ['c', 'b']],
    ['q=_', []],
    ['direction=INCOMING&status=PENDING&minAmount=100', ['d']],
  ])('filters by %s', async (qs, expected) => {
    const query = qs
      .replace('PARTNER_A', partnerA.id)
      .replace('PARTNER_B', partnerB.id)
      .replace('CONTRACT', contract.id)
      .replace('INVOICE', invoiceId);
    expect(labels(await api.list(owner, `${query}&limit=100`)).filter(Boolean)).toEqual(expected);
  });

  it.each([
    ['cursor=garbage', '/querystring/cursor'],
    ['limit=101', '/querystring/limit'],
    ['from=2026-02-30', '/querystring/from'],
    ['to=03.03.2026', '/querystring/to'],
    ['minAmount=-1', '/querystring/minAmount'],
    ['maxAmount=abc', '/querystring/maxAmount'],
    ['status=PAID', '/querystring/status'],
    ['colour=red', '/querystring/colour'],
  ])('400 on %s', async (qs, path) => {
    const res = await t.request({ method: 'GET', url: `/v1/payments?${qs}`, token: owner.token });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path }));
  });
});
