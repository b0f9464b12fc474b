import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import * as audit from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { assertUnreferenced, registerReference } from '../../shared/references.js';
import { describeResourceContract } from '../../../test/contract.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;
let rate: string;
let otherRate: string;

/**
 * A tax rate written straight to the table: products must not depend on the tax-rates module
 * or on rates seeded at sign-up (those may be the account's default, so this one is not).
 */
async function insertTaxRate(accountId: string, name = 'USt 19 %'): Promise<string> {
  const id = newId('taxRate');
  const now = new Date().toISOString();
  await t.app.ctx.db
    .insertInto('tax_rates')
    .values({
      id,
      account_id: accountId,
      name,
      rate_bp: 1900,
      category: 'S',
      is_default: 0,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

let image: string;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  image = (await upload(t, admin, 'image/png', SAMPLES.png, 'logo.png')).ticket.fileId;
  other = await createUser(t);
  rate = await insertTaxRate(admin.accountId);
  otherRate = await insertTaxRate(other.accountId);
});
afterAll(() => t.close());

describeResourceContract(() => t, {
  name: 'product',
  path: '/v1/products',
  create: () => ({ name: 'Contract Product', unitPrice: 10, currency: 'EUR' }),
  update: { method: 'PUT', body: { name: 'Renamed Product' } },
  changedField: 'name',
});

const create = (
  user: TestUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) => t.request({ method: 'POST', url: '/v1/products', token: user.token, payload, headers });

const put = (
  user: TestUser,
  id: string,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) => t.request({ method: 'PUT', url: `/v1/products/${id}`, token: user.token, payload, headers });

const get = (user: TestUser, id: string) =>
  t.request({ method: 'GET', url: `/v1/products/${id}`, token: user.token });

/** The minimal valid body: name, price and currency. */
const minimal = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  unitPrice: 10,
  currency: 'EUR',
  ...extra,
});

const storedPrice = async (id: string) =>
  Number(
    (
      await t.app.ctx.db
        .selectFrom('products')
        .select('unit_price')
        .where('id', '=', id)
        .executeTakeFirstOrThrow()
    ).unit_price,
  );

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

describe('products: happy paths', () => {
  it('creates, reads, updates and deletes a product with every field', async () => {
    const res = await create(member, {
      name: 'Beratung Ärztekammer',
      type: 'GOODS',
      unitPrice: 1234.5,
      currency: 'EUR',
      unit: 'Stunde',
      description: 'Vor Ort, inklusive Anfahrt',
      photoFileId: image,
      taxRateId: rate,
      tags: ['consulting', 'onsite'],
    });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p.id).toMatch(/^prd_[0-9a-z]{26}$/);
    expect(p).toEqual({
      id: p.id,
      version: 1,
      createdAt: p.createdAt,
      updatedAt: p.createdAt,
      name: 'Beratung Ärztekammer',
      type: 'GOODS',
      unitPrice: 1234.5,
      currency: 'EUR',
      unit: 'Stunde',
      unitCode: 'HUR',
      description: 'Vor Ort, inklusive Anfahrt',
      photoFileId: image,
      taxRateId: rate,
      tags: ['consulting', 'onsite'],
    });
    expect(p.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/products/${p.id}`);
    // Stored as integer minor units.
    expect(await storedPrice(p.id)).toBe(123450);

    const got = await get(member, p.id);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(p);
    expect(got.headers.etag).toBe('"1"');

    const updated = await put(member, p.id, {
      version: 1,
      name: 'Beratung',
      type: 'SERVICE',
      unitPrice: 99.99,
      unit: null,
      description: null,
      photoFileId: null,
      taxRateId: null,
      tags: ['consulting'],
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      version: 2,
      name: 'Beratung',
      type: 'SERVICE',
      unitPrice: 99.99,
      currency: 'EUR',
      unit: null,
      description: null,
      photoFileId: null,
      taxRateId: null,
      tags: ['consulting'],
    });
    expect(updated.headers.etag).toBe('"2"');
    expect(await storedPrice(p.id)).toBe(9999);

    // Omitted fields stay; null tags clear them.
    const again = await put(member, p.id, { version: 2, taxRateId: rate, tags: null });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({
      version: 3,
      name: 'Beratung',
      unitPrice: 99.99,
      taxRateId: rate,
      tags: [],
    });
    expect((await get(member, p.id)).json()).toEqual(again.json());

    const del = await t.request({
      method: 'DELETE',
      url: `/v1/products/${p.id}`,
      token: member.token,
    });
    expect(del.statusCode).toBe(204);
    const gone = await get(member, p.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('not_found');
  });

  it('defaults type to SERVICE, optional fields to null and tags to empty', async () => {
    const res = await create(member, minimal('Minimal'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      type: 'SERVICE',
      unitPrice: 10,
      currency: 'EUR',
      unit: null,
      description: null,
      photoFileId: null,
      taxRateId: null,
      tags: [],
    });
  });

  it('a PUT with nothing but version is a write: version + 1 and an audit event', async () => {
    const p = (await create(admin, minimal('Only version'))).json();
    const res = await put(admin, p.id, { version: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ version: 2, name: 'Only version', unitPrice: 10 });
    expect(await auditCount(admin.accountId, p.id)).toBe(2);
  });
});

describe('products: money', () => {
  it.each([
    [0, 'EUR', 0],
    [0.1, 'EUR', 10],
    [0.3, 'EUR', 30],
    [19.99, 'EUR', 1999],
    [1500, 'JPY', 1500],
    [1.234, 'KWD', 1234],
    [999_999_999_999.99, 'EUR', 99_999_999_999_999],
    [1_000_000_000_000, 'KWD', 1_000_000_000_000_000],
  ])('stores %s %s as %s minor units and answers it back unchanged', async (price, cur, minor) => {
    const res = await create(admin, minimal('Price', { unitPrice: price, currency: cur }));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ unitPrice: price, currency: cur });
    expect(await storedPrice(res.json().id)).toBe(minor);
    expect((await get(admin, res.json().id)).json()).toMatchObject({ unitPrice: price });
  });

  it('checks a new unitPrice against the stored currency, and against a new one', async () => {
    const p = (await create(admin, minimal('Repriced', { unitPrice: 12.5 }))).json();
    const refused = await put(admin, p.id, { version: 1, unitPrice: 12.345 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([
      {
        path: '/body/unitPrice',
        message: 'has more decimals than EUR allows (2 decimals)',
        code: 'too_many_decimals',
      },
    ]);
    const jpy = await put(admin, p.id, { version: 1, unitPrice: 1.5, currency: 'JPY' });
    expect(jpy.statusCode).toBe(400);
    expect(jpy.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/unitPrice', code: 'too_many_decimals' }),
    );
    const both = await put(admin, p.id, { version: 1, unitPrice: 1500, currency: 'JPY' });
    expect(both.statusCode).toBe(200);
    expect(both.json()).toMatchObject({ version: 2, unitPrice: 1500, currency: 'JPY' });
    expect(await storedPrice(p.id)).toBe(1500);
    const kwd = await put(admin, p.id, { version: 2, unitPrice: 0.125, currency: 'KWD' });
    expect(kwd.json()).toMatchObject({ version: 3, unitPrice: 0.125, currency: 'KWD' });
    expect(await storedPrice(p.id)).toBe(125);
  });

  it('keeps the stored amount when only the currency changes, if the new one can hold it', async () => {
    const p = (await create(admin, minimal('Recurrenced', { unitPrice: 12 }))).json();
    const toJpy = await put(admin, p.id, { version: 1, currency: 'JPY' });
    expect(toJpy.statusCode).toBe(200);
    expect(toJpy.json()).toMatchObject({ version: 2, unitPrice: 12, currency: 'JPY' });
    expect(await storedPrice(p.id)).toBe(12);
    const toKwd = await put(admin, p.id, { version: 2, currency: 'KWD' });
    expect(toKwd.json()).toMatchObject({ version: 3, unitPrice: 12, currency: 'KWD' });
    expect(await storedPrice(p.id)).toBe(12000);
    const same = await put(admin, p.id, { version: 3, currency: 'KWD' });
    expect(same.json()).toMatchObject({ version: 4, unitPrice: 12, currency: 'KWD' });
  });

  it('refuses a currency that cannot hold the stored price, and changes nothing', async () => {
    const p = (await create(admin, minimal('Cents', { unitPrice: 12.5 }))).json();
    const events = await auditCount(admin.accountId, p.id);
    const res = await put(admin, p.id, { version: 1, currency: 'JPY', name: 'Renamed' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      {
        path: '/body/currency',
        message:
          'cannot hold the stored unitPrice 12.5 (JPY allows 0 decimals); send a unitPrice with it',
        code: 'too_many_decimals',
      },
    ]);
    expect((await get(admin, p.id)).json()).toEqual(p);
    expect(await storedPrice(p.id)).toBe(1250);
    expect(await auditCount(admin.accountId, p.id)).toBe(events);
  });
});

describe('products: lists', () => {
  it('filters by type, tag, tax rate and accent-insensitive text, newest first', async () => {
    const owner = await createUser(t);
    const ownerRate = await insertTaxRate(owner.accountId);
    const names = ['Alpha Beratung', 'Beta Café', 'Gamma Bäckerei', 'Delta 100% Rabatt', 'Epsilon'];
    for (const [i, name] of names.entries())
      expect(
        (
          await create(
            owner,
            minimal(name, {
              type: i % 2 ? 'GOODS' : 'SERVICE',
              tags: i < 2 ? ['vip'] : [],
              ...(i >= 3 ? { taxRateId: ownerRate } : {}),
            }),
          )
        ).statusCode,
      ).toBe(201);
    const list = async (qs: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/products?${qs}`, token: owner.token });
      expect(res.statusCode).toBe(200);
      return res.json().data.map((p: { name: string }) => p.name) as string[];
    };

    expect(await list('')).toEqual([...names].reverse());
    expect(await list('type=GOODS')).toEqual(['Delta 100% Rabatt', 'Beta Café']);
    expect(await list('type=SERVICE&tag=vip')).toEqual(['Alpha Beratung']);
    expect(await list('tag=vip')).toEqual(['Beta Café', 'Alpha Beratung']);
    expect(await list(`taxRateId=${ownerRate}`)).toEqual(['Epsilon', 'Delta 100% Rabatt']);
    expect(await list(`taxRateId=${rate}`)).toEqual([]);
    expect(await list('q=CAFE')).toEqual(['Beta Café']);
    expect(await list('q=backerei')).toEqual(['Gamma Bäckerei']);
    // LIKE wildcards in the search text are taken literally.
    expect(await list('q=100%25')).toEqual(['Delta 100% Rabatt']);
    expect(await list('q=_')).toEqual([]);
  });

  it('keeps pages stable while records are inserted', async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 5; i++) await create(owner, minimal(`P${i}`));
    const page = async (qs: string) =>
      (await t.request({ method: 'GET', url: `/v1/products?${qs}`, token: owner.token })).json();
    const page1 = await page('limit=2');
    expect(page1.data.map((p: { name: string }) => p.name)).toEqual(['P4', 'P3']);
    await create(owner, minimal('inserted meanwhile'));
    const page2 = await page(`limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((p: { name: string }) => p.name)).toEqual(['P2', 'P1']);
    const page3 = await page(`limit=2&cursor=${page2.nextCursor}`);
    expect(page3.data.map((p: { name: string }) => p.name)).toEqual(['P0']);
    expect(page3.nextCursor).toBeNull();
  });
});

describe('products: bad input', () => {
  it.each([
    ['wrong type', minimal('X', { name: 42 }), '/body/name', 'wrong_type'],
    ['price as a string', minimal('X', { unitPrice: '12.50' }), '/body/unitPrice', 'wrong_type'],
    ['missing name', { unitPrice: 1, currency: 'EUR' }, '/body/name', 'required'],
    ['missing unitPrice', { name: 'X', currency: 'EUR' }, '/body/unitPrice', 'required'],
    ['missing currency', { name: 'X', unitPrice: 1 }, '/body/currency', 'required'],
    ['value outside the enum', minimal('X', { type: 'RENTAL' }), '/body/type', 'not_in_enum'],
    ['unknown currency', minimal('X', { currency: 'XXX' }), '/body/currency', 'not_in_enum'],
    ['lower-case currency', minimal('X', { currency: 'eur' }), '/body/currency', 'not_in_enum'],
    ['unknown field', minimal('X', { colour: 'red' }), '/body/colour', 'unknown_field'],
    ['too long name', minimal('x'.repeat(201)), '/body/name', 'too_long'],
    ['empty name', minimal(''), '/body/name', 'too_short'],
    ['too long unit', minimal('X', { unit: 'x'.repeat(51) }), '/body/unit', 'too_long'],
    [
      'too long description',
      minimal('X', { description: 'x'.repeat(10_001) }),
      '/body/description',
      'too_long',
    ],
    ['negative price', minimal('X', { unitPrice: -1 }), '/body/unitPrice', 'too_small'],
    ['too large price', minimal('X', { unitPrice: 1e13 }), '/body/unitPrice', 'too_large'],
    [
      'too many decimals (EUR)',
      minimal('X', { unitPrice: 12.345 }),
      '/body/unitPrice',
      'too_many_decimals',
    ],
    [
      'too many decimals (JPY)',
      minimal('X', { unitPrice: 1.5, currency: 'JPY' }),
      '/body/unitPrice',
      'too_many_decimals',
    ],
    [
      'a price below the smallest unit',
      minimal('X', { unitPrice: 1e-7 }),
      '/body/unitPrice',
      'too_many_decimals',
    ],
    [
      'null taxRateId on create',
      minimal('X', { taxRateId: null }),
      '/body/taxRateId',
      'wrong_type',
    ],
    ['duplicate tags', minimal('X', { tags: ['a', 'a'] }), '/body/tags', 'duplicate_items'],
    [
      'too many tags',
      minimal('X', { tags: [...Array(51).keys()].map(String) }),
      '/body/tags',
      'too_many',
    ],
  ])('400 on %s, naming the field, and nothing written', async (_label, payload, path, code) => {
    const before = await auditCount(admin.accountId);
    const res = await create(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('says clearly why a price with too many decimals is refused', async () => {
    const res = await create(admin, minimal('X', { unitPrice: 12.345 }));
    expect(res.json()).toMatchObject({
      code: 'validation_failed',
      detail: 'unitPrice has more decimals than EUR allows (2 decimals).',
      errors: [
        {
          path: '/body/unitPrice',
          message: 'has more decimals than EUR allows (2 decimals)',
          code: 'too_many_decimals',
        },
      ],
    });
  });

  it('400 malformed_json on broken JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/products',
      token: admin.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x", "unitPrice": 1,',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('malformed_json');
  });

  it('400 on a bad PUT body, a foreign cursor and bad filters', async () => {
    const p = (await create(admin, minimal('V'))).json();
    for (const [payload, path, code] of [
      [{ name: 'W' }, '/body/version', 'required'],
      [{ version: 1, name: null }, '/body/name', 'wrong_type'],
      [{ version: 1, unitPrice: null }, '/body/unitPrice', 'wrong_type'],
      [{ version: 1, currency: null }, '/body/currency', 'not_in_enum'],
      [{ version: 1, currency: 'EURO' }, '/body/currency', 'not_in_enum'],
      [{ version: 1, type: null }, '/body/type', 'not_in_enum'],
      [{ version: 1, unitPrice: -0.01 }, '/body/unitPrice', 'too_small'],
      [{ version: 1, colour: 'red' }, '/body/colour', 'unknown_field'],
    ] as const) {
      const res = await put(admin, p.id, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect((await get(admin, p.id)).json()).toEqual(p);
    for (const qs of ['cursor=garbage', 'limit=101', 'limit=0', 'type=RENTAL', 'colour=red']) {
      const list = await t.request({
        method: 'GET',
        url: `/v1/products?${qs}`,
        token: admin.token,
      });
      expect(list.statusCode).toBe(400);
      expect(list.json().code).toBe('validation_failed');
    }
  });
});

describe('products: authentication and tenancy', () => {
  it('422 reference_not_found for another account’s or an unknown taxRateId', async () => {
    const before = await auditCount(admin.accountId);
    for (const taxRateId of [otherRate, 'txr_00000000000000000000000000', 'nonsense']) {
      const res = await create(admin, minimal('Foreign rate', { taxRateId }));
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({
        code: 'reference_not_found',
        errors: [expect.objectContaining({ path: '/body/taxRateId', code: 'reference_not_found' })],
      });
    }
    expect(await auditCount(admin.accountId)).toBe(before);
    const list = (
      await t.request({ method: 'GET', url: '/v1/products?q=foreign', token: admin.token })
    ).json();
    expect(list.data).toHaveLength(0);

    const p = (await create(admin, minimal('Own rate', { taxRateId: rate }))).json();
    const res = await put(admin, p.id, { version: 1, taxRateId: otherRate, name: 'Changed' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      expect.objectContaining({ path: '/body/taxRateId', code: 'reference_not_found' }),
    ]);
    expect((await get(admin, p.id)).json()).toEqual(p);
  });

  it('422 for a photoFileId that is not an uploaded image of the account', async () => {
    const theirs = (await upload(t, other, 'image/png', SAMPLES.png)).ticket.fileId;
    const pdf = (await upload(t, admin, 'application/pdf', SAMPLES.pdf)).ticket.fileId;
    const cases: Array<[string, string]> = [
      [theirs, 'reference_not_found'],
      ['fil_00000000000000000000000000', 'reference_not_found'],
      [pdf, 'business_rule_violated'],
    ];
    for (const [photoFileId, code] of cases) {
      const res = await create(admin, minimal('Photo', { photoFileId }));
      expect(res.statusCode, photoFileId).toBe(422);
      expect(res.json()).toMatchObject({
        code,
        errors: [expect.objectContaining({ path: '/body/photoFileId' })],
      });
    }
  });
});

describe('products: optimistic locking', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const p = (await create(admin, minimal('Locked'))).json();
    expect((await put(admin, p.id, { version: 1, name: 'First' })).statusCode).toBe(200);
    const events = await auditCount(admin.accountId, p.id);
    const stale = await put(admin, p.id, { version: 1, name: 'Second', unitPrice: 20 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    // Stale wins over anything the input might be refused for against the newer record.
    const staleBad = await put(admin, p.id, { version: 1, currency: 'JPY', unitPrice: 1.5 });
    expect(staleBad.statusCode).toBe(409);
    expect((await get(admin, p.id)).json()).toMatchObject({
      name: 'First',
      unitPrice: 10,
      version: 2,
    });
    expect(await auditCount(admin.accountId, p.id)).toBe(events);
  });

  it('412 when If-Match does not match; If-Match guards DELETE too', async () => {
    const p = (await create(admin, minimal('Etag'))).json();
    const mismatch = await put(admin, p.id, { version: 1, name: 'Nope' }, { 'if-match': '"7"' });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await put(admin, p.id, { version: 1, name: 'Yes' }, { 'if-match': '"1"' });
    expect(ok.statusCode).toBe(200);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/products/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"1"' },
    });
    expect(del.statusCode).toBe(412);
    expect((await get(admin, p.id)).statusCode).toBe(200);
    const del2 = await t.request({
      method: 'DELETE',
      url: `/v1/products/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"2"' },
    });
    expect(del2.statusCode).toBe(204);
  });

  it('lets exactly one of two concurrent updates of the same version win', async () => {
    const p = (await create(admin, minimal('Race'))).json();
    const results = await Promise.all(
      [1, 2].map((unitPrice) => put(admin, p.id, { version: 1, unitPrice })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect((await get(admin, p.id)).json().version).toBe(2);
  });
});

describe('products: idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const headers = { 'idempotency-key': `prd-${Date.now()}-1` };
    const first = await create(admin, minimal('Once'), headers);
    const again = await create(admin, minimal('Once'), headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers.location).toBe(first.headers.location);
    const list = (
      await t.request({ method: 'GET', url: '/v1/products?q=once', token: admin.token })
    ).json();
    expect(list.data).toHaveLength(1);
  });

  it('422 for the same key with another body; keys are per caller', async () => {
    const headers = { 'idempotency-key': `prd-${Date.now()}-2` };
    expect((await create(admin, minimal('Body A'), headers)).statusCode).toBe(201);
    const reused = await create(admin, minimal('Body A', { unitPrice: 11 }), headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
    // Another user may use the same key string for their own request.
    expect((await create(other, minimal('Body A', { unitPrice: 11 }), headers)).statusCode).toBe(
      201,
    );
  });

  it('does not store validation failures, so a corrected retry with the key works', async () => {
    const headers = { 'idempotency-key': `prd-${Date.now()}-3` };
    expect((await create(admin, minimal('Retry', { unitPrice: '1' }), headers)).statusCode).toBe(
      400,
    );
    expect((await create(admin, minimal('Retry', { unitPrice: 1.005 }), headers)).statusCode).toBe(
      400,
    );
    const fixed = await create(admin, minimal('Retry', { unitPrice: 1.01 }), headers);
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });
});

describe('products: audit and references', () => {
  it('writes one audit event per write, with the changed fields', async () => {
    const p = (await create(member, minimal('Audited', { taxRateId: rate }))).json();
    await put(member, p.id, { version: 1, unitPrice: 12.5, unit: 'Stück' });
    await t.request({ method: 'DELETE', url: `/v1/products/${p.id}`, token: member.token });
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${p.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'product.deleted',
      'product.updated',
      'product.created',
    ]);
    expect(events.every((e: { resourceType: string }) => e.resourceType === 'product')).toBe(true);
    expect(events[0].changes).toMatchObject({ name: 'Audited', unitPrice: 12.5, unit: 'Stück' });
    expect(events[1].changes).toEqual({
      unitPrice: { from: 10, to: 12.5 },
      unit: { from: null, to: 'Stück' },
      unitCode: { from: null, to: 'H87' },
    });
    expect(events[2].changes).toMatchObject({
      name: 'Audited',
      unitPrice: 10,
      currency: 'EUR',
      taxRateId: rate,
    });
    expect(events[2].actor).toMatchObject({
      type: 'user',
      userId: member.userId,
      tokenId: member.tokenId,
    });
  });

  it('rolls the write back when its audit event cannot be written (same transaction)', async () => {
    const p = (await create(admin, minimal('Kept'))).json();
    const spy = vi.spyOn(audit, 'appendAudit').mockRejectedValue(new Error('audit store down'));
    try {
      const before = await auditCount(admin.accountId);
      const res = await create(admin, minimal('Never stored', { tags: ['ghost'] }));
      expect(res.statusCode).toBe(500);
      expect(Object.keys(res.json()).sort()).toEqual([
        'code',
        'requestId',
        'status',
        'title',
        'type',
      ]);
      const upd = await put(admin, p.id, { version: 1, name: 'Never renamed', tags: ['ghost'] });
      expect(upd.statusCode).toBe(500);
      const del = await t.request({
        method: 'DELETE',
        url: `/v1/products/${p.id}`,
        token: admin.token,
      });
      expect(del.statusCode).toBe(500);
      spy.mockRestore();
      const list = (
        await t.request({ method: 'GET', url: '/v1/products?q=never', token: admin.token })
      ).json();
      expect(list.data).toHaveLength(0);
      const ghosts = (
        await t.request({ method: 'GET', url: '/v1/products?tag=ghost', token: admin.token })
      ).json();
      expect(ghosts.data).toHaveLength(0);
      expect((await get(admin, p.id)).json()).toEqual(p);
      expect(await auditCount(admin.accountId)).toBe(before);
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps a tax rate that products use from being deleted', async () => {
    const owner = await createUser(t);
    const used = await insertTaxRate(owner.accountId, 'used');
    const unused = await insertTaxRate(owner.accountId, 'unused');
    await create(owner, minimal('Uses it', { taxRateId: used }));
    await create(owner, minimal('Uses it too', { taxRateId: used }));
    const db = t.app.ctx.db;
    await expect(assertUnreferenced(db, 'tax_rate', owner.accountId, used)).rejects.toMatchObject({
      code: 'in_use',
      message: expect.stringContaining('2 products') as string,
    });
    await expect(assertUnreferenced(db, 'tax_rate', owner.accountId, unused)).resolves.toBe(
      undefined,
    );
    // The foreign key backs the check.
    await expect(db.deleteFrom('tax_rates').where('id', '=', used).execute()).rejects.toThrow();
  });

  it('refuses to delete a referenced product with 409 in_use', async () => {
    await sql`create table if not exists test_product_refs (id text primary key, account_id text not null, product_id text not null references products(id))`.execute(
      t.app.ctx.db,
    );
    const unregister = registerReference('product', {
      table: 'test_product_refs',
      column: 'product_id',
      label: 'test references',
    });
    // Other test files may share this worker's module registry: take the reference back.
    onTestFinished(unregister);
    const p = (await create(admin, minimal('Referenced'))).json();
    await sql`insert into test_product_refs (id, account_id, product_id) values (${`ref_${p.id}`}, ${admin.accountId}, ${p.id})`.execute(
      t.app.ctx.db,
    );
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/products/${p.id}`,
      token: admin.token,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'in_use' });
    expect(res.json().detail).toContain('1 test references');
    expect((await get(admin, p.id)).statusCode).toBe(200);
  });
});
