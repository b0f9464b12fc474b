import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { rateId, ratesOf, type Body } from './datev.test-support.js';

/** `GET/PUT /v1/exports/datev/settings`: defaults, checks, versions, access. */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

interface Problem {
  code: string;
  detail: string;
  currentVersion?: number;
  errors?: { path: string; code: string; message: string }[];
}

const URL = '/v1/exports/datev/settings';
const get = (u: TestUser) => t.request({ method: 'GET', url: URL, token: u.token });
const put = (u: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PUT', url: URL, token: u.token, payload, headers });

function expectErrors(res: Awaited<ReturnType<typeof put>>, status: number, paths: string[]): void {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json<Problem>().errors?.map((e) => e.path)).toEqual(expect.arrayContaining(paths));
}

describe('DATEV settings', () => {
  it('answers 404 until saved, then the defaults of what was not given, with an audit event', async () => {
    const admin = await createUser(t);
    const missing = await get(admin);
    expect(missing.statusCode).toBe(404);
    expect(missing.json<Problem>().detail).toMatch(/PUT \/v1\/exports\/datev\/settings/);

    const before = await auditCount(t, admin.accountId);
    const res = await put(admin, { consultantNumber: 1001, clientNumber: 99999 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.json()).toMatchObject({
      consultantNumber: 1001,
      clientNumber: 99999,
      chartOfAccounts: 'SKR03',
      fiscalYearStartMonth: 1,
      accountLength: 4,
      debtorAccount: 10000,
      bankAccount: 1200,
      revenueAccounts: [],
      version: 1,
    });
    expect(await auditCount(t, admin.accountId)).toBe(before + 1);
    const got = await get(admin);
    expect(got.headers.etag).toBe('"1"');
    expect(got.json()).toEqual(res.json());

    // The defaults follow chart and length while they are not set explicitly.
    const skr04 = await put(admin, { version: 1, chartOfAccounts: 'SKR04', accountLength: 6 });
    expect(skr04.json()).toMatchObject({
      version: 2,
      debtorAccount: 1_000_000,
      bankAccount: 180_000,
      consultantNumber: 1001,
    });
  });

  it('needs consultant and client number first, and checks every number', async () => {
    const admin = await createUser(t);
    expectErrors(await put(admin, { chartOfAccounts: 'SKR04' }), 400, [
      '/body/consultantNumber',
      '/body/clientNumber',
    ]);
    const cases: [Body, string, string][] = [
      [{ consultantNumber: 1000, clientNumber: 1 }, '/body/consultantNumber', 'too_small'],
      [{ consultantNumber: 10_000_000, clientNumber: 1 }, '/body/consultantNumber', 'too_large'],
      [{ consultantNumber: 1001, clientNumber: 0 }, '/body/clientNumber', 'too_small'],
      [{ consultantNumber: 1001, clientNumber: 100_000 }, '/body/clientNumber', 'too_large'],
      [
        { consultantNumber: 1001, clientNumber: 1, accountLength: 9 },
        '/body/accountLength',
        'too_large',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, chartOfAccounts: 'SKR49' },
        '/body/chartOfAccounts',
        'not_in_enum',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, fiscalYearStartMonth: 13 },
        '/body/fiscalYearStartMonth',
        'too_large',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, bankAccount: 12000 },
        '/body/bankAccount',
        'out_of_range',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, debtorAccount: 70000 },
        '/body/debtorAccount',
        'out_of_range',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, debtorAccount: 1200 },
        '/body/debtorAccount',
        'too_small',
      ],
      [
        { consultantNumber: 1001, clientNumber: 1, beraternummer: 5 },
        '/body/beraternummer',
        'unknown_field',
      ],
      [{ consultantNumber: '1001', clientNumber: 1 }, '/body/consultantNumber', 'wrong_type'],
    ];
    for (const [body, path, code] of cases) {
      const res = await put(admin, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json<Problem>().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect((await get(admin)).statusCode).toBe(404);
  });

  it('maps tax rates of the account only, each once, with accounts of the right length', async () => {
    const admin = await createUser(t);
    const other = await createUser(t);
    const rates = await ratesOf(t, admin);
    const s19 = rateId(rates, 'S', 19);
    const foreign = rateId(await ratesOf(t, other), 'S', 19);
    const base = { consultantNumber: 4711, clientNumber: 815 };
    expectErrors(
      await put(admin, { ...base, revenueAccounts: [{ taxRateId: foreign, account: 8400 }] }),
      422,
      ['/body/revenueAccounts/0/taxRateId'],
    );
    expectErrors(
      await put(admin, {
        ...base,
        revenueAccounts: [
          { taxRateId: s19, account: 8400 },
          { taxRateId: s19, account: 84000 },
        ],
      }),
      400,
      ['/body/revenueAccounts/1/taxRateId', '/body/revenueAccounts/1/account'],
    );
    const ok = await put(admin, {
      ...base,
      revenueAccounts: [{ taxRateId: s19, account: 8401, taxKey: '3' }],
    });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<{ revenueAccounts: unknown[] }>().revenueAccounts).toEqual([
      { taxRateId: s19, account: 8401, taxKey: '3' },
    ]);
    // A new length that the stored mapping no longer fits is refused at the length.
    expectErrors(await put(admin, { accountLength: 5 }), 400, ['/body/accountLength']);
    const longer = await put(admin, {
      accountLength: 5,
      revenueAccounts: [{ taxRateId: s19, account: 84010, taxKey: null }],
    });
    expect(longer.statusCode, longer.body).toBe(200);
    expect(longer.json()).toMatchObject({ accountLength: 5, debtorAccount: 100000 });
  });

  it('refuses a stale version (409) or If-Match (412), changing nothing', async () => {
    const admin = await createUser(t);
    await put(admin, { consultantNumber: 1001, clientNumber: 1 });
    await put(admin, { clientNumber: 2 });
    const stale = await put(admin, { version: 1, clientNumber: 3 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json<Problem>()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const pre = await put(admin, { clientNumber: 3 }, { 'if-match': '"1"' });
    expect(pre.statusCode).toBe(412);
    expect((await get(admin)).json()).toMatchObject({ clientNumber: 2, version: 2 });
    const fresh = await put(admin, { clientNumber: 3 }, { 'if-match': '"2"' });
    expect(fresh.json()).toMatchObject({ clientNumber: 3, version: 3 });
    const first = await createUser(t);
    expect(
      (await put(first, { consultantNumber: 1001, clientNumber: 1, version: 1 })).statusCode,
    ).toBe(409);
  });

  it('lets every user read and only admins write; accounts do not see each other', async () => {
    const admin = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    expect((await put(member, { consultantNumber: 1001, clientNumber: 1 })).statusCode).toBe(403);
    await put(admin, { consultantNumber: 1001, clientNumber: 7 });
    expect((await get(member)).json()).toMatchObject({ clientNumber: 7 });
    const stranger = await createUser(t);
    expect((await get(stranger)).statusCode).toBe(404);
    expect((await t.request({ method: 'GET', url: URL, key: null })).statusCode).toBe(401);
  });
});
