import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import {
  START,
  contractBody,
  deleteContract,
  getContract,
  listNames,
  newContract,
  newPartner,
  postContract,
  putContract,
} from './contracts.test-support.js';
import { describeResourceContract } from '../../../test/contract.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;
let partnerId: string;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(START) });
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
  partnerId = (await newPartner(t, admin)).id;
});
afterAll(() => t.close());

// One partner per account for the contract bodies (a replayed create must send the same body).
const contractPartners = new Map<string, string>();
describeResourceContract(() => t, {
  name: 'contract',
  path: '/v1/contracts',
  create: async (app, user) => {
    if (!contractPartners.has(user.accountId))
      contractPartners.set(user.accountId, (await newPartner(app, user)).id);
    return contractBody(contractPartners.get(user.accountId)!);
  },
  update: { method: 'PUT', body: { name: 'Renamed Contract' } },
  changedField: 'name',
});

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

describe('contracts: happy paths', () => {
  it('creates, reads, updates and deletes a contract with every field', async () => {
    const res = await postContract(
      t,
      member,
      contractBody(partnerId, {
        partnerType: 'CUSTOMER',
        endDate: '2026-12-31',
        status: 'DRAFT',
        description: 'Jährliche Wartung',
        tags: ['heating', 'service'],
        advanced: {
          billingCycle: 'YEARLY',
          autoRenew: true,
          noticePeriodDays: 90,
          reminderDaysBefore: 14,
          reminderEmail: null,
          paymentTermDays: 30,
        },
      }),
    );
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c.id).toMatch(/^ctr_[0-9a-z]{26}$/);
    expect(c).toEqual({
      id: c.id,
      version: 1,
      createdAt: START.toISOString(),
      updatedAt: START.toISOString(),
      name: 'Wartungsvertrag Heizung',
      partnerId,
      // Filled from the partner record, not from the body (decisions §6).
      partnerName: 'Stadtwerke Köln',
      partnerType: 'VENDOR',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      totalValue: 1200.5,
      currency: 'EUR',
      status: 'DRAFT',
      description: 'Jährliche Wartung',
      tags: ['heating', 'service'],
      advanced: {
        billingCycle: 'YEARLY',
        autoRenew: true,
        renewalMonths: 12,
        noticePeriodDays: 90,
        reminderDaysBefore: 14,
        reminderEmail: null,
        paymentTermDays: 30,
      },
      billing: null,
      cancellationDeadline: '2026-10-02',
      nextRenewalDate: '2026-12-31',
    });
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/contracts/${c.id}`);

    const got = await getContract(t, member, c.id);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(c);
    expect(got.headers.etag).toBe('"1"');

    const put = await putContract(t, member, c.id, {
      version: 1,
      name: 'Wartung 2026',
      description: null,
      endDate: null,
      tags: ['service'],
      totalValue: 99.99,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      version: 2,
      name: 'Wartung 2026',
      description: null,
      endDate: null,
      tags: ['service'],
      totalValue: 99.99,
      currency: 'EUR',
      startDate: '2026-01-01',
      advanced: { autoRenew: true, renewalMonths: 12 },
      cancellationDeadline: null,
      nextRenewalDate: null,
    });
    expect(put.headers.etag).toBe('"2"');

    const cleared = await putContract(t, member, c.id, { version: 2, advanced: null, tags: null });
    expect(cleared.json()).toMatchObject({ version: 3, advanced: null, tags: [] });

    const del = await deleteContract(t, member, c.id);
    expect(del.statusCode).toBe(204);
    const gone = await getContract(t, member, c.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('not_found');
  });

  it('defaults status to DRAFT and optional fields to empty', async () => {
    const res = await postContract(t, member, contractBody(partnerId));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      status: 'DRAFT',
      endDate: null,
      description: null,
      tags: [],
      advanced: null,
      cancellationDeadline: null,
      nextRenewalDate: null,
    });
  });

  it('keeps amounts exact in minor units of each currency', async () => {
    for (const [totalValue, currency] of [
      [1500, 'JPY'],
      [1.234, 'KWD'],
      [0.1, 'EUR'],
      [12345678.9, 'GBP'],
    ] as const) {
      const res = await postContract(t, admin, contractBody(partnerId, { totalValue, currency }));
      expect(res.statusCode, `${totalValue} ${currency}`).toBe(201);
      expect(res.json()).toMatchObject({ totalValue, currency });
    }
  });

  it('keeps the amount when only the currency changes, and refuses one it cannot hold', async () => {
    const c = await newContract(t, admin, partnerId, { totalValue: 100.5 });
    const chf = await putContract(t, admin, c.id, { version: 1, currency: 'CHF' });
    expect(chf.json()).toMatchObject({ totalValue: 100.5, currency: 'CHF', version: 2 });
    const jpy = await putContract(t, admin, c.id, { version: 2, currency: 'JPY' });
    expect(jpy.statusCode).toBe(400);
    expect(jpy.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/currency', code: 'too_many_decimals' }),
    );
    const both = await putContract(t, admin, c.id, {
      version: 2,
      currency: 'JPY',
      totalValue: 100,
    });
    expect(both.json()).toMatchObject({ totalValue: 100, currency: 'JPY', version: 3 });
  });

  it('refreshes partnerName and partnerType from the partner on a PUT', async () => {
    const c = await newContract(t, admin, partnerId);
    const other = await newPartner(t, admin, { name: 'Kunde AG', type: 'CUSTOMER' });
    const moved = await putContract(t, admin, c.id, { version: 1, partnerId: other.id });
    expect(moved.json()).toMatchObject({
      partnerId: other.id,
      partnerName: 'Kunde AG',
      partnerType: 'CUSTOMER',
    });
    const renamed = await putContract(t, admin, c.id, {
      version: 2,
      partnerName: 'Ignored',
      partnerType: 'VENDOR',
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ partnerName: 'Kunde AG', partnerType: 'CUSTOMER' });
  });
});

describe('contracts: bad input', () => {
  it.each([
    ['wrong type', { name: 42 }, '/body/name', 'wrong_type'],
    ['amount as a string', { totalValue: '12.00' }, '/body/totalValue', 'wrong_type'],
    ['missing startDate', { startDate: undefined }, '/body/startDate', 'required'],
    ['missing partnerName', { partnerName: undefined }, '/body/partnerName', 'required'],
    ['missing currency', { currency: undefined }, '/body/currency', 'required'],
    ['status outside the enum', { status: 'CLOSED' }, '/body/status', 'not_in_enum'],
    ['unknown currency', { currency: 'XXX' }, '/body/currency', 'not_in_enum'],
    ['lower-case currency', { currency: 'eur' }, '/body/currency', 'not_in_enum'],
    ['partnerType outside the enum', { partnerType: 'X' }, '/body/partnerType', 'not_in_enum'],
    ['unknown field', { colour: 'red' }, '/body/colour', 'unknown_field'],
    [
      'computed field sent',
      { nextRenewalDate: '2027-01-01' },
      '/body/nextRenewalDate',
      'unknown_field',
    ],
    ['unknown advanced field', { advanced: { foo: 1 } }, '/body/advanced/foo', 'unknown_field'],
    [
      'billingCycle',
      { advanced: { billingCycle: 'DAILY' } },
      '/body/advanced/billingCycle',
      'not_in_enum',
    ],
    [
      'renewalMonths 0',
      { advanced: { renewalMonths: 0 } },
      '/body/advanced/renewalMonths',
      'too_small',
    ],
    [
      'renewalMonths 121',
      { advanced: { renewalMonths: 121 } },
      '/body/advanced/renewalMonths',
      'too_large',
    ],
    [
      'renewalMonths 1.5',
      { advanced: { renewalMonths: 1.5 } },
      '/body/advanced/renewalMonths',
      'wrong_type',
    ],
    [
      'noticePeriodDays',
      { advanced: { noticePeriodDays: 3651 } },
      '/body/advanced/noticePeriodDays',
      'too_large',
    ],
    [
      'reminderDaysBefore',
      { advanced: { reminderDaysBefore: -1 } },
      '/body/advanced/reminderDaysBefore',
      'too_small',
    ],
    [
      'paymentTermDays',
      { advanced: { paymentTermDays: 366 } },
      '/body/advanced/paymentTermDays',
      'too_large',
    ],
    ['autoRenew', { advanced: { autoRenew: 'yes' } }, '/body/advanced/autoRenew', 'wrong_type'],
    [
      'reminderEmail',
      { advanced: { reminderEmail: 'nope' } },
      '/body/advanced/reminderEmail',
      'invalid_format',
    ],
    ['date shape', { startDate: '01.01.2026' }, '/body/startDate', 'invalid_format'],
    ['impossible date', { startDate: '2026-02-30' }, '/body/startDate', 'invalid_format'],
    ['impossible end date', { endDate: '2026-13-01' }, '/body/endDate', 'invalid_format'],
    ['end before start', { endDate: '2025-12-31' }, '/body/endDate', 'invalid_value'],
    ['too many decimals', { totalValue: 12.345 }, '/body/totalValue', 'too_many_decimals'],
    [
      'decimals for JPY',
      { totalValue: 1.5, currency: 'JPY' },
      '/body/totalValue',
      'too_many_decimals',
    ],
    ['negative value', { totalValue: -1 }, '/body/totalValue', 'too_small'],
    ['too long', { name: 'x'.repeat(201) }, '/body/name', 'too_long'],
    ['duplicate tags', { tags: ['a', 'a'] }, '/body/tags', 'duplicate_items'],
  ])('400 on %s, naming the field, and nothing written', async (_label, extra, path, code) => {
    const before = await auditCount(admin.accountId);
    const payload = JSON.parse(JSON.stringify(contractBody(partnerId, extra)));
    const res = await postContract(t, admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('400 malformed_json on broken JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/contracts',
      token: admin.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('malformed_json');
  });

  it('checks a PUT against the stored record: version, dates and amounts', async () => {
    const c = await newContract(t, admin, partnerId, { endDate: '2026-06-30' });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ name: 'W' }, '/body/version', 'required'],
      [{ version: 1, startDate: '2026-07-01' }, '/body/endDate', 'invalid_value'],
      [{ version: 1, endDate: '2025-12-31' }, '/body/endDate', 'invalid_value'],
      [{ version: 1, endDate: '2026-02-30' }, '/body/endDate', 'invalid_format'],
      [{ version: 1, totalValue: 0.001 }, '/body/totalValue', 'too_many_decimals'],
      [{ version: 1, name: null }, '/body/name', 'wrong_type'],
      [{ version: 1, status: null }, '/body/status', 'not_in_enum'],
      [{ version: 1, id: 'ctr_x' }, '/body/id', 'unknown_field'],
    ];
    for (const [payload, path, code] of cases) {
      const res = await putContract(t, admin, c.id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect((await getContract(t, admin, c.id)).json()).toMatchObject({
      version: 1,
      endDate: '2026-06-30',
    });
  });

  it('400 on bad list parameters', async () => {
    for (const qs of [
      'cursor=garbage',
      'limit=101',
      'activeOn=2026-02-30',
      'deadlineBefore=tomorrow',
      'status=OPEN',
    ]) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/contracts?${qs}`,
        token: admin.token,
      });
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });
});

describe('contracts: authentication and tenancy', () => {
  it('422 reference_not_found for another account’s or an unknown partnerId', async () => {
    const theirPartner = await newPartner(t, other);
    const before = await auditCount(admin.accountId);
    for (const id of [theirPartner.id, 'ptr_01jd8x0000000000000000000']) {
      const res = await postContract(t, admin, contractBody(id));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'reference_not_found' });
      expect(res.json().errors).toContainEqual(
        expect.objectContaining({ path: '/body/partnerId', code: 'reference_not_found' }),
      );
    }
    const c = await newContract(t, admin, partnerId);
    const put = await putContract(t, admin, c.id, { version: 1, partnerId: theirPartner.id });
    expect(put.statusCode).toBe(422);
    expect((await getContract(t, admin, c.id)).json()).toMatchObject({ partnerId, version: 1 });
    expect(await auditCount(admin.accountId)).toBe(before + 1);
  });
});

describe('contracts: optimistic locking', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const c = await newContract(t, admin, partnerId, { name: 'Locked' });
    expect((await putContract(t, admin, c.id, { version: 1, name: 'First' })).statusCode).toBe(200);
    const events = await auditCount(admin.accountId, c.id);
    const stale = await putContract(t, admin, c.id, {
      version: 1,
      name: 'Second',
      status: 'ACTIVE',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect((await getContract(t, admin, c.id)).json()).toMatchObject({
      name: 'First',
      status: 'DRAFT',
      version: 2,
    });
    expect(await auditCount(admin.accountId, c.id)).toBe(events);
  });

  it('412 when If-Match does not match; If-Match guards DELETE too', async () => {
    const c = await newContract(t, admin, partnerId);
    const mismatch = await putContract(
      t,
      admin,
      c.id,
      { version: 1, name: 'No' },
      { 'if-match': '"7"' },
    );
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await putContract(
      t,
      admin,
      c.id,
      { version: 1, name: 'Yes' },
      { 'if-match': '"1"' },
    );
    expect(ok.statusCode).toBe(200);
    expect((await deleteContract(t, admin, c.id, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await deleteContract(t, admin, c.id, { 'if-match': '"2"' })).statusCode).toBe(204);
  });

  it('lets exactly one of two concurrent updates of the same version win', async () => {
    const c = await newContract(t, admin, partnerId);
    const results = await Promise.all(
      ['A', 'B'].map((name) => putContract(t, admin, c.id, { version: 1, name })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});

describe('contracts: idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const headers = { 'idempotency-key': `ctr-${Date.now()}-1` };
    const body = contractBody(partnerId, { name: 'Einmalig' });
    const first = await postContract(t, admin, body, headers);
    const again = await postContract(t, admin, body, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);
    expect(await listNames(t, admin, 'q=einmalig')).toHaveLength(1);
  });

  it('422 for the same key with another body', async () => {
    const headers = { 'idempotency-key': `ctr-${Date.now()}-2` };
    expect((await postContract(t, admin, contractBody(partnerId), headers)).statusCode).toBe(201);
    const reused = await postContract(
      t,
      admin,
      contractBody(partnerId, { name: 'Other' }),
      headers,
    );
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
  });
});

describe('contracts: lists', () => {
  it('keeps pages stable while records are inserted', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    for (let i = 0; i < 5; i++) await newContract(t, owner, p.id, { name: `C${i}` });
    const page = (cursor?: string) =>
      t.request({
        method: 'GET',
        url: `/v1/contracts?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        token: owner.token,
      });
    const page1 = (await page()).json();
    expect(page1.data.map((c: { name: string }) => c.name)).toEqual(['C4', 'C3']);
    await newContract(t, owner, p.id, { name: 'inserted meanwhile' });
    const page2 = (await page(page1.nextCursor)).json();
    expect(page2.data.map((c: { name: string }) => c.name)).toEqual(['C2', 'C1']);
    const page3 = (await page(page2.nextCursor)).json();
    expect(page3.data.map((c: { name: string }) => c.name)).toEqual(['C0']);
    expect(page3.nextCursor).toBeNull();
  });

  it('filters by status, partner, tag, activeOn, deadlineBefore and accent-insensitive text', async () => {
    const owner = await createUser(t);
    const p1 = await newPartner(t, owner, { name: 'Eins' });
    const p2 = await newPartner(t, owner, { name: 'Zwei' });
    // Today is 2026-03-10.
    await newContract(t, owner, p1.id, {
      name: 'Strom Büro',
      startDate: '2025-01-01',
      endDate: '2025-12-31',
      tags: ['energy'],
    });
    await newContract(t, owner, p1.id, {
      name: 'Gas Lager',
      status: 'ACTIVE',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      advanced: { noticePeriodDays: 90 },
      tags: ['energy', 'vip'],
    });
    await newContract(t, owner, p2.id, {
      name: 'Reinigung 100% Service',
      status: 'ACTIVE',
      startDate: '2026-03-01',
    });
    await newContract(t, owner, p2.id, {
      name: 'Software Lizenz',
      startDate: '2026-04-01',
      endDate: '2027-03-31',
      advanced: { autoRenew: true, noticePeriodDays: 30 },
    });
    const names = (qs: string) => listNames(t, owner, qs);

    expect(await names('status=ACTIVE')).toEqual(['Reinigung 100% Service', 'Gas Lager']);
    expect(await names('status=DRAFT')).toEqual(['Software Lizenz', 'Strom Büro']);
    expect(await names(`partnerId=${p2.id}`)).toEqual([
      'Software Lizenz',
      'Reinigung 100% Service',
    ]);
    expect(await names('tag=energy')).toEqual(['Gas Lager', 'Strom Büro']);
    expect(await names('tag=vip&status=ACTIVE')).toEqual(['Gas Lager']);
    expect(await names('activeOn=2026-03-10')).toEqual(['Reinigung 100% Service', 'Gas Lager']);
    expect(await names('activeOn=2025-06-01')).toEqual(['Strom Büro']);
    // Boundaries are inclusive on both ends; no end date runs forever.
    expect(await names('activeOn=2026-12-31')).toEqual([
      'Software Lizenz',
      'Reinigung 100% Service',
      'Gas Lager',
    ]);
    expect(await names('activeOn=2030-01-01')).toEqual(['Reinigung 100% Service']);
    // Deadlines: Strom 2025-12-31, Gas 2026-10-02, Software 2027-03-01; Reinigung has none.
    expect(await names('deadlineBefore=2026-10-02')).toEqual(['Strom Büro']);
    expect(await names('deadlineBefore=2026-10-03')).toEqual(['Gas Lager', 'Strom Büro']);
    expect(await names('deadlineBefore=2030-01-01')).toEqual([
      'Software Lizenz',
      'Gas Lager',
      'Strom Büro',
    ]);
    expect(await names('q=BURO')).toEqual(['Strom Büro']);
    expect(await names('q=100%25')).toEqual(['Reinigung 100% Service']);
    expect(await names('q=_')).toEqual([]);
    expect(await names(`partnerId=${p1.id}&q=gas&activeOn=2026-06-01`)).toEqual(['Gas Lager']);
  });
});
