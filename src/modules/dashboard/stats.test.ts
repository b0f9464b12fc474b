import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { newContract, newPartner } from '../contracts/contracts.test-support.js';
import {
  DayClock,
  getJson,
  insertPayments,
  marked,
  patchSettings,
  putAnchor,
} from './dashboard.test-support.js';

/**
 * The stats on one hand-made data set (today 2026-03-10): every figure is worked out by hand
 * in the comments, so a wrong aggregate shows as a wrong number.
 */

const TODAY = '2026-03-10';
let clock: DayClock;
let t: TestApp;
let admin: TestUser;

interface Stats {
  asOf: string;
  currency: string;
  balance: number | null;
  cashAnchor: unknown;
  receivables: { amount: number; count: number };
  payables: { amount: number; count: number };
  pendingIncomingPayments: { amount: number; count: number };
  pendingOutgoingPayments: { amount: number; count: number };
  thisMonth: { month: string; income: number; expense: number; net: number };
  lastMonth: { month: string; income: number; expense: number; net: number };
  budgetsSuppressed: boolean;
  budgets: { month: string; truncated: boolean; categories: Record<string, unknown>[] } | null;
  contracts: Record<string, number>;
  reminders: { count: number; overdueCount: number; next: { title: string; dueDate: string }[] };
  cancellationDeadlines: {
    count: number;
    next: { contractId: string; name: string; cancellationDeadline: string }[];
  };
}

const stats = (user: TestUser = admin) => getJson<Stats>(t, user, '/v1/dashboard/stats');

async function post(url: string, payload: Record<string, unknown>): Promise<{ id: string }> {
  const res = await t.request({ method: 'POST', url, token: admin.token, payload });
  if (res.statusCode !== 201) throw new Error(`POST ${url}: ${res.body}`);
  return res.json<{ id: string }>();
}

let partnerId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  clock = new DayClock(TODAY);
  t = await buildTestApp({ clock });
  admin = await createUser(t);
  const db = t.app.ctx.db;

  expect(
    (await putAnchor(t, admin, { openingBalance: 10000, effectiveDate: '2026-02-28' })).statusCode,
  ).toBe(200);
  await insertPayments(db, admin.accountId, [
    marked('INCOMING', 100000, '2026-03-02'),
    marked('OUTGOING', 25050, '2026-03-05'),
    marked('INCOMING', 30000, '2026-03-25'), // this month, but after today
    marked('INCOMING', 40000, '2026-02-28'), // last month, on the anchor date
    marked('OUTGOING', 9999, '2026-02-01'),
    marked('INCOMING', 500, '2026-01-31'),
    { ...marked('INCOMING', 5000, '2026-03-03'), currency: 'GBP' },
    { direction: 'INCOMING', status: 'PENDING', amount: 12000, paymentDate: '2026-03-20' },
    { direction: 'INCOMING', status: 'PENDING', amount: 8000, paymentDate: '2026-01-01' },
    { direction: 'OUTGOING', status: 'PENDING', amount: 4545, paymentDate: '2026-03-15' },
    {
      direction: 'OUTGOING',
      status: 'PENDING',
      amount: 1000,
      paymentDate: '2026-03-15',
      currency: 'USD',
    },
  ]);
  // Another account's payments never show.
  const other = await createUser(t);
  await insertPayments(db, other.accountId, [
    marked('INCOMING', 777700, '2026-03-02'),
    { direction: 'INCOMING', status: 'PENDING', amount: 777700, paymentDate: '2026-03-02' },
  ]);

  const office = await post('/v1/budget-categories', {
    name: 'Büro',
    monthlyLimit: 500,
    currency: 'EUR',
    keywords: [],
    active: true,
  });
  await post('/v1/budget-categories', {
    name: 'Reisen',
    monthlyLimit: 1000,
    currency: 'EUR',
    keywords: [],
    active: true,
  });
  const old = await post('/v1/budget-categories', {
    name: 'Alt',
    monthlyLimit: 1,
    currency: 'EUR',
    keywords: [],
    active: false,
  });
  for (const [categoryId, amount, entryDate] of [
    [office.id, 200, '2026-03-01'],
    [office.id, 350.5, '2026-03-31'],
    [office.id, 100, '2026-02-28'], // last month
    [old.id, 50, '2026-03-05'], // inactive category
  ] as const)
    await post('/v1/budget-entries', { categoryId, amount, currency: 'EUR', entryDate });

  partnerId = (await newPartner(t, admin)).id;
  const contract = async (key: string, extra: Record<string, unknown>) => {
    ids[key] = (
      await newContract(t, admin, partnerId, { name: key, status: 'ACTIVE', ...extra })
    ).id;
  };
  await contract('monthly', { totalValue: 100, advanced: { billingCycle: 'MONTHLY' } });
  await contract('quarterly', { totalValue: 100.01, advanced: { billingCycle: 'QUARTERLY' } });
  await contract('yearly', { totalValue: 1000.06, advanced: { billingCycle: 'YEARLY' } });
  await contract('once', { totalValue: 500, advanced: { billingCycle: 'ONE_TIME' } });
  await contract('plain', { totalValue: 77 });
  await contract('dollars', {
    totalValue: 999,
    currency: 'USD',
    advanced: { billingCycle: 'MONTHLY' },
  });
  await contract('draft', {
    status: 'DRAFT',
    totalValue: 5000,
    advanced: { billingCycle: 'MONTHLY' },
    endDate: '2026-03-25',
  });
  // Cancellation deadlines (window 2026-03-10 … 2026-05-09), all without a billing cycle:
  await contract('d-mar31', {
    totalValue: 0,
    endDate: '2026-04-30',
    advanced: { noticePeriodDays: 30 },
  });
  await contract('d-mar20', { totalValue: 0, endDate: '2026-03-20' });
  await contract('d-dec01', {
    totalValue: 0,
    endDate: '2026-12-31',
    advanced: { noticePeriodDays: 30 },
  });
  await contract('d-past', {
    totalValue: 0,
    endDate: '2026-03-15',
    advanced: { noticePeriodDays: 14 },
  });
  await contract('d-renews', {
    totalValue: 0,
    endDate: '2026-03-20',
    advanced: { autoRenew: true, renewalMonths: 1, noticePeriodDays: 5 },
  });

  const reminder = (title: string, dueDate: string) =>
    post('/v1/notes', {
      parentType: 'PARTNER',
      parentId: partnerId,
      type: 'REMINDER',
      title,
      content: '',
      dueDate,
    });
  await reminder('today', '2026-03-10');
  await reminder('last day of the window', '2026-04-09');
  await reminder('after the window', '2026-04-10');
  await reminder('overdue', '2026-03-01');
  for (const day of ['11', '12', '13', '14']) await reminder(`march ${day}`, `2026-03-${day}`);
  const done = await reminder('done', '2026-03-12');
  const put = await t.request({
    method: 'PUT',
    url: `/v1/notes/${done.id}`,
    token: admin.token,
    payload: { version: 1, done: true },
  });
  expect(put.statusCode, put.body).toBe(200);
  await post('/v1/notes', {
    parentType: 'PARTNER',
    parentId: partnerId,
    title: 'a plain note',
    content: '',
  });
});
afterAll(() => t.close());

describe('GET /v1/dashboard/stats', () => {
  it('answers the balance, open items and monthly flows', async () => {
    const s = await stats();
    expect(s.asOf).toBe(TODAY);
    expect(s.currency).toBe('EUR');
    expect(s.cashAnchor).toEqual({
      openingBalance: 10000,
      currency: 'EUR',
      effectiveDate: '2026-02-28',
    });
    // 10 000 + 1 000 − 250.50; the 400 of 02-28 is inside the anchor, the 03-25 one in the future.
    expect(s.balance).toBe(10749.5);
    expect(s.pendingIncomingPayments).toEqual({ amount: 200, count: 2 });
    expect(s.pendingOutgoingPayments).toEqual({ amount: 45.45, count: 1 });
    // No invoices in this data set (receivables.test.ts has them): nothing owed.
    expect(s.receivables).toEqual({ amount: 0, count: 0 });
    expect(s.payables).toEqual({ amount: 0, count: 0 });
    expect(s.thisMonth).toEqual({ month: '2026-03', income: 1300, expense: 250.5, net: 1049.5 });
    expect(s.lastMonth).toEqual({ month: '2026-02', income: 400, expense: 99.99, net: 300.01 });
  });

  it('answers budget use per ACTIVE category this month', async () => {
    const s = await stats();
    expect(s.budgetsSuppressed).toBe(false);
    expect(s.budgets).toEqual({
      month: '2026-03',
      truncated: false,
      categories: [
        {
          categoryId: expect.any(String),
          name: 'Büro',
          currency: 'EUR',
          limit: 500,
          spent: 550.5,
          remaining: -50.5,
          overLimit: true,
        },
        {
          categoryId: expect.any(String),
          name: 'Reisen',
          currency: 'EUR',
          limit: 1000,
          spent: 0,
          remaining: 1000,
          overLimit: false,
        },
      ],
    });
  });

  it('honours budgetsSuppressed', async () => {
    await patchSettings(t, admin, { budgetsSuppressed: true });
    let s = await stats();
    expect(s.budgetsSuppressed).toBe(true);
    expect(s.budgets).toBeNull();
    expect(s.balance).toBe(10749.5); // nothing else changes
    await patchSettings(t, admin, { budgetsSuppressed: false });
    s = await stats();
    expect(s.budgets?.categories).toHaveLength(2);
  });

  it('answers the contracts’ monthly value, normalised per billing cycle', async () => {
    const s = await stats();
    expect(s.contracts).toEqual({
      // monthly, quarterly, yearly, once, plain, dollars and the five deadline contracts.
      activeCount: 11,
      // (12 × 100.00 + 4 × 100.01 + 1000.06) / 12 = 216.675 → 216.68 (half-up, once).
      monthlyValue: 216.68,
      recurringCount: 3,
      oneTimeCount: 1,
      oneTimeValue: 500,
      withoutBillingCycleCount: 6,
      otherCurrencyCount: 1,
    });
  });

  it('answers upcoming reminders and cancellation deadlines', async () => {
    const s = await stats();
    expect(s.reminders.count).toBe(6); // today, 11–14 March, 9 April
    expect(s.reminders.overdueCount).toBe(1);
    expect(s.reminders.next.map((r) => [r.title, r.dueDate])).toEqual([
      ['today', '2026-03-10'],
      ['march 11', '2026-03-11'],
      ['march 12', '2026-03-12'],
      ['march 13', '2026-03-13'],
      ['march 14', '2026-03-14'],
    ]);
    expect(s.cancellationDeadlines.count).toBe(3);
    expect(s.cancellationDeadlines.next.map((d) => [d.name, d.cancellationDeadline])).toEqual([
      ['d-renews', '2026-03-15'],
      ['d-mar20', '2026-03-20'],
      ['d-mar31', '2026-03-31'],
    ]);
  });

  it('rolls an auto-renewing contract’s deadline forward without a write', async () => {
    clock.set('2026-03-25');
    try {
      const s = await stats();
      // d-renews: its term end 03-20 passed, the next term ends 04-20 → notice by 04-15.
      expect(s.cancellationDeadlines.next.map((d) => [d.name, d.cancellationDeadline])).toEqual([
        ['d-mar31', '2026-03-31'],
        ['d-renews', '2026-04-15'],
      ]);
      expect(s.cancellationDeadlines.count).toBe(2);
    } finally {
      clock.set(TODAY);
    }
  });

  it('answers an empty account without failing', async () => {
    const user = await createUser(t);
    const s = await stats(user);
    expect(s).toMatchObject({
      balance: null,
      cashAnchor: null,
      receivables: { amount: 0, count: 0 },
      overdueReceivables: { amount: 0, count: 0 },
      payables: { amount: 0, count: 0 },
      overduePayables: { amount: 0, count: 0 },
      pendingIncomingPayments: { amount: 0, count: 0 },
      pendingOutgoingPayments: { amount: 0, count: 0 },
      thisMonth: { income: 0, expense: 0, net: 0 },
      budgets: { categories: [], truncated: false },
      contracts: { activeCount: 0, monthlyValue: 0 },
      reminders: { count: 0, overdueCount: 0, next: [] },
      cancellationDeadlines: { count: 0, next: [] },
    });
  });
});
