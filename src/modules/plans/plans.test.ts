import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { ManualClock, MINUTE } from '../../shared/clock.js';
import { DEFAULT_PLANS } from './plans.catalogue.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
});
afterAll(() => t.close());

describe('plans and licenses', () => {
  it('lists the catalogue with the account’s plan, and the license', async () => {
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    const plans = await t.request({ method: 'GET', url: '/v1/plans', token: member.token });
    expect(plans.statusCode).toBe(200);
    expect(plans.json().currentPlanId).toBe('FREE');
    expect(plans.json().data.map((p: { id: string }) => p.id)).toEqual([
      'FREE',
      'STARTER',
      'BUSINESS',
    ]);
    expect(plans.json().data[1]).toMatchObject({ seats: 10, monthlyPrice: 19, currency: 'EUR' });
    const license = (
      await t.request({ method: 'GET', url: '/v1/licenses', token: member.token })
    ).json();
    expect(license.data[0]).toMatchObject({
      accountId: admin.accountId,
      planId: 'FREE',
      seats: 3,
      status: 'ACTIVE',
    });
    expect(license.data[0].currentPeriodStart).toMatch(/^\d{4}-\d{2}-01$/);
  });

  it('upgrades and downgrades, refusing a downgrade that current usage exceeds', async () => {
    const owner = await createUser(t);
    const up = await t.request({
      method: 'PATCH',
      url: '/v1/plans',
      token: owner.token,
      payload: { planId: 'STARTER' },
    });
    expect(up.statusCode).toBe(200);
    expect(up.json().currentPlanId).toBe('STARTER');
    for (let i = 0; i < 3; i++) await createUser(t, { role: 'user', accountId: owner.accountId });
    const down = await t.request({
      method: 'PATCH',
      url: '/v1/plans',
      token: owner.token,
      payload: { planId: 'FREE' },
    });
    expect(down.statusCode).toBe(409);
    expect(down.json()).toMatchObject({
      code: 'plan_limit_exceeded',
      exceeded: ['seats: 4 in use, Free includes 3'],
    });
    expect(
      (await t.request({ method: 'GET', url: '/v1/plans', token: owner.token })).json()
        .currentPlanId,
    ).toBe('STARTER');
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .where('action', '=', 'plan.changed')
      .execute();
    expect(events).toHaveLength(1);
    // The invitation limit follows the plan.
    const preview = await t.request({
      method: 'POST',
      url: '/v1/users/confirm',
      token: owner.token,
      payload: { name: 'N', email: 'n@example.com' },
    });
    expect(preview.json().seats).toMatchObject({ used: 4, included: 10 });
  });

  it('refuses unknown plans, users, and unknown fields', async () => {
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    const unknown = await t.request({
      method: 'PATCH',
      url: '/v1/plans',
      token: admin.token,
      payload: { planId: 'GOLD' },
    });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().errors[0]).toMatchObject({ path: '/body/planId', code: 'not_in_enum' });
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: '/v1/plans',
          token: member.token,
          payload: { planId: 'STARTER' },
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await t.request({
          method: 'PATCH',
          url: '/v1/plans',
          token: admin.token,
          payload: { planId: 'STARTER', seats: 9 },
        })
      ).statusCode,
    ).toBe(400);
    expect((await t.request({ method: 'GET', url: '/v1/plans' })).statusCode).toBe(401);
  });

  it('reports usage: requests this minute and month, seats, storage', async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 3; i++)
      await t.request({ method: 'GET', url: '/v1/partners', token: owner.token });
    const usage = (await t.request({ method: 'GET', url: '/v1/usage', token: owner.token })).json();
    expect(usage).toMatchObject({
      planId: 'FREE',
      requests: { thisMinute: { used: 4 }, thisMonth: { used: 4 } },
      seats: { used: 1, included: 3 },
      storage: { usedBytes: 0 },
      rateLimits: 'on',
    });
    expect(usage.period.month).toMatch(/^\d{4}-\d{2}$/);
  });
});

const planDirs: string[] = [];
afterAll(() => planDirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** An app whose plans have tiny limits, sharing the run's database and (if set) Redis. */
async function tightApp(
  limits: { requestsPerMinute: number; requestsPerMonth: number },
  env: Record<string, string> = {},
  clock?: ManualClock,
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-plans-'));
  planDirs.push(dir);
  const file = path.join(dir, 'plans.json');
  fs.writeFileSync(file, JSON.stringify(DEFAULT_PLANS.map((p) => ({ ...p, ...limits }))));
  return buildTestApp({ env: { PLANS_FILE: file, ...env }, clock });
}

describe('rate limits and quotas', () => {
  it('sends RateLimit headers and answers 429 rate_limited past the per-minute limit, per token', async () => {
    const app = await tightApp({ requestsPerMinute: 3, requestsPerMonth: 1000 });
    try {
      const user = await createUser(app);
      const second = await createUser(app, { role: 'user', accountId: user.accountId });
      const responses = [];
      for (let i = 0; i < 4; i++)
        responses.push(
          await app.request({ method: 'GET', url: '/v1/partners', token: user.token }),
        );
      expect(responses.map((r) => r.statusCode)).toEqual([200, 200, 200, 429]);
      expect(responses[0]!.headers).toMatchObject({
        'ratelimit-limit': '3',
        'ratelimit-remaining': '2',
      });
      const last = responses[3]!;
      expect(last.json()).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      expect(last.headers['ratelimit-remaining']).toBe('0');
      // Another token has its own minute.
      expect(
        (await app.request({ method: 'GET', url: '/v1/partners', token: second.token })).statusCode,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('answers 429 quota_exceeded past the monthly quota, and the count survives a restart', async () => {
    const app = await tightApp({ requestsPerMinute: 1000, requestsPerMonth: 3 });
    const user = await createUser(app);
    const codes: number[] = [];
    for (let i = 0; i < 4; i++)
      codes.push(
        (await app.request({ method: 'GET', url: '/v1/partners', token: user.token })).statusCode,
      );
    expect(codes).toEqual([200, 200, 200, 429]);
    await app.app.close(); // flushes the monthly count to the database
    const row = await (async () => {
      const again = await buildTestApp({
        env: {
          PLANS_FILE: app.app.ctx.config.plansFile!,
          DATABASE_URL:
            app.app.ctx.config.database.kind === 'sqlite'
              ? `sqlite:${app.app.ctx.config.database.file}`
              : process.env.DATABASE_URL!,
          REDIS_URL: '',
        },
      });
      try {
        const stored = await again.app.ctx.db
          .selectFrom('usage_monthly')
          .selectAll()
          .where('account_id', '=', user.accountId)
          .executeTakeFirstOrThrow();
        const next = await again.request({ method: 'GET', url: '/v1/partners', token: user.token });
        return { stored: Number(stored.requests), next: next.statusCode, code: next.json().code };
      } finally {
        await again.close();
      }
    })();
    expect(row).toEqual({ stored: 4, next: 429, code: 'quota_exceeded' });
  });

  it('renews the quota when the month turns, and counts the new month from zero', async () => {
    const clock = new ManualClock(new Date('2026-01-31T23:58:30Z'));
    const app = await tightApp({ requestsPerMinute: 1000, requestsPerMonth: 2 }, {}, clock);
    try {
      const user = await createUser(app);
      const get = async () =>
        (await app.request({ method: 'GET', url: '/v1/partners', token: user.token })).statusCode;
      expect([await get(), await get(), await get()]).toEqual([200, 200, 429]);
      clock.advance(2 * MINUTE); // 2026-02-01T00:00:30Z
      expect([await get(), await get(), await get()]).toEqual([200, 200, 429]);
    } finally {
      await app.close();
    }
  });

  it('lifts limits with RATE_LIMITS=off', async () => {
    const app = await tightApp(
      { requestsPerMinute: 1, requestsPerMonth: 1 },
      { RATE_LIMITS: 'off' },
    );
    try {
      const user = await createUser(app);
      for (let i = 0; i < 3; i++) {
        const res = await app.request({ method: 'GET', url: '/v1/partners', token: user.token });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });

  it.runIf(process.env.REDIS_URL && dbKind === 'postgres')(
    'shares the counters of two instances through Redis',
    async () => {
      const a = await tightApp({ requestsPerMinute: 3, requestsPerMonth: 1000 });
      const b = await tightApp({ requestsPerMinute: 3, requestsPerMonth: 1000 });
      try {
        const user = await createUser(a);
        const codes = [];
        for (const app of [a, b, a, b])
          codes.push(
            (
              await app.request({
                method: 'GET',
                url: '/v1/partners',
                token: user.token,
                key: app.apiKey,
              })
            ).statusCode,
          );
        expect(codes).toEqual([200, 200, 200, 429]);
      } finally {
        await a.close();
        await b.close();
      }
    },
  );
});
