import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { freshDatabase } from '../../../test/fresh-database.js';
import { migrations } from '../../db/migrations/index.js';
import { findPartner, findPartnerJson } from './partners.repository.js';
import { presentPartner } from './partners.presenter.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

interface PartnerAnswer {
  id: string;
  version: number;
  type: string;
  partnerNumber: string | null;
}

const create = (user: TestUser, payload: Record<string, unknown>, app = t) =>
  app.request({ method: 'POST', url: '/v1/partners', token: user.token, payload });

async function created(
  user: TestUser,
  payload: Record<string, unknown>,
  app = t,
): Promise<PartnerAnswer> {
  const res = await create(user, payload, app);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<PartnerAnswer>();
}

const list = async (user: TestUser, query: string) => {
  const res = await t.request({ method: 'GET', url: `/v1/partners?${query}`, token: user.token });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<{ data: PartnerAnswer[] }>().data.map((p) => p.partnerNumber);
};

describe('partner numbers', () => {
  let admin: TestUser;
  let member: TestUser;
  beforeAll(async () => {
    admin = await createUser(t);
    member = await createUser(t, { role: 'user', accountId: admin.accountId });
  });

  it('numbers customers from 10001 and vendors from 70001, each type on its own', async () => {
    const a = await created(member, { name: 'Kunde A' });
    const v = await created(member, { name: 'Lieferant V', type: 'VENDOR' });
    const b = await created(member, { name: 'Kunde B', type: 'CUSTOMER' });
    expect([a.partnerNumber, b.partnerNumber, v.partnerNumber]).toEqual([
      '10001',
      '10002',
      '70001',
    ]);
    // Another account starts its own sequences.
    const other = await createUser(t);
    expect((await created(other, { name: 'Fremd' })).partnerNumber).toBe('10001');
    // The read answers the same as the create.
    const one = await t.request({
      method: 'GET',
      url: `/v1/partners/${a.id}`,
      token: member.token,
    });
    expect(one.json()).toStrictEqual(a);
  });

  it('takes a number given on create, skips it in the sequence, and refuses it twice (409)', async () => {
    const given = await created(member, { name: 'Handnummer', partnerNumber: '10003' });
    expect(given.partnerNumber).toBe('10003');
    // The sequence stands at 10003: that number is taken, so the next one is 10004.
    expect((await created(member, { name: 'Nach der Hand' })).partnerNumber).toBe('10004');
    const twice = await create(member, { name: 'Doppelt', partnerNumber: '10003' });
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toMatchObject({
      code: 'duplicate',
      errors: [{ path: '/body/partnerNumber', code: 'duplicate' }],
    });
    // Nothing was written: the name is not found.
    expect(await list(member, 'q=Doppelt')).toEqual([]);
  });

  it('changes a number on update; a taken one is 409 and changes nothing', async () => {
    const p = await created(member, { name: 'Umnummeriert' });
    const res = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: member.token,
      payload: { version: p.version, partnerNumber: 'K-2026/7' },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ partnerNumber: 'K-2026/7', version: p.version + 1 });
    const clash = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: member.token,
      payload: { version: p.version + 1, partnerNumber: '10001' },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({
      code: 'duplicate',
      errors: [{ path: '/body/partnerNumber', code: 'duplicate' }],
    });
    const after = await t.request({
      method: 'GET',
      url: `/v1/partners/${p.id}`,
      token: member.token,
    });
    expect(after.json()).toMatchObject({ partnerNumber: 'K-2026/7', version: p.version + 1 });
  });

  it.each([' 10001', '', 'a'.repeat(31), 'K 1', '-1', 'Ä1'])(
    'refuses the number %j (400 naming the field)',
    async (partnerNumber) => {
      const res = await create(member, { name: 'Falsch', partnerNumber });
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain('/body/partnerNumber');
    },
  );

  it('finds partners by number: the exact filter, and q by the start of the number', async () => {
    const user = await createUser(t);
    await created(user, { name: 'Alpha' });
    await created(user, { name: 'Beta' });
    await created(user, { name: 'Gamma', partnerNumber: 'X-100' });
    expect(await list(user, 'partnerNumber=10002')).toEqual(['10002']);
    expect(await list(user, 'partnerNumber=1000')).toEqual([]);
    expect(await list(user, 'q=1000')).toEqual(['10002', '10001']);
    expect(await list(user, 'q=X-1')).toEqual(['X-100']);
    // Wildcards are taken literally; the name search still works.
    expect(await list(user, 'q=%25')).toEqual([]);
    expect(await list(user, 'q=alp')).toEqual(['10001']);
  });

  it('answers and sets the sequences (admins), which new partners then follow', async () => {
    const user = await createUser(t);
    const colleague = await createUser(t, { role: 'user', accountId: user.accountId });
    const get = await t.request({
      method: 'GET',
      url: '/v1/partners/numbering',
      token: colleague.token,
    });
    expect(get.statusCode).toBe(200);
    expect(get.json()).toEqual({
      customer: { prefix: '', nextValue: 10001, nextNumber: '10001' },
      vendor: { prefix: '', nextValue: 70001, nextNumber: '70001' },
    });
    const put = (token: string, payload: Record<string, unknown>) =>
      t.request({ method: 'PUT', url: '/v1/partners/numbering', token, payload });
    expect((await put(colleague.token, { customer: { nextValue: 5 } })).statusCode).toBe(403);
    const bad = await put(user.token, { customer: { prefix: 'K 1', nextValue: 0 } });
    expect(bad.statusCode).toBe(400);
    const res = await put(user.token, { customer: { prefix: 'K-', nextValue: 500 } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      customer: { prefix: 'K-', nextValue: 500, nextNumber: 'K-500' },
      vendor: { prefix: '', nextValue: 70001, nextNumber: '70001' },
    });
    expect((await created(user, { name: 'Neu' })).partnerNumber).toBe('K-500');
    expect((await created(user, { name: 'Neu V', type: 'VENDOR' })).partnerNumber).toBe('70001');
    // A later PUT changes only what it names.
    await put(user.token, { vendor: { prefix: 'L' } });
    const now = await t.request({
      method: 'GET',
      url: '/v1/partners/numbering',
      token: user.token,
    });
    expect(now.json()).toEqual({
      customer: { prefix: 'K-', nextValue: 501, nextNumber: 'K-501' },
      vendor: { prefix: 'L', nextValue: 70002, nextNumber: 'L70002' },
    });
    const events = await t.request({
      method: 'GET',
      url: '/v1/audit-events?action=partner_numbering.updated',
      token: user.token,
    });
    expect(events.statusCode, events.body).toBe(200);
    expect(events.json<{ data: unknown[] }>().data).toHaveLength(2);
  });

  /** Sets the sequences as an admin's PUT does. */
  async function putNumbering(user: TestUser, payload: Record<string, unknown>): Promise<void> {
    const put = await t.request({
      method: 'PUT',
      url: '/v1/partners/numbering',
      token: user.token,
      payload,
    });
    expect(put.statusCode, put.body).toBe(200);
  }

  it('moves a lowered sequence past a long run of taken numbers at once', async () => {
    const user = await createUser(t);
    for (let i = 0; i < 101; i++) await created(user, { name: `Bestand ${i}` });
    await putNumbering(user, { customer: { nextValue: 10001 } });
    // 10001…10101 are taken: the create continues after them (it answered 422 after 100 tries).
    expect((await created(user, { name: 'Danach' })).partnerNumber).toBe('10102');
    expect((await created(user, { name: 'Und weiter' })).partnerNumber).toBe('10103');
  });

  it("continues customers after the vendors' numbers when the sequences meet", async () => {
    const user = await createUser(t);
    const vendors = await Promise.all(
      Array.from({ length: 130 }, (_, i) =>
        created(user, { name: `Lieferant ${i}`, type: 'VENDOR' }),
      ),
    );
    expect(Math.max(...vendors.map((v) => Number(v.partnerNumber)))).toBe(70130);
    // As after 60,000 customers: the customer sequence reaches 70001.
    await putNumbering(user, { customer: { nextValue: 69999 } });
    const one = async (name: string) => Number((await created(user, { name })).partnerNumber);
    expect([await one('Kunde 1'), await one('Kunde 2'), await one('Kunde 3')]).toEqual([
      69999, 70000, 70131,
    ]);
    const together = await Promise.all(Array.from({ length: 3 }, (_, i) => one(`Kunde ${i + 4}`)));
    expect(together.sort((a, b) => a - b)).toEqual([70132, 70133, 70134]);
    // The vendors go on after their own numbers (and the customers' now among them).
    expect((await created(user, { name: 'Lieferant neu', type: 'VENDOR' })).partnerNumber).toBe(
      '70135',
    );
  });

  it('gives concurrent customers and vendors different numbers where their sequences meet', async () => {
    const user = await createUser(t);
    // Both sequences at 50000: each hands out 50000, 50001, … for its own type.
    await putNumbering(user, { customer: { nextValue: 50000 }, vendor: { nextValue: 50000 } });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        created(user, { name: `Zugleich ${i}`, type: i % 2 ? 'VENDOR' : 'CUSTOMER' }),
      ),
    );
    const numbers = answers.map((a) => Number(a.partnerNumber));
    expect(new Set(numbers).size).toBe(16);
    expect(Math.min(...numbers)).toBe(50000);
  });

  it('gives concurrent creates different numbers', async () => {
    const user = await createUser(t);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => created(user, { name: `Parallel ${i}` })),
    );
    const numbers = answers.map((a) => a.partnerNumber).sort();
    expect(numbers).toEqual(Array.from({ length: 8 }, (_, i) => String(10001 + i)));
  });

  it('gives concurrent creates the free numbers in turn, past numbers typed in by hand', async () => {
    const user = await createUser(t);
    for (const partnerNumber of ['10002', '10003', '10006'])
      await created(user, { name: `Von Hand ${partnerNumber}`, partnerNumber });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => created(user, { name: `Zugleich ${i}` })),
    );
    const numbers = answers.map((a) => Number(a.partnerNumber)).sort((a, b) => a - b);
    const free = [10001, 10004, 10005, ...Array.from({ length: 9 }, (_, i) => 10007 + i)];
    expect(numbers).toEqual(free);
    const numbering = await t.request({
      method: 'GET',
      url: '/v1/partners/numbering',
      token: user.token,
    });
    expect(numbering.json()).toMatchObject({ customer: { nextValue: 10016 } });
  });
});

describe.skipIf(dbKind !== 'postgres')('partner numbers: plans', () => {
  it('plans the number take and the walk past taken numbers anew on every run', async () => {
    // One connection, so the statements prepared on it are every statement the app prepared.
    // A prepared take kept the plan of its sixth run as a prepared statement, made while the
    // account had a handful of partners and no statistics: an account index with the number as
    // a filter, which read every partner of the account for each number as the partners grew.
    const one = await buildTestApp({ env: { DATABASE_POOL_SIZE: '1' } });
    try {
      const user = await createUser(one);
      const make = async (payload: Record<string, unknown>) =>
        (await created(user, payload, one)).partnerNumber;
      for (const partnerNumber of ['10003', '10006'])
        await make({ name: 'Von Hand', partnerNumber });
      const numbers = [];
      for (let i = 0; i < 10; i++) numbers.push(await make({ name: `Kunde ${i}` }));
      expect(numbers).toEqual([
        '10001',
        '10002',
        '10004',
        '10005',
        '10007',
        '10008',
        '10009',
        '10010',
        '10011',
        '10012',
      ]);
      const { rows } = await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements`.execute(one.app.ctx.db);
      const statements = rows.map((r) => r.statement);
      // The check itself: the app prepares its other statements on this connection.
      expect(statements.some((s) => s.includes('insert into "partners"'))).toBe(true);
      expect(statements.filter((s) => s.includes('partner_number_sequences'))).toEqual([]);
    } finally {
      await one.close();
    }
  });
});

describe('partner numbers: the upgrade (migration 0023)', () => {
  it('numbers existing partners in creation order per account and type, and continues after them', async () => {
    const database = await freshDatabase('kontor_numbers');
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: () => Promise.resolve(migrations) },
      });
      expect((await migrator.migrateTo('0022_webhook_sending')).error).toBeUndefined();
      for (const account of ['acc_a', 'acc_b'])
        await sql`insert into accounts (id, name, plan_id, currency, date_format, number_format,
          incoming_payment_term, budgets_suppressed, allow_contract_reminder_override,
          dashboard_widgets, addresses, version, created_at, updated_at)
          values (${account}, 'Alt GmbH', 'free', 'EUR', 'DD.MM.YYYY', '1.234,56', 'HABEN', 0, 0,
          '[]', '[]', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(
          database.db,
        );
      // Ids in another order than creation times: the times decide.
      const partners: [string, string, string, string][] = [
        ['ptr_z', 'acc_a', 'CUSTOMER', '2026-01-01T00:00:00.000Z'],
        ['ptr_y', 'acc_a', 'CUSTOMER', '2026-01-02T00:00:00.000Z'],
        ['ptr_x', 'acc_a', 'VENDOR', '2026-01-03T00:00:00.000Z'],
        ['ptr_w', 'acc_a', 'CUSTOMER', '2026-01-04T00:00:00.000Z'],
        ['ptr_v', 'acc_b', 'CUSTOMER', '2026-01-05T00:00:00.000Z'],
      ];
      for (const [id, account, type, at] of partners)
        await sql`insert into partners (id, account_id, name, search_name, type, addresses, tags,
          version, created_at, updated_at, dunning_blocked)
          values (${id}, ${account}, ${id}, ${id}, ${type}, '[]', '[]', 2, ${at}, ${at}, 0)`.execute(
          database.db,
        );
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const numbers = await sql<{ id: string; partner_number: string; version: number }>`
        select id, partner_number, version from partners order by id`.execute(database.db);
      expect(numbers.rows.map((r) => [r.id, r.partner_number, Number(r.version)])).toEqual([
        ['ptr_v', '10001', 2],
        ['ptr_w', '10003', 2],
        ['ptr_x', '70001', 2],
        ['ptr_y', '10002', 2],
        ['ptr_z', '10001', 2],
      ]);
      const row = await findPartner(database.db, 'acc_a', 'ptr_w');
      const stored = await findPartnerJson(database.db, 'acc_a', 'ptr_w');
      expect(JSON.parse(stored!.json)).toStrictEqual(presentPartner(row!));
      expect(presentPartner(row!).partnerNumber).toBe('10003');
      const sequences = await sql<{ account_id: string; partner_type: string; next_value: number }>`
        select account_id, partner_type, next_value from partner_number_sequences
        order by account_id, partner_type`.execute(database.db);
      expect(
        sequences.rows.map((r) => [r.account_id, r.partner_type, Number(r.next_value)]),
      ).toEqual([
        ['acc_a', 'CUSTOMER', 10004],
        ['acc_a', 'VENDOR', 70002],
        ['acc_b', 'CUSTOMER', 10002],
      ]);
      // The stored answer follows a number changed later.
      await sql`update partners set partner_number = 'K-1' where id = 'ptr_w'`.execute(database.db);
      const changed = await findPartnerJson(database.db, 'acc_a', 'ptr_w');
      expect(JSON.parse(changed!.json)).toMatchObject({ partnerNumber: 'K-1' });
    } finally {
      await database.close();
    }
  });
});
