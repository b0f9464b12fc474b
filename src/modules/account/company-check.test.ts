import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  TEST_COMPANY,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

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

const check = (user: TestUser, payload: Body) =>
  t.request({ method: 'POST', url: `${path}/check`, token: user.token, payload });

const read = async (user: TestUser) => {
  const res = await t.request({ method: 'GET', url: path, token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json();
};

const events = (accountId: string) =>
  t.app.ctx.db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId).execute();

/** Every field set, in forms the PUT normalises (VAT id, IBAN and BIC in lower case). */
const FULL = {
  legalName: 'Nordlicht Design GmbH',
  address: { street: 'Kaiserkai 7', postalCode: '20457', city: 'Hamburg', country: 'DE' },
  vatId: 'de 811 907 980',
  taxNumber: '2/123/45678 90',
  registerCourt: 'Amtsgericht Hamburg',
  registerNumber: 'HRB 98765',
  managingDirectors: ['Anna Nord'],
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
  ],
  smallBusiness: false,
  defaultPaymentTermDays: 30,
};

const bank = FULL.bankAccounts[0]!;

describe('company: the validation-only check', () => {
  it('answers 200 {valid: true} for data the PUT takes, and writes nothing', async () => {
    const { admin } = await account();
    const res = await check(admin, FULL);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ valid: true });
    expect(await read(admin)).toMatchObject({ ...TEST_COMPANY, version: 1 });
    expect(await events(admin.accountId)).toHaveLength(0);
  });

  it.each([
    ['a VAT id with a wrong check digit', { vatId: 'DE123456789' }, '/body/vatId', 'check digit'],
    ['a tax number of 9 digits', { taxNumber: '30/123/4567' }, '/body/taxNumber', '10 to 13'],
    ['a tax number with letters', { taxNumber: 'ST 30/123/45678' }, '/body/taxNumber', 'match'],
    [
      'an IBAN with a wrong checksum',
      { bankAccounts: [{ ...bank, iban: 'DE02120300000000202052' }] },
      '/body/bankAccounts/0/iban',
      'check sum',
    ],
    [
      'a BIC with an unknown country',
      { bankAccounts: [{ ...bank, bic: 'BYLAXXM1' }] },
      '/body/bankAccounts/0/bic',
      'country',
    ],
    [
      'an electronic address that is not an email',
      { electronicAddress: { scheme: 'EM', value: 'rechnung at example' } },
      '/body/electronicAddress/value',
      'email',
    ],
    ['an email', { email: 'not-an-email' }, '/body/email', 'email'],
    ['an empty legal name', { legalName: '' }, '/body/legalName', 'character'],
  ])(
    '400 on %s: the PUT’s problem, naming the field, and nothing written',
    async (_label, change, field, why) => {
      const { admin } = await account();
      const checked = await check(admin, { ...FULL, ...change });
      expect(checked.statusCode).toBe(400);
      expect(checked.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(checked.json()).toMatchObject({ code: 'validation_failed' });
      expect(checked.json().errors).toEqual([
        expect.objectContaining({ path: field, message: expect.stringContaining(why) }),
      ]);
      // The same checks as the PUT: the same answer, field by field.
      const put = await t.request({
        method: 'PUT',
        url: path,
        token: admin.token,
        payload: { version: 1, ...FULL, ...change },
      });
      expect(put.statusCode).toBe(400);
      expect(checked.json().errors).toEqual(put.json().errors);
      expect(checked.json().detail).toBe(put.json().detail);
      expect(await read(admin)).toMatchObject({ ...TEST_COMPANY, version: 1 });
      expect(await events(admin.accountId)).toHaveLength(0);
    },
  );

  it('collects every refused field into one answer', async () => {
    const { admin } = await account();
    const res = await check(admin, {
      ...FULL,
      vatId: 'DE000000001',
      taxNumber: '30/123/4567',
      bankAccounts: [{ ...bank, iban: 'DE00120300000000202051' }],
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['/body/bankAccounts/0/iban', '/body/taxNumber', '/body/vatId']);
  });

  it('takes no version: one sent is an unknown field', async () => {
    const { admin } = await account();
    const res = await check(admin, { version: 1, ...FULL });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      expect.objectContaining({ path: '/body/version', code: 'unknown_field' }),
    ]);
  });

  it('needs every field, as the PUT', async () => {
    const { admin } = await account();
    const { bankAccounts: _omitted, ...withoutBanks } = FULL;
    const res = await check(admin, withoutBanks);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      expect.objectContaining({ path: '/body/bankAccounts', code: 'required' }),
    ]);
  });

  it('403 forbidden for the `user` role, as the PUT; 401 without credentials', async () => {
    const { admin, member } = await account();
    const refused = await check(member, FULL);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('forbidden');
    const anonymous = await t.request({ method: 'POST', url: `${path}/check`, payload: FULL });
    expect(anonymous.statusCode).toBe(401);
    expect(await read(admin)).toMatchObject({ version: 1 });
    expect(await events(admin.accountId)).toHaveLength(0);
  });

  it('leaves a later save at the version read', async () => {
    const { admin } = await account();
    expect((await check(admin, FULL)).statusCode).toBe(200);
    expect((await check(admin, { ...FULL, vatId: 'DE123456789' })).statusCode).toBe(400);
    const put = await t.request({
      method: 'PUT',
      url: path,
      token: admin.token,
      payload: { version: 1, ...FULL },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ version: 2, vatId: 'DE811907980' });
  });
});
