import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.js';
import { settleAudit } from '../../shared/audit.js';
import { loadConfig } from '../../config.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import {
  buildTestApp,
  createUser,
  dbKind,
  logSink,
  type TestApp,
  type TestUser,
  checkAnswers,
} from '../../../test/helpers.js';

const PAN = '4111 1111 1111 1111';
const IBAN = 'DE89 3704 0044 0532 0130 00';
const CARD = {
  holderName: 'Erika Mustermann',
  brand: 'visa',
  last4: '1111',
  expMonth: 12,
  expYear: 2030,
  providerPaymentMethodId: 'pm_1NxYz',
};
const BANK = {
  holderName: 'Erika Mustermann',
  iban: IBAN,
  bic: 'COBADEFFXXX',
  mandateReference: 'KONTOR-0001',
};

let t: TestApp;
let admin: TestUser;
const log = logSink();

beforeAll(async () => {
  // A real app whose production logger writes into memory, so the test can read every line.
  const base = await buildTestApp();
  await base.app.close();
  const app = await buildApp(
    loadConfig({
      DATA_DIR: base.dataDir,
      LOG_LEVEL: 'trace',
      DATABASE_URL:
        dbKind === 'postgres'
          ? process.env.DATABASE_URL!
          : `sqlite:${path.join(base.dataDir, 'kontor.sqlite')}`,
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    }),
    {
      logStream: log.stream,
    },
  );
  checkAnswers(app);
  const { key } = await createApiKey(app.ctx.db, 'billing-test');
  t = {
    ...base,
    app,
    apiKey: key,
    close: async () => {
      await app.close();
      fs.rmSync(base.dataDir, { recursive: true, force: true });
    },
    request: async ({ token, key: k, headers, ...rest }) => {
      const res = await app.inject({
        ...rest,
        headers: {
          ...(k === null ? {} : { 'x-api-key': k ?? key }),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...headers,
        },
      });
      await settleAudit(app.ctx.db);
      return res;
    },
  };
  admin = await createUser(t);
});
afterAll(() => t.close());

const putCard = (user: TestUser, payload: unknown, headers: Record<string, string> = {}) =>
  t.request({
    method: 'PUT',
    url: '/v1/account/billing/card',
    token: user.token,
    payload: payload as object,
    headers,
  });
const putBank = (user: TestUser, payload: unknown) =>
  t.request({
    method: 'PUT',
    url: '/v1/account/billing/bank-account',
    token: user.token,
    payload: payload as object,
  });

/** Every text value stored for the account, for "never stored" checks. */
async function storedText(accountId: string): Promise<string> {
  const db = t.app.ctx.db;
  const rows = await Promise.all([
    db.selectFrom('account_billing').selectAll().where('account_id', '=', accountId).execute(),
    db.selectFrom('audit_events').selectAll().where('account_id', '=', accountId).execute(),
    db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', 'like', `${accountId}:%`)
      .execute(),
  ]);
  return JSON.stringify(rows);
}

describe('billing', () => {
  it('answers NONE at version 1 before anything is set, to users too', async () => {
    const owner = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    const res = await t.request({ method: 'GET', url: '/v1/account/billing', token: member.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ billingMethod: 'NONE', card: null, version: 1, updatedAt: null });
    expect(res.headers.etag).toBe('"1"');
  });

  it('sets a card reference, then a bank account, with versions and one audit event each', async () => {
    const owner = await createUser(t);
    const card = await putCard(owner, { card: CARD, billingMethod: 'CARD', version: 1 });
    expect(card.statusCode).toBe(200);
    expect(card.json()).toMatchObject({ billingMethod: 'CARD', version: 2, card: CARD });
    const bank = await putBank(owner, { card: BANK, billingMethod: 'BANK_ACCOUNT', version: 2 });
    expect(bank.statusCode).toBe(200);
    expect(bank.json()).toMatchObject({
      billingMethod: 'BANK_ACCOUNT',
      version: 3,
      card: {
        holderName: 'Erika Mustermann',
        iban: 'DE89 **** **** **** **30 00',
        bic: 'COBADEFFXXX',
        mandateReference: 'KONTOR-0001',
      },
    });
    const got = (
      await t.request({ method: 'GET', url: '/v1/account/billing', token: owner.token })
    ).json();
    expect(got.card.iban).toBe('DE89 **** **** **** **30 00');
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .where('action', '=', 'billing.method_set')
      .execute();
    expect(events).toHaveLength(2);
  });

  it('stores the IBAN only encrypted and never in the audit trail', async () => {
    const owner = await createUser(t);
    expect(
      (await putBank(owner, { card: BANK, billingMethod: 'BANK_ACCOUNT', version: 1 })).statusCode,
    ).toBe(200);
    const text = await storedText(owner.accountId);
    expect(text).not.toContain('DE89370400440532013000');
    expect(text).not.toContain('3704 0044 0532');
    const row = await t.app.ctx.db
      .selectFrom('account_billing')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .executeTakeFirstOrThrow();
    expect(row.bank_sealed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it.each([
    ['wrong check sum', 'DE89 3704 0044 0532 0130 01', 'has a wrong check sum'],
    ['wrong length', 'DE89 3704 0044 0532 0130', 'must have 22 characters for DE'],
    ['unknown country', 'XX89 3704 0044 0532 0130 00', 'has an unknown country code XX'],
  ])('refuses an IBAN with a %s', async (_label, iban, message) => {
    const owner = await createUser(t);
    const res = await putBank(owner, {
      card: { ...BANK, iban },
      billingMethod: 'BANK_ACCOUNT',
      version: 1,
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual({
      path: '/body/card/iban',
      message,
      code: 'invalid_format',
    });
    expect(
      (await t.request({ method: 'GET', url: '/v1/account/billing', token: owner.token })).json()
        .billingMethod,
    ).toBe('NONE');
  });

  it.each([
    ['as an extra field', { card: { ...CARD, number: PAN }, billingMethod: 'CARD', version: 1 }],
    [
      'in the holder name',
      { card: { ...CARD, holderName: PAN }, billingMethod: 'CARD', version: 1 },
    ],
    [
      'as last4',
      { card: { ...CARD, last4: PAN.replace(/ /g, '') }, billingMethod: 'CARD', version: 1 },
    ],
    [
      'as a number',
      {
        card: { ...CARD, providerPaymentMethodId: 4111111111111111 },
        billingMethod: 'CARD',
        version: 1,
      },
    ],
  ])(
    'refuses a full card number %s, and it reaches neither the database nor the log',
    async (_label, payload) => {
      const owner = await createUser(t);
      const res = await putCard(owner, payload, { 'idempotency-key': `pan-${Date.now()}` });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed' });
      expect(res.body).not.toContain('4111111111111111');
      expect(res.body).not.toContain(PAN);
      const text = await storedText(owner.accountId);
      expect(text).not.toContain('4111');
      const logs = log.text();
      expect(logs).not.toContain('4111111111111111');
      expect(logs).not.toContain(PAN);
    },
  );

  it('refuses a billingMethod that does not match the endpoint, and unknown fields', async () => {
    const owner = await createUser(t);
    const res = await putBank(owner, { card: BANK, billingMethod: 'CARD', version: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/billingMethod' }),
    );
    const extra = await putCard(owner, {
      card: CARD,
      billingMethod: 'CARD',
      version: 1,
      colour: 'red',
    });
    expect(extra.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/colour', code: 'unknown_field' }),
    );
  });

  it('409 on a stale version, 412 on If-Match, 403 for users, 401 without a token', async () => {
    const owner = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    expect(
      (await putCard(owner, { card: CARD, billingMethod: 'CARD', version: 1 })).statusCode,
    ).toBe(200);
    const stale = await putCard(owner, {
      card: { ...CARD, last4: '4242' },
      billingMethod: 'CARD',
      version: 1,
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const ifMatch = await putCard(
      owner,
      { card: CARD, billingMethod: 'CARD', version: 2 },
      { 'if-match': '"5"' },
    );
    expect(ifMatch.statusCode).toBe(412);
    expect(
      (await putCard(member, { card: CARD, billingMethod: 'CARD', version: 2 })).statusCode,
    ).toBe(403);
    expect((await t.request({ method: 'GET', url: '/v1/account/billing' })).statusCode).toBe(401);
    expect(
      (await t.request({ method: 'GET', url: '/v1/account/billing', token: owner.token })).json()
        .card.last4,
    ).toBe('1111');
  });

  it('lets exactly one of two concurrent first PUTs win', async () => {
    const owner = await createUser(t);
    const results = await Promise.all([
      putCard(owner, { card: CARD, billingMethod: 'CARD', version: 1 }),
      putBank(owner, { card: BANK, billingMethod: 'BANK_ACCOUNT', version: 1 }),
    ]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it('keeps one account’s billing away from another', async () => {
    const owner = await createUser(t);
    expect(
      (
        await putCard(admin, {
          card: CARD,
          billingMethod: 'CARD',
          version: (
            await t.request({ method: 'GET', url: '/v1/account/billing', token: admin.token })
          ).json().version,
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await t.request({ method: 'GET', url: '/v1/account/billing', token: owner.token })).json()
        .billingMethod,
    ).toBe('NONE');
  });
});
