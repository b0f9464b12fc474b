/**
 * A payment's create sends what it can ahead: on PostgreSQL the account's webhook endpoints go
 * out with the invoice's read and BEGIN, the new row with the settlement's read of the invoice,
 * and the invoice's standing (the answer's `document`) with the audit event and the COMMIT:
 * four round trips where it took seven. The answer stays the one the reading way gave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { roundsOf } from '../../../test/pg-rounds.js';
import { billingAddress } from '../documents/documents.test-support.js';

let t: TestApp;
let user: TestUser;
let invoiceId: string;

type Answer = Record<string, unknown> & { id: string; version: number };
const send = (method: 'GET' | 'POST', url: string, payload?: object) =>
  t.request({ method, url, token: user.token, ...(payload ? { payload } : {}) });
const pay = (amount: number) =>
  send('POST', '/v1/payments', {
    direction: 'INCOMING',
    documentId: invoiceId,
    amount,
    currency: 'EUR',
    paymentDate: '2026-11-20',
    paymentMethod: 'BANK_TRANSFER',
  });

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  const partner = await send('POST', '/v1/partners', {
    name: 'Kunde GmbH',
    addresses: [billingAddress('rechnung@kunde.example')],
  });
  const invoice = await send('POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    partnerId: partner.json<Answer>().id,
    creationDate: '2026-11-20',
    lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
  });
  expect(invoice.statusCode, invoice.body).toBe(201);
  invoiceId = invoice.json<Answer>().id;
});
afterAll(() => t.close());

describe.runIf(dbKind === 'postgres')('a payment on PostgreSQL', () => {
  it('is created in four round trips', async () => {
    expect((await pay(1)).statusCode).toBe(201);
    let answer: Answer | undefined;
    const rounds = await roundsOf(async () => {
      const res = await pay(2);
      expect(res.statusCode, res.body).toBe(201);
      answer = res.json<Answer>();
    });
    const commit = rounds.findIndex((r) => r.at(-1) === 'commit');
    expect(commit, JSON.stringify(rounds)).toBe(3);
    expect(rounds[0]![0]).toBe('begin');
    expect(rounds[0]!.some((s) => s.includes('from "webhook_endpoints"'))).toBe(true);
    expect(rounds[0]!.some((s) => s.includes('from "documents"'))).toBe(true);
    expect(rounds[2]![0]).toMatch(/^insert into "payments"/);
    expect(answer).toMatchObject({ amount: 2, status: 'MARKED' });
  });
});

describe('a payment created with its reads sent ahead', () => {
  it('answers its invoice as it stands after the payment, as a read of the payment does', async () => {
    const first = await pay(3);
    expect(first.statusCode, first.body).toBe(201);
    const res = await pay(4);
    expect(res.statusCode, res.body).toBe(201);
    const owed = (answer: Answer) => (answer.document as { openAmount: number }).openAmount;
    expect(owed(res.json<Answer>())).toBeCloseTo(owed(first.json<Answer>()) - 4, 2);
    const invoice = (await send('GET', `/v1/documents/${invoiceId}`)).json<Answer>();
    expect(res.json()).toMatchObject({
      documentId: invoiceId,
      document: { id: invoiceId, paymentStatus: invoice.paymentStatus },
    });
    const read = (await send('GET', `/v1/payments/${res.json<Answer>().id}`)).json<Answer>();
    expect(read.document).toEqual(res.json<Answer>().document);
  });

  it('refuses a payment of an unknown invoice with 422 and writes nothing', async () => {
    const count = async () =>
      (await send('GET', '/v1/payments?limit=100')).json<{ data: Answer[] }>().data.length;
    const before = await count();
    const res = await send('POST', '/v1/payments', {
      direction: 'INCOMING',
      documentId: 'doc_missing',
      amount: 1,
      currency: 'EUR',
      paymentDate: '2026-11-20',
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(await count()).toBe(before);
  });
});
