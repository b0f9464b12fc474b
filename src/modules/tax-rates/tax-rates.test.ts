import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  auditCount as countAudit,
  buildTestApp,
  codeFor,
  createUser,
  email,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { describeResourceContract } from '../../../test/contract.js';
import { fakeIp } from '../auth/auth.test-support.js';
import { insertAccount, newAccountRow } from '../account/account.repository.js';
import { DEFAULT_PLAN } from '../plans/plans.catalogue.js';
import { newId } from '../../shared/ids.js';
import { seedTaxRates } from './tax-rates.repository.js';
import { settleAudit } from '../../shared/audit.js';

interface Rate {
  id: string;
  version: number;
  name: string;
  rate: number;
  isDefault: boolean;
  category: string;
  exemptionReason: string | null;
  exemptionCode: string | null;
  createdAt: string;
  updatedAt: string;
}

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
});
afterAll(() => t.close());

let contractRates = 0;
describeResourceContract(() => t, {
  name: 'tax rate',
  path: '/v1/tax-rates',
  create: () => ({ name: `Contract rate ${++contractRates}`, rate: 9 }),
  update: { method: 'PATCH', body: { name: 'Renamed rate' } },
  changedField: 'name',
});

const create = (
  user: TestUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) => t.request({ method: 'POST', url: '/v1/tax-rates', token: user.token, payload, headers });

const patch = (
  user: TestUser,
  id: string,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  t.request({
    method: 'PATCH',
    url: `/v1/tax-rates/${id}`,
    token: user.token,
    payload,
    headers,
  });

const remove = (user: TestUser, id: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'DELETE', url: `/v1/tax-rates/${id}`, token: user.token, headers });

const get = (user: TestUser, id: string) =>
  t.request({ method: 'GET', url: `/v1/tax-rates/${id}`, token: user.token });

const list = async (user: TestUser, qs = ''): Promise<{ data: Rate[]; nextCursor: string }> => {
  const res = await t.request({ method: 'GET', url: `/v1/tax-rates?${qs}`, token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json();
};

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

/** The account's rates as stored. */
const rows = (accountId: string) =>
  t.app.ctx.db
    .selectFrom('tax_rates')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id')
    .execute();

const defaultsOf = async (accountId: string) =>
  (await rows(accountId)).filter((r) => r.is_default === 1);

/** A fresh account with an admin and a member, seeded like every factory account. */
async function freshAccount(): Promise<{ owner: TestUser; user: TestUser }> {
  const owner = await createUser(t);
  const user = await createUser(t, { role: 'user', accountId: owner.accountId });
  return { owner, user };
}

/** The EUR rates every new account starts with, as answered. */
const EUR_SEED = [
  ['USt 19 %', 19, true, 'S', null, null],
  ['USt 7 %', 7, false, 'S', null, null],
  [
    'Reverse Charge 0 %',
    0,
    false,
    'AE',
    'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)',
    'VATEX-EU-AE',
  ],
  [
    'Innergemeinschaftliche Lieferung 0 %',
    0,
    false,
    'K',
    'Steuerfreie innergemeinschaftliche Lieferung (§ 4 Nr. 1b i. V. m. § 6a UStG)',
    'VATEX-EU-IC',
  ],
  [
    'Kleinunternehmer 0 %',
    0,
    false,
    'E',
    'Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.',
    null,
  ],
];

describe('tax rates: seeding', () => {
  it('gives every new account its EUR rates with their VAT categories, 19 % being the default', async () => {
    const { owner, user } = await freshAccount();
    const page = await list(user);
    expect(
      page.data.map((r) => [
        r.name,
        r.rate,
        r.isDefault,
        r.category,
        r.exemptionReason,
        r.exemptionCode,
      ]),
    ).toEqual(EUR_SEED);
    expect(page.nextCursor).toBeNull();
    for (const r of page.data) {
      expect(r.id).toMatch(/^txr_[0-9a-z]{26}$/);
      expect(r.version).toBe(1);
    }
    expect((await rows(owner.accountId)).map((r) => r.rate_bp).sort((a, b) => a - b)).toEqual([
      0, 0, 0, 700, 1900,
    ]);
    expect((await list(user, 'isDefault=true')).data.map((r) => r.rate)).toEqual([19]);
    expect((await list(user, 'isDefault=false')).data.map((r) => r.rate)).toEqual([7, 0, 0, 0]);
  });

  it('seeds GBP accounts with 20 % (default), 5 % and 0 % (zero rate)', async () => {
    const accountId = newId('account');
    const now = new Date().toISOString();
    await insertAccount(t.app.ctx.db, {
      ...newAccountRow(accountId, 'UK Ltd', DEFAULT_PLAN, now),
      currency: 'GBP',
    });
    const seeded = await seedTaxRates(t.app.ctx.db, accountId, 'GBP', now);
    expect(seeded.map((r) => [r.name, r.rate_bp, r.is_default, r.category])).toEqual([
      ['Standard 20 %', 2000, 1, 'S'],
      ['Reduced 5 %', 500, 0, 'S'],
      ['Zero 0 %', 0, 0, 'Z'],
    ]);
    expect(await rows(accountId)).toHaveLength(3);
  });

  it('seeds the rates of an account registered over HTTP, with audit events', async () => {
    const ip = fakeIp();
    const address = email('txr');
    const post = (endpoint: string, payload: Record<string, unknown>) =>
      t.request({
        method: 'POST',
        url: `/v1/auth/${endpoint}`,
        payload,
        remoteAddress: ip,
      });
    const registered = await post('register', {
      email: address,
      password: PASSWORD,
      name: 'Grace Hopper',
      companyName: 'Compiler GmbH',
    });
    expect(registered.statusCode).toBe(202);
    const code = await codeFor(t, address); // the account exists once its code is mailed
    const user = await t.app.ctx.db
      .selectFrom('users')
      .select(['id', 'account_id'])
      .where('email', '=', address)
      .executeTakeFirstOrThrow();
    const stored = await rows(user.account_id);
    expect(stored.map((r) => [r.name, r.rate_bp, r.is_default, r.category]).sort()).toEqual(
      [
        ['Innergemeinschaftliche Lieferung 0 %', 0, 0, 'K'],
        ['Kleinunternehmer 0 %', 0, 0, 'E'],
        ['Reverse Charge 0 %', 0, 0, 'AE'],
        ['USt 19 %', 1900, 1, 'S'],
        ['USt 7 %', 700, 0, 'S'],
      ].sort(),
    );
    // PostgreSQL chains events just after the commit: wait for it before reading the trail.
    await settleAudit(t.app.ctx.db);
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'resource_id', 'actor_id'])
      .where('account_id', '=', user.account_id)
      .where('action', '=', 'tax_rate.created')
      .execute();
    expect(events.map((e) => e.resource_id).sort()).toEqual(stored.map((r) => r.id).sort());
    expect(events.every((e) => e.actor_id === user.id)).toBe(true);

    // And the new admin sees them once confirmed and signed in.
    expect((await post('confirm', { email: address, code })).statusCode).toBe(200);
    const login = await post('login', { email: address, password: PASSWORD });
    expect(login.statusCode).toBe(200);
    const res = await t.request({
      method: 'GET',
      url: '/v1/tax-rates',
      token: login.json<{ accessToken: string }>().accessToken,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<{ data: Rate[] }>().data.map((r) => [r.rate, r.isDefault])).toEqual([
      [19, true],
      [7, false],
      [0, false],
      [0, false],
      [0, false],
    ]);
  });
});

describe('tax rates: happy paths', () => {
  it('creates, reads, updates and deletes a rate', async () => {
    const res = await create(admin, { name: 'Ermäßigt 7,5 %', rate: 7.5 });
    expect(res.statusCode).toBe(201);
    const r = res.json<Rate>();
    expect(r.id).toMatch(/^txr_[0-9a-z]{26}$/);
    expect(r).toMatchObject({
      version: 1,
      name: 'Ermäßigt 7,5 %',
      rate: 7.5,
      isDefault: false,
      category: 'S',
      exemptionReason: null,
      exemptionCode: null,
    });
    expect(Object.keys(r).sort()).toEqual(
      [
        'category',
        'createdAt',
        'exemptionCode',
        'exemptionReason',
        'id',
        'isDefault',
        'name',
        'rate',
        'updatedAt',
        'version',
      ].sort(),
    );
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/tax-rates/${r.id}`);
    expect((await rows(admin.accountId)).find((x) => x.id === r.id)?.rate_bp).toBe(750);

    const got = await get(member, r.id);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(r);
    expect(got.headers.etag).toBe('"1"');

    const upd = await patch(admin, r.id, { version: 1, name: 'Ermäßigt', rate: 16 });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({ version: 2, name: 'Ermäßigt', rate: 16, isDefault: false });
    expect(upd.headers.etag).toBe('"2"');
    expect((await rows(admin.accountId)).find((x) => x.id === r.id)?.rate_bp).toBe(1600);

    // A PATCH with nothing but the version is a write too (api-conventions).
    const bare = await patch(admin, r.id, { version: 2 });
    expect(bare.json()).toMatchObject({ version: 3, name: 'Ermäßigt', rate: 16 });

    const del = await remove(admin, r.id);
    expect(del.statusCode).toBe(204);
    expect((await get(admin, r.id)).statusCode).toBe(404);
  });

  it('stores rates as exact basis points, without float error', async () => {
    const { owner } = await freshAccount();
    const cases: [number, number][] = [
      [0.07, 7],
      [0.1, 10],
      [19.99, 1999],
      [12.34, 1234],
      [100, 10_000],
      [0, 0],
      [2.5, 250],
      [16, 1600],
    ];
    for (const [rate, bp] of cases) {
      const res = await create(owner, { name: `R ${rate}`, rate });
      expect(res.statusCode, String(rate)).toBe(201);
      expect(res.json<Rate>().rate).toBe(rate);
      const row = (await rows(owner.accountId)).find((x) => x.id === res.json<Rate>().id);
      expect(row?.rate_bp).toBe(bp);
    }
  });

  it('pages newest first with a stable cursor', async () => {
    const { owner } = await freshAccount();
    for (let i = 1; i <= 3; i++) await create(owner, { name: `P${i}`, rate: i });
    const page1 = await list(owner, 'limit=2');
    expect(page1.data.map((r) => r.name)).toEqual(['P3', 'P2']);
    await create(owner, { name: 'inserted meanwhile', rate: 4 });
    const page2 = await list(owner, `limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((r) => r.name)).toEqual(['P1', 'USt 19 %']);
    const page3 = await list(owner, `limit=2&cursor=${page2.nextCursor}`);
    expect(page3.data.map((r) => r.name)).toEqual(['USt 7 %', 'Reverse Charge 0 %']);
    const page4 = await list(owner, `limit=2&cursor=${page3.nextCursor}`);
    expect(page4.data.map((r) => r.name)).toEqual([
      'Innergemeinschaftliche Lieferung 0 %',
      'Kleinunternehmer 0 %',
    ]);
    expect(page4.nextCursor).toBeNull();
  });

  it('makes the first rate of an account its default, whatever the body says', async () => {
    const accountId = newId('account');
    await insertAccount(
      t.app.ctx.db,
      newAccountRow(accountId, 'Empty GmbH', DEFAULT_PLAN, new Date().toISOString()),
    );
    const owner = await createUser(t, { accountId });
    expect((await list(owner)).data).toEqual([]);
    const first = await create(owner, { name: 'First', rate: 19, isDefault: false });
    expect(first.json()).toMatchObject({ isDefault: true });
    const second = await create(owner, { name: 'Second', rate: 7 });
    expect(second.json()).toMatchObject({ isDefault: false });
    expect((await defaultsOf(accountId)).map((r) => r.id)).toEqual([first.json<Rate>().id]);
  });
});

describe('tax rates: the default', () => {
  it('moves the default on PATCH isDefault:true, bumping and auditing the previous one', async () => {
    const { owner } = await freshAccount();
    const [std] = (await list(owner, 'isDefault=true')).data;
    const r = (await create(owner, { name: 'New standard', rate: 20 })).json<Rate>();
    const res = await patch(owner, r.id, { version: 1, isDefault: true });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ isDefault: true, version: 2 });
    const before = (await get(owner, std!.id)).json<Rate>();
    expect(before).toMatchObject({ isDefault: false, version: 2 });
    expect((await defaultsOf(owner.accountId)).map((x) => x.id)).toEqual([r.id]);

    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${std!.id}`,
        token: owner.token,
      })
    ).json<{ data: { action: string; changes: unknown }[] }>().data;
    expect(events).toEqual([
      expect.objectContaining({
        action: 'tax_rate.updated',
        changes: { isDefault: { from: true, to: false } },
      }),
    ]);

    // Setting it again on the default changes nothing else.
    const again = await patch(owner, r.id, { version: 2, isDefault: true });
    expect(again.json()).toMatchObject({ isDefault: true, version: 3 });
    expect((await get(owner, std!.id)).json()).toMatchObject({ version: 2 });
  });

  it('moves the default on POST isDefault:true', async () => {
    const { owner } = await freshAccount();
    const r = await create(owner, { name: 'Default from birth', rate: 10, isDefault: true });
    expect(r.json()).toMatchObject({ isDefault: true, version: 1 });
    expect((await defaultsOf(owner.accountId)).map((x) => x.id)).toEqual([r.json<Rate>().id]);
    expect((await list(owner, 'isDefault=true')).data).toHaveLength(1);
  });

  it('409 state_conflict on isDefault:false for the default, and nothing changes', async () => {
    const { owner } = await freshAccount();
    const [std] = (await list(owner, 'isDefault=true')).data;
    const events = await auditCount(owner.accountId);
    const res = await patch(owner, std!.id, { version: 1, isDefault: false, name: 'X' });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('state_conflict');
    expect((await get(owner, std!.id)).json()).toMatchObject({
      isDefault: true,
      version: 1,
      name: 'USt 19 %',
    });
    expect(await auditCount(owner.accountId)).toBe(events);
    // false on a rate that is not the default is fine.
    const [seven] = (await list(owner, 'isDefault=false')).data;
    expect((await patch(owner, seven!.id, { version: 1, isDefault: false })).statusCode).toBe(200);
  });

  it('409 state_conflict when deleting the default', async () => {
    const { owner } = await freshAccount();
    const [std] = (await list(owner, 'isDefault=true')).data;
    const res = await remove(owner, std!.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('state_conflict');
    expect(res.json().detail).toContain('default');
    expect((await get(owner, std!.id)).statusCode).toBe(200);
  });

  it('ends with exactly one default after concurrent PATCHes moving it', async () => {
    const { owner } = await freshAccount();
    const made: Rate[] = [];
    for (let i = 0; i < 6; i++)
      made.push((await create(owner, { name: `C${i}`, rate: 10 + i })).json<Rate>());
    const results = await Promise.all(
      made.map((r) => patch(owner, r.id, { version: r.version, isDefault: true })),
    );
    // None of them was the default, so each one's version stays current until it runs.
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200, 200]);
    const defaults = await defaultsOf(owner.accountId);
    expect(defaults).toHaveLength(1);
    expect(made.map((r) => r.id)).toContain(defaults[0]!.id);
    expect((await list(owner, 'isDefault=true')).data.map((r) => r.id)).toEqual([defaults[0]!.id]);
    // Every rate that held the default for a while was cleared with a version bump.
    const stored = await rows(owner.accountId);
    for (const r of made) {
      const row = stored.find((x) => x.id === r.id)!;
      expect(row.version).toBe(row.id === defaults[0]!.id ? 2 : 3);
    }
  });

  it('ends with exactly one default after concurrent POSTs with isDefault:true', async () => {
    const { owner } = await freshAccount();
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) => create(owner, { name: `D${i}`, rate: i, isDefault: true })),
    );
    expect(results.map((r) => r.statusCode)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(await defaultsOf(owner.accountId)).toHaveLength(1);
  });
});

describe('tax rates: bad input', () => {
  it.each([
    ['wrong type', { name: 42, rate: 19 }, '/body/name', 'wrong_type'],
    ['rate as a string', { name: 'X', rate: '19' }, '/body/rate', 'wrong_type'],
    [
      'isDefault as a string',
      { name: 'X', rate: 19, isDefault: 'yes' },
      '/body/isDefault',
      'wrong_type',
    ],
    ['missing name', { rate: 19 }, '/body/name', 'required'],
    ['missing rate', { name: 'X' }, '/body/rate', 'required'],
    ['unknown field', { name: 'X', rate: 19, country: 'DE' }, '/body/country', 'unknown_field'],
    ['rate 101', { name: 'X', rate: 101 }, '/body/rate', 'too_large'],
    ['rate -1', { name: 'X', rate: -1 }, '/body/rate', 'too_small'],
    ['rate 19.555', { name: 'X', rate: 19.555 }, '/body/rate', 'too_many_decimals'],
    ['empty name', { name: '', rate: 19 }, '/body/name', 'too_short'],
    ['too long name', { name: 'x'.repeat(201), rate: 19 }, '/body/name', 'too_long'],
  ])('400 on %s, naming the field, and nothing written', async (_label, payload, path, code) => {
    const before = await auditCount(admin.accountId);
    const count = (await rows(admin.accountId)).length;
    const res = await create(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await auditCount(admin.accountId)).toBe(before);
    expect(await rows(admin.accountId)).toHaveLength(count);
  });

  it('400 on a PATCH without version, with a bad rate or an unknown field; nothing changes', async () => {
    const r = (await create(admin, { name: 'Patchable', rate: 5 })).json<Rate>();
    for (const [payload, path, code] of [
      [{ name: 'Y' }, '/body/version', 'required'],
      [{ version: 1, rate: 7.125 }, '/body/rate', 'too_many_decimals'],
      [{ version: 1, rate: 100.01 }, '/body/rate', 'too_large'],
      [{ version: '1', name: 'Y' }, '/body/version', 'wrong_type'],
      [{ version: 1, default: true }, '/body/default', 'unknown_field'],
    ] as const) {
      const res = await patch(admin, r.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect((await get(admin, r.id)).json()).toEqual(r);
  });

  it('400 on a bad list query', async () => {
    for (const qs of ['limit=101', 'cursor=garbage', 'isDefault=maybe']) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/tax-rates?${qs}`,
        token: admin.token,
      });
      expect(res.statusCode, qs).toBe(400);
    }
  });
});

describe('tax rates: authentication, roles and tenancy', () => {
  it('403 for a user on POST, PATCH and DELETE; reading is allowed', async () => {
    const r = (await create(admin, { name: 'Admins only', rate: 3 })).json<Rate>();
    const before = await auditCount(admin.accountId);
    for (const res of [
      await create(member, { name: 'Nope', rate: 1 }),
      await patch(member, r.id, { version: 1, name: 'Nope' }),
      await patch(member, r.id, { version: 1, isDefault: true }),
      await remove(member, r.id),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect(await auditCount(admin.accountId)).toBe(before);
    expect((await get(member, r.id)).json()).toEqual(r);
    expect((await list(member)).data.map((x) => x.id)).toContain(r.id);
  });

  it('answers 404 for another account’s rate on read, update and delete', async () => {
    const foreign = (await create(other, { name: 'Secret', rate: 9 })).json<Rate>();
    for (const res of [
      await get(admin, foreign.id),
      await patch(admin, foreign.id, { version: 1, name: 'Hijacked' }),
      await patch(admin, foreign.id, { version: 1, isDefault: true }),
      await remove(admin, foreign.id),
      await get(admin, 'txr_nonexistent'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect((await list(admin)).data.map((x) => x.id)).not.toContain(foreign.id);
    expect((await get(other, foreign.id)).json()).toEqual(foreign);
    expect(await defaultsOf(admin.accountId)).toHaveLength(1);
  });
});

describe('tax rates: optimistic locking', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const { owner } = await freshAccount();
    const [std] = (await list(owner, 'isDefault=true')).data;
    const r = (await create(owner, { name: 'Locked', rate: 5 })).json<Rate>();
    expect((await patch(owner, r.id, { version: 1, name: 'First' })).statusCode).toBe(200);
    const events = await auditCount(owner.accountId);
    const stale = await patch(owner, r.id, { version: 1, name: 'Second', isDefault: true });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect((await get(owner, r.id)).json()).toMatchObject({
      name: 'First',
      version: 2,
      isDefault: false,
    });
    // The stale PATCH did not move the default either.
    expect((await get(owner, std!.id)).json()).toMatchObject({ isDefault: true, version: 1 });
    expect(await auditCount(owner.accountId)).toBe(events);
  });

  it('412 when If-Match does not match; If-Match guards DELETE too', async () => {
    const r = (await create(admin, { name: 'Etag', rate: 5 })).json<Rate>();
    const mismatch = await patch(admin, r.id, { version: 1, name: 'Nope' }, { 'if-match': '"7"' });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await patch(admin, r.id, { version: 1, name: 'Yes' }, { 'if-match': '"1"' });
    expect(ok.statusCode).toBe(200);
    expect((await remove(admin, r.id, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await get(admin, r.id)).statusCode).toBe(200);
    expect((await remove(admin, r.id, { 'if-match': '"2"' })).statusCode).toBe(204);
  });
});

describe('tax rates: idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const { owner } = await freshAccount();
    const headers = { 'idempotency-key': `txr-${Date.now()}` };
    const first = await create(owner, { name: 'Once', rate: 13 }, headers);
    const again = await create(owner, { name: 'Once', rate: 13 }, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.location).toBe(first.headers.location);
    expect((await rows(owner.accountId)).filter((r) => r.name === 'Once')).toHaveLength(1);
    const reused = await create(owner, { name: 'Twice', rate: 13 }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
  });
});

describe('tax rates: references and audit', () => {
  it('refuses to delete a rate a product uses with 409 in_use', async () => {
    const { owner } = await freshAccount();
    const r = (await create(owner, { name: 'Used', rate: 5 })).json<Rate>();
    const now = new Date().toISOString();
    await t.app.ctx.db
      .insertInto('products')
      .values({
        id: newId('product'),
        account_id: owner.accountId,
        name: 'Widget',
        search_name: 'widget',
        type: 'GOODS',
        unit_price: 1000,
        currency: 'EUR',
        unit: null,
        description: null,
        photo_file_id: null,
        tax_rate_id: r.id,
        tags: '[]',
        version: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const events = await auditCount(owner.accountId);
    const res = await remove(owner, r.id);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'in_use' });
    expect(res.json().detail).toContain('1 products');
    expect((await get(owner, r.id)).statusCode).toBe(200);
    expect(await auditCount(owner.accountId)).toBe(events);
  });

  it('writes tax_rate.created, .updated (with the diff) and .deleted events', async () => {
    const r = (await create(admin, { name: 'Audited', rate: 8 })).json<Rate>();
    await patch(admin, r.id, { version: 1, rate: 8.5 });
    await remove(admin, r.id);
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${r.id}`,
        token: admin.token,
      })
    ).json<{
      data: { action: string; resourceType: string; changes: Record<string, unknown> }[];
    }>().data;
    expect(events.map((e) => e.action)).toEqual([
      'tax_rate.deleted',
      'tax_rate.updated',
      'tax_rate.created',
    ]);
    expect(events.every((e) => e.resourceType === 'tax_rate')).toBe(true);
    expect(events[1]!.changes).toEqual({ rate: { from: 8, to: 8.5 } });
    expect(events[2]!.changes).toMatchObject({ name: 'Audited', rate: 8, isDefault: false });
    expect(events[0]!.changes).toMatchObject({ id: r.id, rate: 8.5, version: 2 });
  });
});
