import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DayClock, getJson, patchSettings, putAnchor } from './dashboard.test-support.js';

const TODAY = '2026-03-10';
let t: TestApp;
let clock: DayClock;

beforeAll(async () => {
  clock = new DayClock(TODAY);
  t = await buildTestApp({ clock });
});
afterAll(() => t.close());

interface Anchor {
  openingBalance: number;
  currency: string;
  effectiveDate: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}
interface Problem {
  code: string;
  detail: string;
  currentVersion?: number;
  errors?: { path: string; code: string; message: string }[];
}

const getAnchor = (user: TestUser) =>
  t.request({ method: 'GET', url: '/v1/dashboard/cash-anchor', token: user.token });

async function expectFieldError(
  user: TestUser,
  payload: Record<string, unknown>,
  path: string,
  code: string,
): Promise<void> {
  const res = await putAnchor(t, user, payload);
  expect(res.statusCode, res.body).toBe(400);
  const body = res.json<Problem>();
  expect(body.code).toBe('validation_failed');
  expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
}

describe('GET/PUT /v1/dashboard/cash-anchor', () => {
  it('answers 404 with a clear message until an anchor is set', async () => {
    const user = await createUser(t);
    const res = await getAnchor(user);
    expect(res.statusCode).toBe(404);
    const body = res.json<Problem>();
    expect(body.code).toBe('not_found');
    expect(body.detail).toMatch(/No cash anchor is set.*PUT \/v1\/dashboard\/cash-anchor/);
  });

  it('sets the anchor in the account currency, exact to the cent, with an audit event', async () => {
    const user = await createUser(t);
    const before = await auditCount(t, user.accountId);
    const res = await putAnchor(t, user, { openingBalance: 12345.67, effectiveDate: '2026-02-28' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    const anchor = res.json<Anchor>();
    expect(anchor).toMatchObject({
      openingBalance: 12345.67,
      currency: 'EUR',
      effectiveDate: '2026-02-28',
      version: 1,
    });
    expect(anchor.createdAt).toBe(anchor.updatedAt);
    const stored = await t.app.ctx.db
      .selectFrom('cash_anchors')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(stored.opening_balance)).toBe(1234567);
    expect(await auditCount(t, user.accountId)).toBe(before + 1);
    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'resource_type', 'resource_id'])
      .where('account_id', '=', user.accountId)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(event).toEqual({
      action: 'cash_anchor.created',
      resource_type: 'cash_anchor',
      resource_id: user.accountId,
    });

    const got = await getAnchor(user);
    expect(got.statusCode).toBe(200);
    expect(got.headers.etag).toBe('"1"');
    expect(got.json()).toEqual(anchor);
  });

  it('accepts an overdrawn (negative) balance, zero and a plain user', async () => {
    const admin = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    let res = await putAnchor(t, member, { openingBalance: -250.5, effectiveDate: '2026-03-10' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Anchor>().openingBalance).toBe(-250.5);
    res = await putAnchor(t, member, { openingBalance: 0, effectiveDate: '2024-02-29' });
    expect(res.json<Anchor>()).toMatchObject({ openingBalance: 0, effectiveDate: '2024-02-29' });
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const user = await createUser(t);
    await expectFieldError(
      user,
      { effectiveDate: '2026-03-01' },
      '/body/openingBalance',
      'required',
    );
    await expectFieldError(user, { openingBalance: 1 }, '/body/effectiveDate', 'required');
    await expectFieldError(
      user,
      { openingBalance: '100', effectiveDate: '2026-03-01' },
      '/body/openingBalance',
      'wrong_type',
    );
    await expectFieldError(
      user,
      { openingBalance: 12.345, effectiveDate: '2026-03-01' },
      '/body/openingBalance',
      'too_many_decimals',
    );
    await expectFieldError(
      user,
      { openingBalance: 2e12, effectiveDate: '2026-03-01' },
      '/body/openingBalance',
      'too_large',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '2026-02-30' },
      '/body/effectiveDate',
      'invalid_format',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '2025-02-29' },
      '/body/effectiveDate',
      'invalid_format',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '01.03.2026' },
      '/body/effectiveDate',
      'invalid_format',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '2026-03-12' },
      '/body/effectiveDate',
      'out_of_range',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '1899-12-31' },
      '/body/effectiveDate',
      'out_of_range',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '2026-03-01', currency: 'EUR' },
      '/body/currency',
      'unknown_field',
    );
    await expectFieldError(
      user,
      { openingBalance: 1, effectiveDate: '2026-03-01', version: 0 },
      '/body/version',
      'too_small',
    );
    // Nothing was stored by any of them.
    expect((await getAnchor(user)).statusCode).toBe(404);
    // Tomorrow (UTC) is allowed: it is already today east of Greenwich.
    const res = await putAnchor(t, user, { openingBalance: 1, effectiveDate: '2026-03-11' });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('replaces with optimistic locking: body version or If-Match, both optional', async () => {
    const user = await createUser(t);
    // A version (or If-Match) before anything exists cannot match.
    let res = await putAnchor(t, user, {
      openingBalance: 1,
      effectiveDate: '2026-03-01',
      version: 1,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json<Problem>().code).toBe('version_conflict');
    res = await putAnchor(
      t,
      user,
      { openingBalance: 1, effectiveDate: '2026-03-01' },
      { 'if-match': '"1"' },
    );
    expect(res.statusCode).toBe(412);
    expect((await getAnchor(user)).statusCode).toBe(404);

    res = await putAnchor(t, user, { openingBalance: 100, effectiveDate: '2026-03-01' });
    expect(res.json<Anchor>().version).toBe(1);
    const created = res.json<Anchor>();

    clock.set('2026-03-10');
    res = await putAnchor(t, user, {
      openingBalance: 200,
      effectiveDate: '2026-03-02',
      version: 1,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.json<Anchor>()).toMatchObject({
      openingBalance: 200,
      effectiveDate: '2026-03-02',
      version: 2,
    });
    expect(res.json<Anchor>().createdAt).toBe(created.createdAt);

    // Stale body version: 409 with the current version, nothing changed, no audit event.
    const events = await auditCount(t, user.accountId);
    res = await putAnchor(t, user, {
      openingBalance: 999,
      effectiveDate: '2026-03-03',
      version: 1,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json<Problem>()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    // Stale If-Match: 412.
    res = await putAnchor(
      t,
      user,
      { openingBalance: 999, effectiveDate: '2026-03-03' },
      { 'if-match': '"1"' },
    );
    expect(res.statusCode).toBe(412);
    expect(res.json<Problem>()).toMatchObject({ code: 'precondition_failed', currentVersion: 2 });
    expect(await auditCount(t, user.accountId)).toBe(events);
    expect((await getAnchor(user)).json<Anchor>()).toMatchObject({
      openingBalance: 200,
      version: 2,
    });

    // Current If-Match, then no precondition at all: both replace.
    res = await putAnchor(
      t,
      user,
      { openingBalance: 300, effectiveDate: '2026-03-04' },
      { 'if-match': '"2"' },
    );
    expect(res.json<Anchor>()).toMatchObject({ openingBalance: 300, version: 3 });
    res = await putAnchor(t, user, { openingBalance: 400, effectiveDate: '2026-03-05' });
    expect(res.json<Anchor>()).toMatchObject({ openingBalance: 400, version: 4 });

    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes'])
      .where('account_id', '=', user.accountId)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(event.action).toBe('cash_anchor.updated');
    expect(JSON.parse(event.changes)).toEqual({
      openingBalance: { from: 300, to: 400 },
      effectiveDate: { from: '2026-03-04', to: '2026-03-05' },
    });
  });

  it('needs a bearer token and keeps accounts apart', async () => {
    const a = await createUser(t);
    const b = await createUser(t);
    expect(
      (await putAnchor(t, a, { openingBalance: 5, effectiveDate: '2026-03-01' })).statusCode,
    ).toBe(200);
    expect((await getAnchor(b)).statusCode).toBe(404);
    const anon = await t.request({ method: 'GET', url: '/v1/dashboard/cash-anchor' });
    expect(anon.statusCode).toBe(401);
    const anonPut = await t.request({
      method: 'PUT',
      url: '/v1/dashboard/cash-anchor',
      payload: { openingBalance: 1, effectiveDate: '2026-03-01' },
    });
    expect(anonPut.statusCode).toBe(401);
  });

  it('is not applied after the account currency changes, until it is set again', async () => {
    const admin = await createUser(t);
    await putAnchor(t, admin, { openingBalance: 10, effectiveDate: '2026-03-01' });
    await patchSettings(t, admin, { currency: 'GBP' });
    let stats = await getJson<{ currency: string; balance: number | null; cashAnchor: unknown }>(
      t,
      admin,
      '/v1/dashboard/stats',
    );
    expect(stats.currency).toBe('GBP');
    expect(stats.balance).toBeNull();
    expect(stats.cashAnchor).toEqual({
      openingBalance: 10,
      currency: 'EUR',
      effectiveDate: '2026-03-01',
    });
    const res = await putAnchor(t, admin, { openingBalance: 20, effectiveDate: '2026-03-01' });
    expect(res.json<Anchor>()).toMatchObject({ currency: 'GBP', version: 2 });
    stats = await getJson(t, admin, '/v1/dashboard/stats');
    expect(stats.balance).toBe(20);
  });
});
