import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  email,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const path = '/v1/account/addresses';
type Body = Record<string, unknown>;

/** A fresh account with an admin and a `user`, so versions start at 1 in every test. */
async function account(): Promise<{ admin: TestUser; member: TestUser }> {
  const admin = await createUser(t);
  const member = await createUser(t, { role: 'user', accountId: admin.accountId });
  return { admin, member };
}

const read = async (user: TestUser) => {
  const res = await t.request({ method: 'GET', url: path, token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json();
};

const put = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PUT', url: path, token: user.token, payload, headers });

const patch = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PATCH', url: path, token: user.token, payload, headers });

async function auditEvents(accountId: string) {
  return t.app.ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('seq', 'desc')
    .execute();
}

const BILLING = {
  type: 'BILLING',
  name: 'Buchhaltung',
  street: 'Hauptstraße 1',
  postalCode: '10115',
  city: 'Berlin',
  country: 'DE',
  email: 'rechnung@example.com',
  phone: '+49 30 1234567',
};
const OFFICE = {
  type: 'OFFICE',
  name: 'London office',
  street: '1 King Street',
  postalCode: 'EC2V 8AU',
  city: 'London',
  country: 'GB',
  email: 'office@example.co.uk',
  phone: '+44 (20) 7946-0000',
};

const WIDGETS = [
  { widget: 'CASHFLOW_CHART', visible: true, position: 0, size: 'LARGE' },
  { widget: 'BALANCE', visible: true, position: 1, size: 'MEDIUM' },
  { widget: 'BUDGETS', visible: false, position: 2, size: 'SMALL' },
];

describe('account: reading', () => {
  it('answers the German defaults at version 1 with an ETag, to the `user` role too', async () => {
    const { admin, member } = await account();
    const res = await t.request({ method: 'GET', url: path, token: member.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    const body = res.json();
    expect(body).toMatchObject({
      id: admin.accountId,
      version: 1,
      name: 'Test GmbH',
      addresses: [],
      currency: 'EUR',
      dateFormat: 'DD.MM.YYYY',
      numberFormat: '1.234,56',
      incomingPaymentTerm: 'HABEN',
      budgetsSuppressed: false,
      reminderEmail: null,
      allowContractReminderOverride: false,
    });
    expect(body.dashboardWidgets).toHaveLength(8);
    expect(new Set(body.dashboardWidgets.map((w: { widget: string }) => w.widget)).size).toBe(8);
    expect(body.createdAt).toEqual(expect.any(String));
    expect(body.updatedAt).toEqual(expect.any(String));
    expect(await read(admin)).toEqual(body);
  });
});

describe('account: replacing addresses (PUT)', () => {
  it('replaces the addresses with every field, bumps the version and audits the change', async () => {
    const { admin, member } = await account();
    const res = await put(admin, { version: 1, addresses: [BILLING, OFFICE] });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    const body = res.json();
    expect(body).toMatchObject({ version: 2, addresses: [BILLING, OFFICE], currency: 'EUR' });
    expect(await read(member)).toEqual(body);

    const [event, ...rest] = await auditEvents(admin.accountId);
    expect(rest).toHaveLength(0);
    expect(event).toMatchObject({
      action: 'account.addresses_replaced',
      resource_type: 'account',
      resource_id: admin.accountId,
      actor_id: admin.userId,
      token_id: admin.tokenId,
    });
    expect(JSON.parse(event!.changes)).toEqual({ addresses: { from: [], to: [BILLING, OFFICE] } });

    // Partial addresses are fine (only `type` is required), and [] clears them.
    const minimal = await put(admin, { version: 2, addresses: [{ type: 'OTHER' }] });
    expect(minimal.statusCode).toBe(200);
    expect(minimal.json()).toMatchObject({ version: 3, addresses: [{ type: 'OTHER' }] });
    const cleared = await put(admin, { version: 3, addresses: [] }, { 'if-match': '"3"' });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ version: 4, addresses: [] });
    expect(await auditEvents(admin.accountId)).toHaveLength(3);
  });

  it.each([
    ['missing version', { addresses: [] }, '/body/version', 'required'],
    ['missing addresses', { version: 1 }, '/body/addresses', 'required'],
    ['version 0', { version: 0, addresses: [] }, '/body/version', undefined],
    ['unknown field', { version: 1, addresses: [], fax: '1' }, '/body/fax', 'unknown_field'],
    [
      'bad address type',
      { version: 1, addresses: [{ type: 'HOME' }] },
      '/body/addresses/0/type',
      'not_in_enum',
    ],
    [
      'missing address type',
      { version: 1, addresses: [{ city: 'Berlin' }] },
      '/body/addresses/0/type',
      'required',
    ],
    [
      'unknown address field',
      { version: 1, addresses: [{ type: 'BILLING', zip: '10115' }] },
      '/body/addresses/0/zip',
      'unknown_field',
    ],
    [
      'bad country',
      { version: 1, addresses: [{ type: 'BILLING', country: 'XX' }] },
      '/body/addresses/0/country',
      'not_in_enum',
    ],
    [
      'bad email',
      { version: 1, addresses: [{ type: 'BILLING', email: 'nope' }] },
      '/body/addresses/0/email',
      'invalid_format',
    ],
    [
      'bad phone',
      { version: 1, addresses: [{ type: 'BILLING', phone: 'call me' }] },
      '/body/addresses/0/phone',
      undefined,
    ],
    [
      'too long street',
      { version: 1, addresses: [{ type: 'BILLING', street: 'x'.repeat(201) }] },
      '/body/addresses/0/street',
      'too_long',
    ],
    [
      'more than 20 addresses',
      { version: 1, addresses: Array.from({ length: 21 }, () => ({ type: 'OTHER' })) },
      '/body/addresses',
      undefined,
    ],
  ])('400 on %s, naming the field, and nothing changes', async (_label, payload, field, code) => {
    const { admin } = await account();
    const res = await put(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toContainEqual(
      expect.objectContaining(code === undefined ? { path: field } : { path: field, code }),
    );
    expect(await read(admin)).toMatchObject({ version: 1, addresses: [] });
    expect(await auditEvents(admin.accountId)).toHaveLength(0);
  });
});

describe('account: settings (PATCH)', () => {
  it('changes every setting, bumps the version and audits the changed fields', async () => {
    const { admin, member } = await account();
    const before = await read(admin);
    const res = await patch(admin, {
      version: 1,
      budgetsSuppressed: true,
      reminderEmail: 'reminders@example.com',
      allowContractReminderOverride: true,
      dashboardWidgets: WIDGETS,
      dateFormat: 'DD/MM/YYYY',
      numberFormat: '1,234.56',
      currency: 'GBP',
      incomingPaymentTerm: 'SOLL',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    const after = res.json();
    expect(after).toMatchObject({
      version: 2,
      budgetsSuppressed: true,
      reminderEmail: 'reminders@example.com',
      allowContractReminderOverride: true,
      dashboardWidgets: WIDGETS,
      dateFormat: 'DD/MM/YYYY',
      numberFormat: '1,234.56',
      currency: 'GBP',
      incomingPaymentTerm: 'SOLL',
      addresses: [],
      name: 'Test GmbH',
    });
    expect(await read(member)).toEqual(after);

    const [event, ...rest] = await auditEvents(admin.accountId);
    expect(rest).toHaveLength(0);
    expect(event!.action).toBe('account.settings_changed');
    expect(JSON.parse(event!.changes)).toEqual({
      budgetsSuppressed: { from: false, to: true },
      reminderEmail: { from: null, to: 'reminders@example.com' },
      allowContractReminderOverride: { from: false, to: true },
      dashboardWidgets: { from: before.dashboardWidgets, to: WIDGETS },
      dateFormat: { from: 'DD.MM.YYYY', to: 'DD/MM/YYYY' },
      numberFormat: { from: '1.234,56', to: '1,234.56' },
      currency: { from: 'EUR', to: 'GBP' },
      incomingPaymentTerm: { from: 'HABEN', to: 'SOLL' },
    });
  });

  it('leaves omitted fields alone, and clears reminderEmail with null', async () => {
    const { admin } = await account();
    const set = await patch(admin, { version: 1, reminderEmail: 'r@example.com' });
    expect(set.statusCode).toBe(200);
    expect(set.json()).toMatchObject({
      version: 2,
      reminderEmail: 'r@example.com',
      currency: 'EUR',
    });
    const only = await patch(admin, { version: 2, currency: 'GBP' });
    expect(only.json()).toMatchObject({
      version: 3,
      reminderEmail: 'r@example.com',
      currency: 'GBP',
    });
    const cleared = await patch(admin, { version: 3, reminderEmail: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ version: 4, reminderEmail: null, currency: 'GBP' });
    const [event] = await auditEvents(admin.accountId);
    expect(JSON.parse(event!.changes)).toEqual({
      reminderEmail: { from: 'r@example.com', to: null },
    });
    expect(await auditEvents(admin.accountId)).toHaveLength(3);
  });

  it('400 when a dashboard widget is listed twice, and nothing changes', async () => {
    const { admin } = await account();
    const res = await patch(admin, {
      version: 1,
      dashboardWidgets: [
        { widget: 'BALANCE', visible: true, position: 0, size: 'SMALL' },
        { widget: 'BALANCE', visible: false, position: 1, size: 'LARGE' },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/dashboardWidgets/1/widget', code: 'duplicate_items' }),
    );
    expect((await read(admin)).version).toBe(1);
    expect(await auditEvents(admin.accountId)).toHaveLength(0);
  });

  it.each([
    ['dateFormat YYYY-MM-DD', { dateFormat: 'YYYY-MM-DD' }, '/body/dateFormat', 'not_in_enum'],
    ['numberFormat 1 234,56', { numberFormat: '1 234,56' }, '/body/numberFormat', 'not_in_enum'],
    ['currency USD', { currency: 'USD' }, '/body/currency', 'not_in_enum'],
    [
      'incomingPaymentTerm CREDIT',
      { incomingPaymentTerm: 'CREDIT' },
      '/body/incomingPaymentTerm',
      'not_in_enum',
    ],
    [
      'budgetsSuppressed as a string',
      { budgetsSuppressed: 'yes' },
      '/body/budgetsSuppressed',
      'wrong_type',
    ],
    ['bad reminderEmail', { reminderEmail: 'nope' }, '/body/reminderEmail', undefined],
    ['unknown field', { timezone: 'Europe/Berlin' }, '/body/timezone', 'unknown_field'],
    ['read-only field', { name: 'Renamed GmbH' }, '/body/name', 'unknown_field'],
    [
      'unknown widget',
      { dashboardWidgets: [{ widget: 'WEATHER', visible: true, position: 0, size: 'SMALL' }] },
      '/body/dashboardWidgets/0/widget',
      'not_in_enum',
    ],
    [
      'bad widget size',
      { dashboardWidgets: [{ widget: 'BALANCE', visible: true, position: 0, size: 'HUGE' }] },
      '/body/dashboardWidgets/0/size',
      'not_in_enum',
    ],
    [
      'widget position out of range',
      { dashboardWidgets: [{ widget: 'BALANCE', visible: true, position: 100, size: 'SMALL' }] },
      '/body/dashboardWidgets/0/position',
      undefined,
    ],
    [
      'unknown widget field',
      {
        dashboardWidgets: [
          { widget: 'BALANCE', visible: true, position: 0, size: 'SMALL', colour: 'red' },
        ],
      },
      '/body/dashboardWidgets/0/colour',
      'unknown_field',
    ],
  ])('400 on %s, naming the field, and nothing changes', async (_label, fields, field, code) => {
    const { admin } = await account();
    const res = await patch(admin, { version: 1, ...fields });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toContainEqual(
      expect.objectContaining(code === undefined ? { path: field } : { path: field, code }),
    );
    expect(await read(admin)).toMatchObject({
      version: 1,
      dateFormat: 'DD.MM.YYYY',
      currency: 'EUR',
    });
    expect(await auditEvents(admin.accountId)).toHaveLength(0);
  });

  it('400 on a PATCH without version', async () => {
    const { admin } = await account();
    const res = await patch(admin, { currency: 'GBP' });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/version', code: 'required' }),
    );
  });
});

describe('account: optimistic locking', () => {
  it('409 version_conflict on a stale version, for PUT and PATCH, and nothing changes', async () => {
    const { admin } = await account();
    expect((await patch(admin, { version: 1, currency: 'GBP' })).statusCode).toBe(200);
    const current = await read(admin);
    const events = (await auditEvents(admin.accountId)).length;

    const stalePatch = await patch(admin, { version: 1, dateFormat: 'DD/MM/YYYY' });
    expect(stalePatch.statusCode).toBe(409);
    expect(stalePatch.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const stalePut = await put(admin, { version: 1, addresses: [BILLING] });
    expect(stalePut.statusCode).toBe(409);
    expect(stalePut.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const future = await patch(admin, { version: 9, dateFormat: 'DD/MM/YYYY' });
    expect(future.statusCode).toBe(409);

    expect(await read(admin)).toEqual(current);
    expect(await auditEvents(admin.accountId)).toHaveLength(events);
  });

  it('412 when If-Match does not match, and nothing changes', async () => {
    const { admin } = await account();
    for (const send of [
      () => patch(admin, { version: 1, currency: 'GBP' }, { 'if-match': '"5"' }),
      () => put(admin, { version: 1, addresses: [BILLING] }, { 'if-match': '"5"' }),
      () => patch(admin, { version: 1, currency: 'GBP' }, { 'if-match': 'W/"1"' }),
    ]) {
      const res = await send();
      expect(res.statusCode).toBe(412);
      expect(res.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    }
    expect(await read(admin)).toMatchObject({ version: 1, currency: 'EUR', addresses: [] });
    expect(await auditEvents(admin.accountId)).toHaveLength(0);
    const ok = await patch(admin, { version: 1, currency: 'GBP' }, { 'if-match': '"1"' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).toBe('"2"');
  });

  it('lets exactly one of two concurrent writes of the same version win', async () => {
    const { admin } = await account();
    const results = await Promise.all([
      patch(admin, { version: 1, currency: 'GBP' }),
      put(admin, { version: 1, addresses: [OFFICE] }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await read(admin)).version).toBe(2);
    expect(await auditEvents(admin.accountId)).toHaveLength(1);
  });
});

describe('account: authorization and tenancy', () => {
  it('403 forbidden for the `user` role on PUT and PATCH', async () => {
    const { admin, member } = await account();
    const putRes = await put(member, { version: 1, addresses: [BILLING] });
    expect(putRes.statusCode).toBe(403);
    expect(putRes.json().code).toBe('forbidden');
    const patchRes = await patch(member, { version: 1, currency: 'GBP' });
    expect(patchRes.statusCode).toBe(403);
    expect(patchRes.json().code).toBe('forbidden');
    expect(await read(admin)).toMatchObject({ version: 1, currency: 'EUR', addresses: [] });
  });

  it('writes only the caller’s own account', async () => {
    const mine = await account();
    const theirs = await account();
    expect((await patch(mine.admin, { version: 1, reminderEmail: email('r') })).statusCode).toBe(
      200,
    );
    expect((await put(mine.admin, { version: 2, addresses: [BILLING] })).statusCode).toBe(200);
    expect(await read(theirs.admin)).toMatchObject({
      id: theirs.admin.accountId,
      version: 1,
      reminderEmail: null,
      addresses: [],
    });
    expect(await auditEvents(theirs.admin.accountId)).toHaveLength(0);
  });
});
