import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { addDays, type Interval } from './buckets.js';
import { DashboardService } from './dashboard.service.js';
import {
  getJson,
  insertPayments,
  putAnchor,
  type Series,
  type TestPayment,
} from './dashboard.test-support.js';
import { report } from '../../../test/report.js';

/**
 * Figures for the closing note (issue 5): the time series over five years of daily data. The
 * times are printed, not asserted (a loaded CI machine must not fail the suite); the test
 * does assert that the answers are complete and add up.
 */

const TODAY = '2026-03-10';
const FROM = '2021-03-11'; // five years up to today
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(`${TODAY}T09:00:00Z`)) });
});
afterAll(() => t.close());

/** `perDay` payments on each day of `from..to`, alternating directions and statuses. */
function generate(from: string, to: string, perDay: number): TestPayment[] {
  const out: TestPayment[] = [];
  let n = 0;
  for (let day = from; day <= to; day = addDays(day, 1))
    for (let k = 0; k < perDay; k++, n++)
      out.push({
        direction: n % 3 === 0 ? 'OUTGOING' : 'INCOMING',
        status: n % 7 === 0 ? 'PENDING' : 'MARKED',
        amount: 1 + ((n * 7919) % 250_000),
        paymentDate: day,
      });
  return out;
}

/** Median milliseconds of 9 runs after 2 warm-up runs (statement cache, page cache, JIT). */
async function median<T>(run: () => Promise<T>): Promise<{ ms: number; result: T }> {
  await run();
  await run();
  const runs: number[] = [];
  let result: T | undefined;
  for (let i = 0; i < 9; i++) {
    const start = process.hrtime.bigint();
    result = await run();
    runs.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  runs.sort((a, b) => a - b);
  return { ms: runs[4]!, result: result! };
}

/** Through HTTP (`app.inject`: routing, auth, serialisation) and the service alone (SQL + JS). */
async function timed(
  user: TestUser,
  interval: Interval,
): Promise<{ ms: number; serviceMs: number; body: Series }> {
  const url = `/v1/dashboard/timeseries?from=${FROM}&to=${TODAY}&interval=${interval}`;
  const http = await median(() => getJson<Series>(t, user, url));
  const service = new DashboardService(t.app.ctx);
  const direct = await median(() =>
    service.timeseries(user.accountId, { from: FROM, to: TODAY, interval }),
  );
  expect(direct.result.buckets.at(-1)!.balance).toBe(http.result.buckets.at(-1)!.balance);
  return { ms: http.ms, serviceMs: direct.ms, body: http.result };
}

async function measure(label: string, perDay: number): Promise<void> {
  const user = await createUser(t);
  const payments = generate(FROM, TODAY, perDay);
  await insertPayments(t.app.ctx.db, user.accountId, payments);
  // A second account's payments on the same days: the index must keep accounts apart.
  const other = await createUser(t);
  await insertPayments(t.app.ctx.db, other.accountId, payments.slice(0, 5000));
  expect(
    (await putAnchor(t, user, { openingBalance: 1000, effectiveDate: '2023-06-30' })).statusCode,
  ).toBe(200);
  // What autovacuum does after a bulk load: statistics, and the visibility map that lets
  // PostgreSQL answer from the covering index alone.
  if (dbKind === 'postgres') await sql`vacuum analyze payments`.execute(t.app.ctx.db);

  const day = await timed(user, 'day');
  const week = await timed(user, 'week');
  const month = await timed(user, 'month');
  const stats = await getJson<{ balance: number }>(t, user, '/v1/dashboard/stats');

  expect(day.body.buckets).toHaveLength(1826);
  // Every series closes on today's balance, whatever the bucket size.
  for (const s of [day, week, month]) expect(s.body.buckets.at(-1)!.balance).toBe(stats.balance);
  const settled = payments.filter((p) => p.status === 'MARKED');
  const income = settled
    .filter((p) => p.direction === 'INCOMING')
    .reduce((s, p) => s + p.amount, 0);
  const sumIncome = day.body.buckets.reduce((s, b) => s + Math.round(b.income * 100), 0);
  expect(sumIncome).toBe(income);

  const timings = { 'day (1826 buckets)': day, week, month };
  const parts = Object.entries(timings).map(
    ([name, r]) => `${name} ${r.ms.toFixed(1)} ms (service ${r.serviceMs.toFixed(1)} ms)`,
  );
  report(
    `[dashboard timeseries, ${dbKind}] ${label}: ${payments.length} payments over 5 years: ` +
      `${parts.join(', ')}; median of 9, HTTP through app.inject, service = SQL + bucketing\n`,
  );
}

describe('timeseries over five years of daily data (printed, not asserted)', () => {
  it('4 payments a day (≈ 7 300 rows)', () => measure('4/day', 4), 120_000);
  it('≈ 50 000 rows', () => measure('27/day', 27), 300_000);
});
