import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp } from '../../../test/helpers.js';
import { toMajor } from '../../shared/money.js';
import { addDays, INTERVALS } from './buckets.js';
import {
  DayClock,
  getJson,
  insertPayments,
  putAnchor,
  type Series,
  type TestPayment,
} from './dashboard.test-support.js';

/**
 * The balance rule as a property (issue 5): for random anchors and random payments (both
 * directions, both statuses, a foreign currency now and then, many on the anchor date), the
 * API's balance on every day equals the anchor plus settled incoming minus settled outgoing,
 * computed naively here from the definition; and a time series up to today closes on the
 * stats' balance.
 */

let t: TestApp;
let clock: DayClock;

beforeAll(async () => {
  clock = new DayClock('2026-03-10');
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

interface Case {
  anchor: number;
  anchorDate: string;
  payments: TestPayment[];
  today: string;
  rangeFrom: string;
  rangeDays: number;
  seriesFrom: string;
  interval: (typeof INTERVALS)[number];
}

/** Minor units: the anchor, plus settled EUR payments after the anchor date up to `day`,
 * minus those after `day` up to the anchor date. Straight from the definition. */
function naiveBalance(c: Case, day: string): number {
  let balance = c.anchor;
  for (const p of c.payments) {
    if (p.status !== 'MARKED' || (p.currency ?? 'EUR') !== 'EUR') continue;
    const signed = p.direction === 'INCOMING' ? p.amount : -p.amount;
    if (p.paymentDate > c.anchorDate && p.paymentDate <= day) balance += signed;
    if (p.paymentDate > day && p.paymentDate <= c.anchorDate) balance -= signed;
  }
  return balance;
}

function naiveFlows(c: Case, from: string, to: string): { income: number; expense: number } {
  let income = 0;
  let expense = 0;
  for (const p of c.payments) {
    if (p.status !== 'MARKED' || (p.currency ?? 'EUR') !== 'EUR') continue;
    if (p.paymentDate < from || p.paymentDate > to) continue;
    if (p.direction === 'INCOMING') income += p.amount;
    else expense += p.amount;
  }
  return { income, expense };
}

const minor = (major: number | null) => (major === null ? null : Math.round(major * 100));

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    anchor: fc.integer({ min: -10_000_000_000, max: 10_000_000_000 }),
    anchorDay: fc.integer({ min: 0, max: 2500 }),
    payments: fc.array(
      fc.record({
        direction: fc.constantFrom('INCOMING' as const, 'OUTGOING' as const),
        status: fc.constantFrom('PENDING' as const, 'MARKED' as const),
        amount: fc.integer({ min: 1, max: 100_000_000 }),
        // Around the anchor date; fast-check favours small offsets, so 0 (on it) is common.
        offset: fc.integer({ min: -400, max: 400 }),
        currency: fc.constantFrom('EUR', 'EUR', 'EUR', 'GBP'),
      }),
      { maxLength: 40 },
    ),
    todayOffset: fc.integer({ min: -1, max: 500 }), // the anchor may be tomorrow
    rangeOffset: fc.integer({ min: -450, max: 450 }),
    rangeDays: fc.integer({ min: 1, max: 400 }),
    seriesBack: fc.integer({ min: 0, max: 900 }),
    interval: fc.constantFrom(...INTERVALS),
  })
  .map((r) => {
    const anchorDate = addDays('2020-01-01', r.anchorDay);
    const today = addDays(anchorDate, r.todayOffset);
    return {
      anchor: r.anchor,
      anchorDate,
      payments: r.payments.map((p) => ({
        direction: p.direction,
        status: p.status,
        amount: p.amount,
        currency: p.currency,
        paymentDate: addDays(anchorDate, p.offset),
      })),
      today,
      rangeFrom: addDays(anchorDate, r.rangeOffset),
      rangeDays: r.rangeDays,
      seriesFrom: addDays(today, -r.seriesBack),
      interval: r.interval,
    };
  });

describe('balance property', () => {
  it('equals anchor + settled incoming − settled outgoing on every day', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        clock.set(c.today);
        const user = await createUser(t);
        await insertPayments(t.app.ctx.db, user.accountId, c.payments);
        const put = await putAnchor(t, user, {
          openingBalance: toMajor(c.anchor, 'EUR'),
          effectiveDate: c.anchorDate,
        });
        expect(put.statusCode, put.body).toBe(200);

        // Every day of a random range, by day buckets.
        const to = addDays(c.rangeFrom, c.rangeDays - 1);
        const days = await getJson<Series>(
          t,
          user,
          `/v1/dashboard/timeseries?from=${c.rangeFrom}&to=${to}&interval=day`,
        );
        expect(days.buckets).toHaveLength(c.rangeDays);
        expect(minor(days.openingBalance)).toBe(naiveBalance(c, addDays(c.rangeFrom, -1)));
        for (const b of days.buckets) expect(minor(b.balance)).toBe(naiveBalance(c, b.end));

        // A series of random buckets up to today closes on the stats' balance of today.
        const series = await getJson<Series>(
          t,
          user,
          `/v1/dashboard/timeseries?from=${c.seriesFrom}&to=${c.today}&interval=${c.interval}`,
        );
        const stats = await getJson<{ balance: number; asOf: string }>(
          t,
          user,
          '/v1/dashboard/stats',
        );
        expect(stats.asOf).toBe(c.today);
        expect(minor(stats.balance)).toBe(naiveBalance(c, c.today));
        expect(series.buckets.at(-1)!.balance).toBe(stats.balance);
        for (const b of series.buckets) {
          const flows = naiveFlows(c, b.start, b.end);
          expect([minor(b.income), minor(b.expense), minor(b.balance)]).toEqual([
            flows.income,
            flows.expense,
            naiveBalance(c, b.end),
          ]);
        }
      }),
      { numRuns: 60 },
    );
  }, 300_000);
});
