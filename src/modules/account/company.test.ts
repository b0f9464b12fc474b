import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_COMPANY,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { newId } from '../../shared/ids.js';
import { DEFAULT_PLAN } from '../plans/plans.catalogue.js';
import { insertAccount, newAccountRow } from './account.repository.js';
import { readCompany } from './company.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const path = '/v1/account/company';
type Body = Record<string, unknown>;

/** A factory account (with `TEST_COMPANY`), its admin and a `user`. */
async function account(): Promise<{ admin: TestUser; member: TestUser }> {
  const admin = await createUser(t);
  const member = await createUser(t, { role: 'user', accountId: admin.accountId });
  return { admin, member };
}

/** An account whose company data was never set, as after sign-up. */
async function bareAccount(): Promise<TestUser> {
  const accountId = newId('account');
  const now = new Date().toISOString();
  await insertAccount(
    t.app.ctx.db,
    newAccountRow(accountId, 'Nordlicht Design', DEFAULT_PLAN, now),
  );
  return createUser(t, { accountId });
}

const read = async (user: TestUser) => {
  const res = await t.request({ method: 'GET', url: path, token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json();
};

const put = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PUT', url: path, token: user.token, payload, headers });

const events = (accountId: string) =>
  t.app.ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('seq', 'desc')
    .execute();

const FULL = {
  legalName: 'Nordlicht Design GmbH',
  address: { street: 'Kaiserkai 7', postalCode: '20457', city: 'Hamburg', country: 'DE' },
  vatId: 'de 811 907 980',
  taxNumber: '2/123/45678 90',
  registerCourt: 'Amtsgericht Hamburg',
  registerNumber: 'HRB 98765',
  managingDirectors: ['Anna Nord', 'Bo Licht'],
  email: 'buchhaltung@nordlicht.example',
  phone: '+49 40 123456',
  website: 'https://nordlicht.example',
  electronicAddress: { scheme: 'EM', value: 'rechnung@nordlicht.example' },
  bankAccounts: [
    {
      iban: 'de89 3704 0044 0532 0130 00',
      bic: 'cobadeffxxx',
      accountHolder: 'Nordlicht Design GmbH',
      bankName: 'Commerzbank',
    },
    { iban: 'DE02120300000000202051', bic: null, accountHolder: null, bankName: null },
  ],
  smallBusiness: false,
  defaultPaymentTermDays: 30,
};

describe('company: reading', () => {
  it('answers the defaults before anything was set, to the `user` role too', async () => {
    const owner = await bareAccount();
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    const res = await t.request({ method: 'GET', url: path, token: member.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"1"');
    expect(res.json()).toEqual({
      legalName: 'Nordlicht Design',
      address: null,
      vatId: null,
      taxNumber: null,
      registerCourt: null,
      registerNumber: null,
      managingDirectors: [],
      email: null,
      phone: null,
      website: null,
      electronicAddress: null,
      bankAccounts: [],
      smallBusiness: false,
      creditorId: null,
      defaultPaymentTermDays: 14,
      version: 1,
      updatedAt: expect.any(String),
    });
  });

  it('answers the factory company of test accounts', async () => {
    const { member } = await account();
    expect(await read(member)).toEqual({
      ...TEST_COMPANY,
      version: 1,
      updatedAt: expect.any(String),
    });
  });

  it('readCompany fills defaults field by field and drops unknown stored keys', () => {
    const row = newAccountRow('acc_x', 'Alpha', DEFAULT_PLAN, '2026-01-01T00:00:00.000Z');
    expect(readCompany(row)).toMatchObject({ legalName: 'Alpha', defaultPaymentTermDays: 14 });
    const stored = readCompany({
      ...row,
      version: 4,
      company: JSON.stringify({ legalName: 'Alpha AG', defaultPaymentTermDays: null, x: 1 }),
    });
    expect(stored).toMatchObject({
      legalName: 'Alpha AG',
      defaultPaymentTermDays: null,
      bankAccounts: [],
      version: 4,
    });
    expect(stored).not.toHaveProperty('x');
  });
});

describe('company: replacing (PUT)', () => {
  it('stores every field normalised, bumps the account version and audits the change', async () => {
    const { admin, member } = await account();
    const res = await put(admin, { version: 1, ...FULL });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    const body = res.json();
    expect(body).toEqual({
      ...FULL,
      vatId: 'DE811907980',
      bankAccounts: [
        { ...FULL.bankAccounts[0], iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
        FULL.bankAccounts[1],
      ],
      creditorId: null,
      version: 2,
      updatedAt: expect.any(String),
    });
    expect(await read(member)).toEqual(body);

    // One version for the whole account: the settings moved on too.
    const settings = await t.request({
      method: 'GET',
      url: '/v1/account/addresses',
      token: member.token,
    });
    expect(settings.json()).toMatchObject({ version: 2, name: 'Test GmbH' });

    const [event, ...rest] = await events(admin.accountId);
    expect(rest).toHaveLength(0);
    expect(event).toMatchObject({
      action: 'account.company_changed',
      resource_type: 'account',
      resource_id: admin.accountId,
      actor_id: admin.userId,
    });
    const changes = JSON.parse(event!.changes) as Record<string, { from: unknown; to: unknown }>;
    expect(changes.legalName).toEqual({ from: 'Test GmbH', to: 'Nordlicht Design GmbH' });
    expect(changes.vatId).toEqual({ from: 'DE123456788', to: 'DE811907980' });
    expect(changes).not.toHaveProperty('smallBusiness');
    expect(changes).not.toHaveProperty('version');
  });

  it('clears optional fields with null and empty arrays', async () => {
    const { admin } = await account();
    const res = await put(admin, {
      version: 1,
      legalName: 'Kleinbetrieb Müller',
      address: null,
      vatId: null,
      taxNumber: null,
      registerCourt: null,
      registerNumber: null,
      managingDirectors: [],
      email: null,
      phone: null,
      website: null,
      electronicAddress: null,
      bankAccounts: [],
      smallBusiness: true,
      defaultPaymentTermDays: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      legalName: 'Kleinbetrieb Müller',
      vatId: null,
      bankAccounts: [],
      smallBusiness: true,
      defaultPaymentTermDays: null,
      version: 2,
    });
  });

  it('accepts the electronic address schemes with checked values, and VAT ids of other countries', async () => {
    const { admin } = await account();
    let version = 1;
    for (const [electronicAddress, vatId] of [
      [{ scheme: '0204', value: '991-33333TEST-33' }, 'ATU13585627'],
      [{ scheme: '9930', value: 'DE811907980' }, 'FR40303265045'],
      [{ scheme: '0088', value: '4000001000005' }, 'NL123456789B01'],
      [{ scheme: '0060', value: '123456789' }, 'XI123456789'],
      [{ scheme: '0007', value: '5560360793' }, 'EL123456789'],
      [{ scheme: '0151', value: '51824753556' }, 'IT12345678901'],
    ] as const) {
      const res = await put(admin, { ...TEST_COMPANY, version, electronicAddress, vatId });
      expect(res.statusCode, JSON.stringify(electronicAddress)).toBe(200);
      expect(res.json()).toMatchObject({ electronicAddress, vatId });
      version++;
    }
  });

  it('honours If-Match and answers 412 when it does not match', async () => {
    const { admin } = await account();
    const bad = await put(admin, { ...TEST_COMPANY, version: 1 }, { 'if-match': '"7"' });
    expect(bad.statusCode).toBe(412);
    expect(bad.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await put(admin, { ...TEST_COMPANY, version: 1 }, { 'if-match': '"1"' });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers.etag).toBe('"2"');
  });

  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const { admin } = await account();
    expect((await put(admin, { version: 1, ...FULL })).statusCode).toBe(200);
    const before = await read(admin);
    const stale = await put(admin, { ...TEST_COMPANY, version: 1 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect(await read(admin)).toEqual(before);
    expect(await events(admin.accountId)).toHaveLength(1);
  });

  it('lets one of two concurrent writes of the same version win, with a settings PATCH', async () => {
    const { admin } = await account();
    const results = await Promise.all([
      put(admin, { version: 1, ...FULL }),
      t.request({
        method: 'PATCH',
        url: '/v1/account/addresses',
        token: admin.token,
        payload: { version: 1, currency: 'GBP' },
      }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await read(admin)).version).toBe(2);
    expect(await events(admin.accountId)).toHaveLength(1);
  });
});

describe('company: bad input', () => {
  const valid = { version: 1, ...TEST_COMPANY };
  const bank = TEST_COMPANY.bankAccounts[0]!;
  const { legalName: _omitted, ...withoutLegalName } = valid;

  it.each([
    ['missing legalName', withoutLegalName, '/body/legalName', 'required'],
    ['empty legalName', { ...valid, legalName: '' }, '/body/legalName', 'too_short'],
    ['long legalName', { ...valid, legalName: 'x'.repeat(201) }, '/body/legalName', 'too_long'],
    ['unknown field', { ...valid, iban: 'DE02…' }, '/body/iban', 'unknown_field'],
    [
      'unknown address field',
      { ...valid, address: { ...TEST_COMPANY.address, state: 'BE' } },
      '/body/address/state',
      'unknown_field',
    ],
    [
      'address without city',
      { ...valid, address: { street: 'A 1', postalCode: '10115', country: 'DE' } },
      '/body/address/city',
      'required',
    ],
    [
      'address country XX',
      { ...valid, address: { ...TEST_COMPANY.address, country: 'XX' } },
      '/body/address/country',
      'not_in_enum',
    ],
    [
      'taxNumber with letters',
      { ...valid, taxNumber: 'ST 30/123/45678' },
      '/body/taxNumber',
      'invalid_format',
    ],
    ['email', { ...valid, email: 'not-an-email' }, '/body/email', 'invalid_format'],
    ['phone', { ...valid, phone: 'call me' }, '/body/phone', 'invalid_format'],
    ['website', { ...valid, website: 'ftp://x.example' }, '/body/website', 'invalid_format'],
    [
      'eleven managing directors',
      { ...valid, managingDirectors: Array.from({ length: 11 }, (_, i) => `D ${i}`) },
      '/body/managingDirectors',
      'too_many',
    ],
    [
      'six bank accounts',
      { ...valid, bankAccounts: Array.from({ length: 6 }, () => bank) },
      '/body/bankAccounts',
      'too_many',
    ],
    [
      'a BIC of 9 characters',
      { ...valid, bankAccounts: [{ ...bank, bic: 'BYLADEM10' }] },
      '/body/bankAccounts/0/bic',
      'invalid_format',
    ],
    [
      'a bank account without iban',
      { ...valid, bankAccounts: [{ bic: null, accountHolder: null, bankName: null }] },
      '/body/bankAccounts/0/iban',
      'required',
    ],
    [
      'electronic address without value',
      { ...valid, electronicAddress: { scheme: 'EM' } },
      '/body/electronicAddress/value',
      'required',
    ],
    [
      'payment term 366',
      { ...valid, defaultPaymentTermDays: 366 },
      '/body/defaultPaymentTermDays',
      'too_large',
    ],
    [
      'payment term -1',
      { ...valid, defaultPaymentTermDays: -1 },
      '/body/defaultPaymentTermDays',
      'too_small',
    ],
    [
      'payment term 1.5',
      { ...valid, defaultPaymentTermDays: 1.5 },
      '/body/defaultPaymentTermDays',
      'wrong_type',
    ],
    [
      'smallBusiness as a string',
      { ...valid, smallBusiness: 'no' },
      '/body/smallBusiness',
      'wrong_type',
    ],
    ['version missing', { ...TEST_COMPANY }, '/body/version', 'required'],
  ])('400 on %s, naming the field', async (_label, payload, field, code) => {
    const { admin } = await account();
    const res = await put(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path: field, code }));
    expect(await read(admin)).toMatchObject({ version: 1, legalName: 'Test GmbH' });
  });

  it.each([
    [
      'a German VAT id with a wrong check digit',
      { vatId: 'DE123456789' },
      '/body/vatId',
      'check digit',
    ],
    ['a German VAT id of 8 digits', { vatId: 'DE12345678' }, '/body/vatId', 'DE + 9 digits'],
    ['an Austrian VAT id without U', { vatId: 'AT12345678' }, '/body/vatId', 'ATU + 8 digits'],
    ['a Dutch VAT id without B', { vatId: 'NL123456789001' }, '/body/vatId', 'NL + 9 digits'],
    ['GR instead of EL', { vatId: 'GR123456789' }, '/body/vatId', 'EL'],
    ['no country prefix', { vatId: '123456789' }, '/body/vatId', 'country prefix'],
    [
      'a tax number of 9 digits',
      { taxNumber: '30/123/4567' },
      '/body/taxNumber',
      '10 to 13 digits',
    ],
    ['a tax number of 14 digits', { taxNumber: '12345678901234' }, '/body/taxNumber', '10 to 13'],
    [
      'an unknown EAS scheme',
      { electronicAddress: { scheme: '9958', value: '04011000-12345-03' } },
      '/body/electronicAddress/scheme',
      'EAS',
    ],
    [
      'EM that is not an email',
      { electronicAddress: { scheme: 'EM', value: 'rechnung at example' } },
      '/body/electronicAddress/value',
      'email',
    ],
    [
      'a Leitweg-ID with wrong check digits',
      { electronicAddress: { scheme: '0204', value: '04011000-12345-04' } },
      '/body/electronicAddress/value',
      'check digits',
    ],
    [
      'an IBAN with a wrong checksum',
      { bankAccounts: [{ ...TEST_COMPANY.bankAccounts[0]!, iban: 'DE02120300000000202052' }] },
      '/body/bankAccounts/0/iban',
      'check sum',
    ],
    [
      'a BIC with an unknown country',
      { bankAccounts: [{ ...TEST_COMPANY.bankAccounts[0]!, bic: 'BYLAXXM1' }] },
      '/body/bankAccounts/0/bic',
      'country',
    ],
  ])('400 on %s, naming the field and why', async (_label, change, field, why) => {
    const { admin } = await account();
    const res = await put(admin, { version: 1, ...TEST_COMPANY, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      expect.objectContaining({ path: field, message: expect.stringContaining(why) }),
    ]);
    expect(await read(admin)).toMatchObject({ version: 1, vatId: 'DE123456788' });
    expect(await events(admin.accountId)).toHaveLength(0);
  });

  it('collects every semantic problem into one answer', async () => {
    const { admin } = await account();
    const res = await put(admin, {
      ...TEST_COMPANY,
      version: 1,
      vatId: 'DE000000001',
      electronicAddress: { scheme: 'XX', value: 'x' },
      bankAccounts: [
        TEST_COMPANY.bankAccounts[0],
        { iban: 'DE00120300000000202051', bic: null, accountHolder: null, bankName: null },
      ],
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['/body/bankAccounts/1/iban', '/body/electronicAddress/scheme', '/body/vatId']);
  });
});

describe('company: authorization and tenancy', () => {
  it('403 forbidden for the `user` role on PUT, and nothing changes', async () => {
    const { admin, member } = await account();
    const res = await put(member, { version: 1, ...FULL });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('forbidden');
    expect(await read(admin)).toMatchObject({ version: 1, legalName: 'Test GmbH' });
  });

  it('writes and shows only the caller’s own account', async () => {
    const mine = await account();
    const theirs = await account();
    expect((await put(mine.admin, { version: 1, ...FULL })).statusCode).toBe(200);
    expect(await read(theirs.member)).toMatchObject({
      ...TEST_COMPANY,
      version: 1,
    });
    expect((await read(mine.member)).legalName).toBe('Nordlicht Design GmbH');
    expect(await events(theirs.admin.accountId)).toHaveLength(0);
  });
});
