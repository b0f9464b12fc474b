import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { migrate, openDatabase } from '../../db/database.js';
import { migrations } from '../../db/migrations/index.js';
import { TAX_CATEGORIES } from './tax-rates.schemas.js';

/** VAT categories, exemption reasons and VATEX codes on tax rates (issue 10). */

let t: TestApp;
let admin: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  other = await createUser(t);
});
afterAll(() => t.close());

type Body = Record<string, unknown>;

const create = (payload: Body, as = admin) =>
  t.request({ method: 'POST', url: '/v1/tax-rates', token: as.token, payload });

const patch = (id: string, payload: Body, as = admin) =>
  t.request({ method: 'PATCH', url: `/v1/tax-rates/${id}`, token: as.token, payload });

const get = (id: string) =>
  t.request({ method: 'GET', url: `/v1/tax-rates/${id}`, token: admin.token });

const REVERSE_CHARGE = {
  name: 'Bauleistungen §13b',
  rate: 0,
  category: 'AE',
  exemptionReason: 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)',
  exemptionCode: 'VATEX-EU-AE',
};

describe('tax rates: categories', () => {
  it('lists the EN 16931 categories Kontor uses', () => {
    expect([...TAX_CATEGORIES]).toEqual(['S', 'Z', 'E', 'AE', 'K', 'G', 'O']);
  });

  it('creates a rate of every category with its reason and code, and answers them', async () => {
    for (const [category, rate, exemptionReason, exemptionCode] of [
      ['S', 19, null, null],
      ['Z', 0, null, null],
      ['E', 0, 'Steuerfrei nach § 4 Nr. 14 UStG', 'VATEX-EU-132'],
      ['AE', 0, REVERSE_CHARGE.exemptionReason, 'VATEX-EU-AE'],
      ['K', 0, 'Steuerfreie innergemeinschaftliche Lieferung', 'VATEX-EU-IC'],
      ['G', 0, 'Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1a UStG)', 'VATEX-EU-G'],
      ['O', 0, 'Nicht im Inland steuerbare Leistung', 'VATEX-EU-O'],
    ] as const) {
      const res = await create({
        name: `Kategorie ${category}`,
        rate,
        category,
        exemptionReason,
        exemptionCode,
      });
      expect(res.statusCode, category).toBe(201);
      expect(res.json()).toMatchObject({ category, rate, exemptionReason, exemptionCode });
      expect((await get(res.json().id)).json()).toEqual(res.json());
    }
  });

  it('takes S when the category is omitted, and Z for a 0 % rate', async () => {
    expect((await create({ name: 'Ohne Kategorie', rate: 16 })).json()).toMatchObject({
      category: 'S',
      exemptionReason: null,
      exemptionCode: null,
    });
    expect((await create({ name: 'Null ohne Kategorie', rate: 0 })).json()).toMatchObject({
      category: 'Z',
    });
  });

  it.each([
    ['S with rate 0', { name: 'X', rate: 0, category: 'S' }, [['/body/rate', 'above 0']]],
    [
      'AE with rate 19',
      { ...REVERSE_CHARGE, rate: 19 },
      [['/body/rate', 'must be 0 for category AE']],
    ],
    [
      'Z with rate 7',
      { name: 'X', rate: 7, category: 'Z' },
      [['/body/rate', 'must be 0 for category Z']],
    ],
    [
      'AE without a reason',
      { ...REVERSE_CHARGE, exemptionReason: undefined },
      [['/body/exemptionReason', 'is required for category AE']],
    ],
    [
      'E with a null reason',
      { name: 'X', rate: 0, category: 'E', exemptionReason: null },
      [['/body/exemptionReason', 'is required for category E']],
    ],
    [
      'S with a reason and a code',
      { name: 'X', rate: 19, category: 'S', exemptionReason: 'Nein', exemptionCode: 'VATEX-EU-O' },
      [
        ['/body/exemptionReason', 'must be null for category S'],
        ['/body/exemptionCode', 'must be null for category S'],
      ],
    ],
    [
      'K with rate 19 and no reason',
      { name: 'X', rate: 19, category: 'K' },
      [
        ['/body/rate', 'must be 0 for category K'],
        ['/body/exemptionReason', 'is required for category K'],
      ],
    ],
  ])('422 on %s, naming each field, and nothing written', async (_label, payload, expected) => {
    const before = await auditCount(t, admin.accountId);
    const res = await create(payload);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'business_rule_violated' });
    expect(
      res.json().errors.map((e: { path: string; message: string }) => [e.path, e.message]),
    ).toEqual(expected.map(([path, why]) => [path, expect.stringContaining(why!)]));
    expect(await auditCount(t, admin.accountId)).toBe(before);
  });

  it.each([
    ['an unknown category', { category: 'X' }, '/body/category', 'not_in_enum'],
    ['a lower-case category', { category: 's' }, '/body/category', 'not_in_enum'],
    ['a code outside VATEX', { exemptionCode: 'EU-AE' }, '/body/exemptionCode', 'invalid_format'],
    [
      'a lower-case VATEX code',
      { exemptionCode: 'vatex-eu-ae' },
      '/body/exemptionCode',
      'invalid_format',
    ],
    [
      'a reason of 501 characters',
      { exemptionReason: 'x'.repeat(501) },
      '/body/exemptionReason',
      'too_long',
    ],
    ['an empty reason', { exemptionReason: '' }, '/body/exemptionReason', 'too_short'],
  ])('400 on %s', async (_label, change, path, code) => {
    const res = await create({ ...REVERSE_CHARGE, ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('applies the rules to the rate as it is after a PATCH', async () => {
    const s = (await create({ name: 'Wird umgestellt', rate: 19 })).json();

    // Only the category: the stored rate 19 breaks AE, named by the category; the reason is missing.
    const toAe = await patch(s.id, { version: 1, category: 'AE' });
    expect(toAe.statusCode).toBe(422);
    expect(toAe.json().errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/category',
      '/body/exemptionReason',
    ]);
    const toZero = await patch(s.id, { version: 1, rate: 0 });
    expect(toZero.statusCode).toBe(422);
    expect(toZero.json().errors).toEqual([expect.objectContaining({ path: '/body/rate' })]);
    expect((await get(s.id)).json()).toEqual(s);

    const ae = await patch(s.id, {
      version: 1,
      rate: 0,
      category: 'AE',
      exemptionReason: REVERSE_CHARGE.exemptionReason,
      exemptionCode: 'VATEX-EU-AE',
    });
    expect(ae.statusCode).toBe(200);
    expect(ae.json()).toMatchObject({ version: 2, category: 'AE', rate: 0 });

    // Renaming keeps the category and its reason; back to S needs the reason cleared.
    expect((await patch(s.id, { version: 2, name: 'RC' })).json()).toMatchObject({
      category: 'AE',
      exemptionReason: REVERSE_CHARGE.exemptionReason,
    });
    const back = await patch(s.id, { version: 3, category: 'S', rate: 19 });
    expect(back.statusCode).toBe(422);
    expect(back.json().errors.map((e: { path: string }) => e.path)).toEqual([
      '/body/exemptionReason',
      '/body/exemptionCode',
    ]);
    const ok = await patch(s.id, {
      version: 3,
      category: 'S',
      rate: 19,
      exemptionReason: null,
      exemptionCode: null,
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      version: 4,
      category: 'S',
      exemptionReason: null,
      exemptionCode: null,
    });
  });

  it('audits the category and reason', async () => {
    const r = (await create(REVERSE_CHARGE)).json();
    await patch(r.id, { version: 1, exemptionReason: 'Reverse Charge' });
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes'])
      .where('resource_id', '=', r.id)
      .orderBy('seq', 'asc')
      .execute();
    expect(JSON.parse(events[0]!.changes)).toMatchObject({
      category: 'AE',
      exemptionReason: REVERSE_CHARGE.exemptionReason,
    });
    expect(JSON.parse(events[1]!.changes)).toEqual({
      exemptionReason: { from: REVERSE_CHARGE.exemptionReason, to: 'Reverse Charge' },
    });
  });

  it('answers 404 for another account’s rate, whatever the category', async () => {
    const r = (await create(REVERSE_CHARGE)).json();
    expect((await patch(r.id, { version: 1, category: 'S', rate: 19 }, other)).statusCode).toBe(
      404,
    );
  });
});

describe('tax rates: migration of existing rates', () => {
  it('classes existing 0 % rates as zero rates (Z) and the others as standard (S)', async () => {
    // A database as it was before the invoicing migration, with rates of an existing account.
    const database = openDatabase({ database: { kind: 'sqlite', file: ':memory:' } });
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: () => Promise.resolve(migrations) },
      });
      const { error } = await migrator.migrateTo('0013_account_logo');
      expect(error).toBeUndefined();
      const now = new Date().toISOString();
      await sql`insert into accounts (id, name, plan_id, currency, date_format, number_format,
        incoming_payment_term, budgets_suppressed, allow_contract_reminder_override,
        dashboard_widgets, addresses, version, created_at, updated_at)
        values ('acc_m', 'Alt GmbH', 'free', 'EUR', 'DD.MM.YYYY', '1.234,56', 'HABEN', 0, 0,
        '[]', '[]', 1, ${now}, ${now})`.execute(database.db);
      for (const [id, bp, isDefault] of [
        ['txr_a', 1900, 1],
        ['txr_b', 700, 0],
        ['txr_c', 0, 0],
      ] as const)
        await sql`insert into tax_rates (id, account_id, name, rate_bp, is_default, version,
          created_at, updated_at) values (${id}, 'acc_m', ${id}, ${bp}, ${isDefault}, 1, ${now},
          ${now})`.execute(database.db);

      await migrate(database.db);
      const rows = await database.db
        .selectFrom('tax_rates')
        .select(['id', 'category', 'exemption_reason'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'txr_a', category: 'S', exemption_reason: null },
        { id: 'txr_b', category: 'S', exemption_reason: null },
        { id: 'txr_c', category: 'Z', exemption_reason: null },
      ]);
    } finally {
      await database.close();
    }
  });
});
