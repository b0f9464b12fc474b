import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import {
  DayClock,
  getJson,
  insertPayments,
  marked,
  putAnchor,
  type Series,
} from './dashboard.test-support.js';

const TODAY = '2026-03-10';
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ clock: new DayClock(TODAY) });
});
afterAll(() => t.close());

interface Problem {
  code: string;
  detail: string;
  errors?: { path: string; code: string; message: string }[];
}

const url = (qs: string) => `/v1/dashboard/timeseries?${qs}`;
const series = (user: TestUser, qs: string) => getJson<Series>(t, user, url(qs));
const balances = (s: Series) => Object.fromEntries(s.buckets.map((b) => [b.end, b.balance]));
const stats = (user: TestUser) =>
  getJson<{ balance: number | null; asOf: string }>(t, user, '/v1/dashboard/stats');

async function anchored(openingBalance: number, effectiveDate: string): Promise<TestUser> {
  const user = await createUser(t);
  const res = await putAnchor(t, user, { openingBalance, effectiveDate });
  if (res.statusCode !== 200) throw new Error(res.body);
  return user;
}

describe('balance across the anchor date', () => {
  it('counts a payment on the anchor date as inside the anchor, on both sides of it', async () => {
    const user = await anchored(1000, '2026-03-01');
    await insertPayments(t.app.ctx.db, user.accountId, [
      marked('OUTGOING', 2000, '2026-02-27'),
      marked('INCOMING', 5000, '2026-02-28'),
      marked('INCOMING', 10000, '2026-03-01'), // on the anchor date: already in the 1000
      marked('OUTGOING', 3000, '2026-03-02'),
      // Never counted: open, or in another currency than the account's (EUR).
      { direction: 'INCOMING', status: 'PENDING', amount: 70000, paymentDate: '2026-03-02' },
      { direction: 'OUTGOING', status: 'PENDING', amount: 70000, paymentDate: '2026-02-27' },
      { ...marked('INCOMING', 90000, '2026-03-02'), currency: 'GBP' },
      { ...marked('OUTGOING', 90000, '2026-02-27'), currency: 'USD' },
    ]);
    const s = await series(user, 'from=2026-02-26&to=2026-03-03&interval=day');
    // Before the anchor date: anchor − the settled net of (D, 2026-03-01].
    expect(s.openingBalance).toBe(870); // end of 02-25: 1000 − (−20 + 50 + 100)
    expect(balances(s)).toEqual({
      '2026-02-26': 870,
      '2026-02-27': 850, // 1000 − (50 + 100)
      '2026-02-28': 900, // 1000 − 100
      '2026-03-01': 1000, // the anchor itself
      '2026-03-02': 970, // after it: anchor + settled net of (03-01, D]
      '2026-03-03': 970,
    });
    expect(s.buckets.map((b) => [b.income, b.expense, b.net])).toEqual([
      [0, 0, 0],
      [0, 20, -20],
      [50, 0, 50],
      [100, 0, 100],
      [0, 30, -30],
      [0, 0, 0],
    ]);
    expect((await stats(user)).balance).toBe(970);
  });

  it('works with the anchor after the range, and after today', async () => {
    const user = await anchored(500, '2026-03-11'); // tomorrow is allowed
    await insertPayments(t.app.ctx.db, user.accountId, [
      marked('INCOMING', 1234, '2026-03-11'), // inside the anchor
      marked('OUTGOING', 999, '2026-03-10'),
      marked('INCOMING', 100, '2026-01-15'),
    ]);
    // today (03-10) is before the anchor: 500 − 12.34 (03-11); the 03-10 payment is before it.
    expect((await stats(user)).balance).toBe(487.66);
    const s = await series(user, 'from=2026-01-01&to=2026-03-10&interval=month');
    expect(s.buckets.map((b) => b.balance)).toEqual([
      497.65, // end of January: before −9.99 on 03-10
      497.65,
      487.66,
    ]);
    expect(s.openingBalance).toBe(496.65);
  });

  it('answers null balances without an anchor, but still income and expense', async () => {
    const user = await createUser(t);
    await insertPayments(t.app.ctx.db, user.accountId, [marked('INCOMING', 4200, '2026-03-05')]);
    const s = await series(user, 'from=2026-03-01&to=2026-03-10&interval=week');
    expect(s.openingBalance).toBeNull();
    expect(s.buckets.every((b) => b.balance === null)).toBe(true);
    expect(s.buckets.map((b) => b.income)).toEqual([0, 42, 0]); // Sun 03-01, 03-02…08, 03-09…10
    expect((await stats(user)).balance).toBeNull();
  });
});

describe('buckets', () => {
  it('honours leap days and month ends in month buckets', async () => {
    const user = await anchored(0, '2023-12-31');
    await insertPayments(t.app.ctx.db, user.accountId, [
      marked('INCOMING', 100, '2024-01-31'),
      marked('INCOMING', 200, '2024-02-01'),
      marked('INCOMING', 300, '2024-02-29'),
      marked('INCOMING', 400, '2024-03-01'),
      marked('OUTGOING', 50, '2024-04-30'),
      marked('INCOMING', 600, '2025-02-28'),
      marked('INCOMING', 700, '2025-03-01'),
    ]);
    const s = await series(user, 'from=2024-01-01&to=2025-03-31&interval=month');
    expect(s.buckets).toHaveLength(15);
    const feb = s.buckets[1]!;
    expect(feb).toMatchObject({ start: '2024-02-01', end: '2024-02-29', partial: false });
    expect(feb.income).toBe(5); // 2 + 3: the leap day belongs to February
    expect(s.buckets[0]).toMatchObject({ end: '2024-01-31', income: 1, balance: 1 });
    expect(s.buckets[2]).toMatchObject({
      start: '2024-03-01',
      end: '2024-03-31',
      income: 4,
      balance: 10,
    });
    expect(s.buckets[3]).toMatchObject({
      end: '2024-04-30',
      expense: 0.5,
      net: -0.5,
      balance: 9.5,
    });
    expect(s.buckets[13]).toMatchObject({ start: '2025-02-01', end: '2025-02-28', income: 6 });
    expect(s.buckets[14]).toMatchObject({ end: '2025-03-31', income: 7, balance: 22.5 });

    const days = await series(user, 'from=2024-02-28&to=2024-03-01&interval=day');
    expect(days.buckets.map((b) => [b.start, b.income, b.balance])).toEqual([
      ['2024-02-28', 0, 3],
      ['2024-02-29', 3, 6],
      ['2024-03-01', 4, 10],
    ]);
  });

  it('cuts ISO weeks Monday to Sunday across a year boundary', async () => {
    const user = await anchored(100, '2025-12-20');
    await insertPayments(t.app.ctx.db, user.accountId, [
      marked('INCOMING', 1000, '2025-12-28'), // Sunday: the week of Mon 12-22
      marked('INCOMING', 2000, '2025-12-29'), // Monday of ISO week 1 of 2026
      marked('OUTGOING', 500, '2025-12-31'),
      marked('INCOMING', 3000, '2026-01-01'),
      marked('INCOMING', 4000, '2026-01-04'), // Sunday, still week 1
      marked('INCOMING', 5000, '2026-01-05'), // Monday, week 2
    ]);
    const s = await series(user, 'from=2025-12-24&to=2026-01-07&interval=week');
    expect(
      s.buckets.map((b) => [b.start, b.end, b.partial, b.income, b.expense, b.balance]),
    ).toEqual([
      ['2025-12-24', '2025-12-28', true, 10, 0, 110],
      ['2025-12-29', '2026-01-04', false, 90, 5, 195],
      ['2026-01-05', '2026-01-07', true, 50, 0, 245],
    ]);
  });

  it('defaults to 12 months up to today, the last one partial', async () => {
    const user = await anchored(10, '2026-03-01');
    const s = await series(user, '');
    expect(s).toMatchObject({ from: '2025-04-01', to: TODAY, interval: 'month', currency: 'EUR' });
    expect(s.buckets).toHaveLength(12);
    expect(s.buckets.at(-1)).toMatchObject({ start: '2026-03-01', end: TODAY, partial: true });
    const week = await series(user, 'interval=week');
    expect(week.buckets).toHaveLength(12);
    expect(week.from).toBe('2025-12-22'); // a Monday, 11 weeks before the week of today
    const day = await series(user, 'interval=day&to=2026-03-01');
    expect(day).toMatchObject({ from: '2026-01-31', to: '2026-03-01' });
    expect(day.buckets).toHaveLength(30);
  });

  it('serves ten years of days, and no more', async () => {
    const user = await anchored(0, '2026-01-01');
    const s = await series(user, 'from=2019-03-11&to=2029-03-10&interval=day');
    expect(s.buckets).toHaveLength(3653); // three leap days: 2020, 2024, 2028
    const res = await t.request({
      method: 'GET',
      url: url('from=2019-03-10&to=2029-03-10&interval=day'),
      token: user.token,
    });
    expect(res.statusCode).toBe(400);
    const body = res.json<Problem>();
    expect(body.errors).toEqual([
      expect.objectContaining({ path: '/querystring/to', code: 'out_of_range' }),
    ]);
    expect(body.detail).toMatch(/10 years/);
  });
});

describe('query validation', () => {
  const cases: [string, string, string][] = [
    ['from=2026-03-10&to=2026-03-09', '/querystring/to', 'out_of_range'],
    ['from=2026-03-11', '/querystring/to', 'out_of_range'], // to defaults to today
    ['from=2026-02-30&to=2026-03-09', '/querystring/from', 'invalid_format'],
    ['from=2026-03-01&to=2026-13-01', '/querystring/to', 'invalid_format'],
    ['from=01.03.2026', '/querystring/from', 'invalid_format'],
    ['from=1899-12-31&to=1900-01-05', '/querystring/from', 'out_of_range'],
    ['from=9999-12-31&to=9999-12-31', '/querystring/from', 'out_of_range'],
    ['from=2999-12-01&to=3000-01-01', '/querystring/to', 'out_of_range'],
    ['interval=year', '/querystring/interval', 'not_in_enum'],
    ['bucket=day', '/querystring/bucket', 'unknown_field'],
  ];
  it.each(cases)('%s → 400 at %s', async (qs, path, code) => {
    const user = await createUser(t);
    const res = await t.request({ method: 'GET', url: url(qs), token: user.token });
    expect(res.statusCode, res.body).toBe(400);
    const body = res.json<Problem>();
    expect(body.code).toBe('validation_failed');
    expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('needs a bearer token', async () => {
    const res = await t.request({ method: 'GET', url: url('interval=day') });
    expect(res.statusCode).toBe(401);
    const stats = await t.request({ method: 'GET', url: '/v1/dashboard/stats' });
    expect(stats.statusCode).toBe(401);
  });

  it('keeps accounts apart', async () => {
    const a = await anchored(1, '2026-03-01');
    const b = await anchored(1, '2026-03-01');
    await insertPayments(t.app.ctx.db, a.accountId, [marked('INCOMING', 100000, '2026-03-05')]);
    const s = await series(b, 'from=2026-03-01&to=2026-03-10&interval=month');
    expect(s.buckets[0]).toMatchObject({ income: 0, balance: 1 });
  });
});
