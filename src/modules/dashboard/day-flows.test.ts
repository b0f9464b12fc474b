import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { insertPayments } from './dashboard.test-support.js';

/**
 * The settled money per day the database keeps (`payment_day_flows`, migration 0040) is always
 * the sum of the day's MARKED payments, summed here from the payments themselves, after every
 * kind of write: through the API (create, settle, change amount, date, direction or currency,
 * unsettle, delete) and straight into the table (as statements and restores write).
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function keptAndSummed(accountId: string) {
  const db = t.app.ctx.db;
  const kept = await db
    .selectFrom('payment_day_flows')
    .select((eb) => [
      'currency',
      'day',
      eb.fn.sum<number | string>('income').as('income'),
      eb.fn.sum<number | string>('expense').as('expense'),
    ])
    .where('account_id', '=', accountId)
    .groupBy(['currency', 'day'])
    .orderBy('currency')
    .orderBy('day')
    .execute();
  const { rows: summed } = await sql<{
    currency: string;
    day: string;
    income: string;
    expense: string;
  }>`
    select currency, payment_date as day,
      sum(case when direction = 'INCOMING' then amount else 0 end) as income,
      sum(case when direction = 'OUTGOING' then amount else 0 end) as expense
    from payments where account_id = ${accountId} and status = 'MARKED'
    group by currency, payment_date order by currency, payment_date`.execute(db);
  // A day whose payments all went stays as a row of zeros.
  const nonZero = kept
    .filter((r) => Number(r.income) !== 0 || Number(r.expense) !== 0)
    .map((r) => ({ ...r, income: Number(r.income), expense: Number(r.expense) }));
  return {
    kept: nonZero,
    summed: summed.map((r) => ({ ...r, income: Number(r.income), expense: Number(r.expense) })),
  };
}

async function expectKept(user: TestUser): Promise<number> {
  const { kept, summed } = await keptAndSummed(user.accountId);
  expect(kept).toEqual(summed);
  return kept.length;
}

type Payment = { id: string; version: number };

describe('the settled money per day', () => {
  it('follows every write of payments', async () => {
    const user = await createUser(t);
    const call = async (method: 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) => {
      const res = await t.request({
        method,
        url,
        token: user.token,
        ...(payload ? { payload } : {}),
      });
      expect(res.statusCode, res.body).toBeLessThan(300);
      return res.statusCode === 204 ? undefined : res.json<Payment>();
    };
    const pay = (body: object) =>
      call('POST', '/v1/payments', {
        direction: 'INCOMING',
        currency: 'EUR',
        paymentDate: '2026-03-01',
        status: 'MARKED',
        amount: 100,
        partnerName: 'Kunde GmbH',
        ...body,
      }) as Promise<Payment>;
    const change = (p: Payment, body: object) =>
      call('PUT', `/v1/payments/${p.id}`, { version: p.version, ...body }) as Promise<Payment>;

    const a = await pay({ amount: 120.5 });
    await pay({ amount: 30, direction: 'OUTGOING' });
    const pending = await pay({ amount: 7, status: 'PENDING' });
    await pay({ amount: 9, currency: 'USD' });
    expect(await expectKept(user)).toBe(2);
    await change(pending, { status: 'MARKED' });
    const a2 = await change(a, { amount: 99.99 });
    const a3 = await change(a2, { paymentDate: '2026-03-02' });
    const a4 = await change(a3, { direction: 'OUTGOING' });
    const a5 = await change(a4, { currency: 'USD' });
    await expectKept(user);
    const a6 = await change(a5, { status: 'PENDING' });
    await expectKept(user);
    await call('DELETE', `/v1/payments/${a6.id}`);
    const b = await pay({ amount: 5, paymentDate: '2026-03-05' });
    await call('DELETE', `/v1/payments/${b.id}`);
    expect(await expectKept(user)).toBe(2);
    // Many rows in one statement, some days shared with the API's.
    await insertPayments(
      t.app.ctx.db,
      user.accountId,
      Array.from({ length: 60 }, (_, i) => ({
        direction: i % 3 === 0 ? ('OUTGOING' as const) : ('INCOMING' as const),
        status: i % 4 === 0 ? ('PENDING' as const) : ('MARKED' as const),
        amount: 100 + i,
        paymentDate: `2026-03-0${1 + (i % 9)}`,
      })),
    );
    expect(await expectKept(user)).toBeGreaterThanOrEqual(9);
    // One statement settling many at once.
    await t.app.ctx.db
      .updateTable('payments')
      .set({ status: 'MARKED' })
      .where('account_id', '=', user.accountId)
      .where('status', '=', 'PENDING')
      .execute();
    await expectKept(user);
  });
});
