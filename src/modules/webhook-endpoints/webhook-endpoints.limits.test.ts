import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { DEFAULT_PLANS, loadPlanCatalogue } from '../plans/plans.catalogue.js';

/** The webhook endpoints a plan allows (`webhookEndpoints` in the plan catalogue). */

let t: TestApp;
let dir: string;

/** A catalogue with tiny endpoint limits: FREE 2, STARTER 3, BUSINESS without the field. */
function writePlans(file: string, plans: object[]) {
  fs.writeFileSync(path.join(dir, file), JSON.stringify(plans));
  return path.join(dir, file);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-webhook-plans-'));
  const [free, starter, business] = DEFAULT_PLANS.map(({ webhookEndpoints: _, ...p }) => p);
  const file = writePlans('plans.json', [
    { ...free!, webhookEndpoints: 2 },
    { ...starter!, webhookEndpoints: 3 },
    business!,
  ]);
  t = await buildTestApp({ env: { PLANS_FILE: file, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const create = (as: TestUser, n: number) =>
  t.request({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    token: as.token,
    payload: { url: `http://127.0.0.1:9/hook-${n}`, eventTypes: ['partner.created'] },
  });
const changePlan = (as: TestUser, planId: string) =>
  t.request({ method: 'PATCH', url: '/v1/plans', token: as.token, payload: { planId } });

describe('webhook endpoints: the plan’s limit', () => {
  it('refuses the endpoint past the plan’s limit with 409 naming it, and follows plan changes', async () => {
    const admin = await createUser(t);
    expect((await create(admin, 1)).statusCode).toBe(201);
    expect((await create(admin, 2)).statusCode).toBe(201);
    const third = await create(admin, 3);
    expect(third.statusCode).toBe(409);
    expect(third.json()).toMatchObject({ code: 'plan_limit_exceeded', used: 2, limit: 2 });
    expect(third.json().detail).toContain('Free plan includes 2 webhook endpoints');

    expect((await changePlan(admin, 'STARTER')).statusCode).toBe(200);
    expect((await create(admin, 3)).statusCode).toBe(201);
    expect((await create(admin, 4)).statusCode).toBe(409);
    // Three endpoints do not fit the free plan's two: the downgrade is refused.
    const down = await changePlan(admin, 'FREE');
    expect(down.statusCode).toBe(409);
    expect(down.json().exceeded).toContain('webhook endpoints: 3, Free includes 2');

    // A plan that does not say gets the default (10).
    expect((await changePlan(admin, 'BUSINESS')).statusCode).toBe(200);
    for (let n = 4; n <= 10; n++) expect((await create(admin, n)).statusCode).toBe(201);
    expect((await create(admin, 11)).json()).toMatchObject({ limit: 10 });
    const plans = await t.request({ method: 'GET', url: '/v1/plans', token: admin.token });
    expect(plans.json().data.map((p: { webhookEndpoints: number }) => p.webhookEndpoints)).toEqual([
      2, 3, 10,
    ]);
  });

  it('counts per account: another account’s endpoints take nothing from this one', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    expect((await create(a, 1)).statusCode).toBe(201);
    expect((await create(a, 2)).statusCode).toBe(201);
    expect((await create(b, 1)).statusCode).toBe(201);
    expect((await create(b, 2)).statusCode).toBe(201);
    expect((await create(a, 3)).statusCode).toBe(409);
  });

  it('lets two concurrent creates past the last free place only one at a time', async () => {
    const admin = await createUser(t);
    expect((await create(admin, 1)).statusCode).toBe(201);
    const both = await Promise.all([create(admin, 2), create(admin, 3)]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([201, 409]);
  });

  it('has defaults of at most 100 and refuses a catalogue above 100', () => {
    expect(DEFAULT_PLANS.map((p) => p.webhookEndpoints)).toEqual([10, 25, 100]);
    const file = writePlans('too-many.json', [{ ...DEFAULT_PLANS[0]!, webhookEndpoints: 101 }]);
    expect(() => loadPlanCatalogue(file)).toThrow(/webhookEndpoints/);
  });
});
