import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { balances, billing, call, unpack, unquote, type Body } from './datev.test-support.js';

/**
 * `partnerAccounts`: each customer booked on its own debtor account, its customer number
 * frozen with the invoice, where that number is a debtor account at the account length;
 * everyone else, and every booking without the option, on the collective debtor.
 */

let t: TestApp;
let user: TestUser;
type Doc = { id: string; documentNumber: string; grossTotal: number };
const docs: Record<'numbered' | 'lettered' | 'long' | 'open', Doc> = {} as never;

async function partner(name: string, extra: Body = {}): Promise<string> {
  const created = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name,
    addresses: [billing()],
    ...extra,
  });
  return created.id;
}

const invoice = (partnerId: string, date: string) =>
  call<Doc>(t, user, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    creationDate: date,
    deliveryDate: date,
    status: 'FINAL',
    partnerId,
    lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
  });

async function pay(doc: Doc, date: string) {
  await call(t, user, 'POST', '/v1/payments', {
    direction: 'INCOMING',
    amount: doc.grossTotal,
    currency: 'EUR',
    paymentDate: date,
    status: 'MARKED',
    documentId: doc.id,
  });
}

/** The bank account of SKR03 at length 4: a payment's Konto. */
const BANK = '1200';

/** Per booking: Belegfeld 1, Konto, Gegenkonto, Buchungstext. */
async function bookings(): Promise<{ rows: string[][]; balance: Map<string, number> }> {
  const res = await t.request({
    method: 'GET',
    url: '/v1/exports/datev?from=2026-10-01&to=2026-10-31',
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(200);
  const pkg = unpack(res.rawPayload);
  const at = (name: string) => pkg.columns.indexOf(name);
  return {
    rows: pkg.rows.map((r) => [
      unquote(r[at('Belegfeld 1')]!),
      r[at('Konto')]!,
      r[at('Gegenkonto (ohne BU-Schlüssel)')]!,
      unquote(r[at('Buchungstext')]!),
    ]),
    balance: balances(pkg),
  };
}

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  const numbered = await partner('Nummer GmbH'); // 10001
  const lettered = await partner('Buchstaben AG', { partnerNumber: 'K-7' });
  const long = await partner('Lang KG', { partnerNumber: '123456' });
  docs.numbered = await invoice(numbered, '2026-10-05');
  docs.lettered = await invoice(lettered, '2026-10-06');
  docs.long = await invoice(long, '2026-10-07');
  docs.open = await invoice(numbered, '2026-10-08');
  await pay(docs.numbered, '2026-10-20');
  await pay(docs.lettered, '2026-10-21');
});
afterAll(() => t.close());

describe('DATEV: a debtor account per customer', () => {
  it('is off by default: every booking on the collective debtor', async () => {
    const settings = await call<Body>(t, user, 'PUT', '/v1/exports/datev/settings', {
      consultantNumber: 1001,
      clientNumber: 1,
    });
    expect(settings.partnerAccounts).toBe(false);
    const { rows } = await bookings();
    expect(rows.length).toBe(6);
    for (const [, konto, gegenkonto] of rows)
      expect(konto === BANK ? gegenkonto : konto).toBe('10000');
  });

  it('books customers whose number is a debtor account on it, the rest on the collective one', async () => {
    const settings = await call<Body>(t, user, 'PUT', '/v1/exports/datev/settings', {
      partnerAccounts: true,
    });
    expect(settings.partnerAccounts).toBe(true);
    const { rows, balance } = await bookings();
    const debtorOf = (number: string, payment = false) =>
      rows
        .filter(([beleg, konto]) => beleg === number && (konto === BANK) === payment)
        .map(([, konto, gegenkonto]) => (payment ? gegenkonto : konto));
    expect(debtorOf(docs.numbered.documentNumber)).toEqual(['10001']);
    expect(debtorOf(docs.numbered.documentNumber, true)).toEqual(['10001']);
    // 'K-7' is no account, 123456 has a digit too many at account length 4.
    expect(debtorOf(docs.lettered.documentNumber)).toEqual(['10000']);
    expect(debtorOf(docs.lettered.documentNumber, true)).toEqual(['10000']);
    expect(debtorOf(docs.long.documentNumber)).toEqual(['10000']);
    expect(debtorOf(docs.open.documentNumber)).toEqual(['10001']);
    // What 10001 still owes is its open invoice; the collective debtor holds Lang KG's.
    expect(balance.get('10001')).toBe(11_900);
    expect(balance.get('10000')).toBe(11_900);
  });

  it('follows the account length: five-digit numbers do not fit at length 5', async () => {
    await call(t, user, 'PUT', '/v1/exports/datev/settings', { accountLength: 5 });
    const { rows } = await bookings();
    expect(rows.filter(([, konto]) => konto === '10001')).toEqual([]);
  });
});
