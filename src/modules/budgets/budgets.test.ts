import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  email,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { describeResourceContract } from '../../../test/contract.js';
import { DAY, ManualClock } from '../../shared/clock.js';
import { runReminders } from '../notes/reminders.job.js';
import { foldForMatch, matchCategories } from './keywords.js';

let clock: ManualClock;
let t: TestApp;
let owner: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-03-10T09:00:00Z'));
  t = await buildTestApp({ clock });
  owner = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: owner.accountId });
  other = await createUser(t);
});
afterAll(() => t.close());

describeResourceContract(() => t, {
  name: 'budget category',
  path: '/v1/budget-categories',
  create: () => categoryBody(),
  update: { method: 'PATCH', body: { monthlyLimit: 750 } },
  changedField: 'monthlyLimit',
});

type Body = Record<string, unknown>;
interface Category {
  id: string;
  version: number;
  name: string;
  monthlyLimit: number;
  currency: string;
  keywords: string[];
  active: boolean;
  month: string;
  spent: number;
  remaining: number;
  overLimit: boolean;
}
interface Entry {
  id: string;
  version: number;
  categoryId: string;
  categoryName: string;
  amount: number;
  currency: string;
  entryDate: string;
  source: string;
}

let seq = 0;
const categoryBody = (extra: Body = {}): Body => ({
  name: `Büro ${++seq}`,
  monthlyLimit: 500,
  currency: 'EUR',
  keywords: ['Bürobedarf', 'Papier'],
  active: true,
  ...extra,
});

async function newCategory(user: TestUser, extra: Body = {}): Promise<Category> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/budget-categories',
    token: user.token,
    payload: categoryBody(extra),
  });
  if (res.statusCode !== 201) throw new Error(`category not created: ${res.body}`);
  return res.json();
}

const postEntry = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/v1/budget-entries', token: user.token, payload, headers });

async function newEntry(user: TestUser, categoryId: string, extra: Body = {}): Promise<Entry> {
  const res = await postEntry(user, {
    categoryId,
    amount: 100,
    currency: 'EUR',
    entryDate: '2026-03-05',
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`entry not created: ${res.body}`);
  return res.json();
}

const getCategory = (user: TestUser, id: string, query = '') =>
  t.request({ method: 'GET', url: `/v1/budget-categories/${id}${query}`, token: user.token });

describe('budget categories', () => {
  it('creates a category: exact limit, keywords, this month’s spending, ETag, Location, audit', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/budget-categories',
      token: member.token,
      payload: categoryBody({ name: 'Reisekosten', monthlyLimit: 1234.5 }),
    });
    expect(res.statusCode).toBe(201);
    const c = res.json<Category>();
    expect(c).toMatchObject({
      name: 'Reisekosten',
      monthlyLimit: 1234.5,
      currency: 'EUR',
      keywords: ['Bürobedarf', 'Papier'],
      active: true,
      version: 1,
      month: '2026-03',
      spent: 0,
      remaining: 1234.5,
      overLimit: false,
    });
    expect(c.id).toMatch(/^bgc_/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/budget-categories/${c.id}`);
    expect(await auditCount(t, owner.accountId, c.id)).toBe(1);
  });

  it('refuses bad input naming the field, and writes nothing', async () => {
    const before = await auditCount(t, owner.accountId);
    const cases: Array<[Body, string]> = [
      [{ name: '' }, '/body/name'],
      [{ monthlyLimit: -1 }, '/body/monthlyLimit'],
      [{ monthlyLimit: 12.345 }, '/body/monthlyLimit'],
      [{ monthlyLimit: '500' }, '/body/monthlyLimit'],
      [{ currency: 'EURO' }, '/body/currency'],
      [{ keywords: 'Papier' }, '/body/keywords'],
      [{ keywords: [''] }, '/body/keywords/0'],
      [{ active: 'yes' }, '/body/active'],
      [{ colour: 'red' }, '/body/colour'],
    ];
    for (const [change, path] of cases) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/budget-categories',
        token: owner.token,
        payload: categoryBody(change),
      });
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(res.json<{ errors: Array<{ path: string }> }>().errors.map((e) => e.path)).toContain(
        path,
      );
    }
    for (const field of ['name', 'monthlyLimit', 'currency', 'keywords', 'active']) {
      const { [field]: _omitted, ...rest } = categoryBody();
      const res = await t.request({
        method: 'POST',
        url: '/v1/budget-categories',
        token: owner.token,
        payload: rest,
      });
      expect(res.statusCode, field).toBe(400);
    }
    expect(await auditCount(t, owner.accountId)).toBe(before);
  });

  it('keeps names unique per account, ignoring case and accents (409 duplicate)', async () => {
    await newCategory(owner, { name: 'Büromaterial' });
    const res = await t.request({
      method: 'POST',
      url: '/v1/budget-categories',
      token: owner.token,
      payload: categoryBody({ name: 'BUROMATERIAL' }),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate' });
    // Another account may use the name.
    expect((await newCategory(other, { name: 'Büromaterial' })).name).toBe('Büromaterial');
  });

  it('patches partially with version; a stale version is 409, a stale If-Match 412', async () => {
    const c = await newCategory(owner);
    const ok = await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      payload: { version: 1, monthlyLimit: 750.25, keywords: ['Amazon'] },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({
      version: 2,
      monthlyLimit: 750.25,
      keywords: ['Amazon'],
      name: c.name,
      active: true,
    });
    const stale = await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      payload: { version: 1, active: false },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const ifMatch = await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      headers: { 'if-match': '"1"' },
      payload: { version: 2, active: false },
    });
    expect(ifMatch.statusCode).toBe(412);
    expect((await getCategory(owner, c.id)).json<Category>().active).toBe(true);
  });

  it('changes the currency only while the category has no entries', async () => {
    const c = await newCategory(owner, { monthlyLimit: 100 });
    const gbp = await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      payload: { version: 1, currency: 'GBP' },
    });
    expect(gbp.json()).toMatchObject({ currency: 'GBP', monthlyLimit: 100, version: 2 });
    await newEntry(owner, c.id, { currency: 'GBP' });
    const back = await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      payload: { version: 2, currency: 'EUR' },
    });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toMatchObject({ code: 'state_conflict' });
  });

  it('deletes a category without entries; one with entries is in use', async () => {
    const empty = await newCategory(owner);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/budget-categories/${empty.id}`,
      token: owner.token,
    });
    expect(del.statusCode).toBe(204);
    expect((await getCategory(owner, empty.id)).statusCode).toBe(404);

    const used = await newCategory(owner);
    await newEntry(owner, used.id);
    const refused = await t.request({
      method: 'DELETE',
      url: `/v1/budget-categories/${used.id}`,
      token: owner.token,
    });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'in_use', referencedBy: ['1 budget entries'] });
  });

  it('lists newest first with cursor pages and filters active and q', async () => {
    const user = await createUser(t);
    const made: Category[] = [];
    for (let i = 0; i < 5; i++)
      made.push(await newCategory(user, { name: `Kategorie ${i}`, active: i % 2 === 0 }));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Category[]; nextCursor: string | null } = (
        await t.request({
          method: 'GET',
          url: `/v1/budget-categories?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
          token: user.token,
        })
      ).json();
      seen.push(...page.data.map((c) => c.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(made.map((c) => c.id).reverse());
    const inactive = await t.request({
      method: 'GET',
      url: '/v1/budget-categories?active=false',
      token: user.token,
    });
    expect(inactive.json<{ data: Category[] }>().data.map((c) => c.name)).toEqual([
      'Kategorie 3',
      'Kategorie 1',
    ]);
    const q = await t.request({
      method: 'GET',
      url: '/v1/budget-categories?q=GORIE%204',
      token: user.token,
    });
    expect(q.json<{ data: Category[] }>().data.map((c) => c.name)).toEqual(['Kategorie 4']);
    const bad = await t.request({
      method: 'GET',
      url: '/v1/budget-categories?month=2026-13',
      token: user.token,
    });
    expect(bad.statusCode).toBe(400);
  });
});

describe('budget entries', () => {
  it('books an entry with the category’s name; spending sums per month, refunds subtract', async () => {
    const c = await newCategory(owner, { name: 'Software', monthlyLimit: 100 });
    const res = await postEntry(owner, {
      categoryId: c.id,
      categoryName: 'ignored',
      amount: 59.99,
      currency: 'EUR',
      entryDate: '2026-03-31',
      vendorName: 'JetBrains',
    });
    expect(res.statusCode).toBe(201);
    const entry = res.json<Entry & { vendorName: string; importId: null }>();
    expect(entry).toMatchObject({
      categoryId: c.id,
      categoryName: 'Software',
      amount: 59.99,
      entryDate: '2026-03-31',
      vendorName: 'JetBrains',
      source: 'MANUAL',
      importId: null,
      version: 1,
    });
    expect(entry.id).toMatch(/^bge_/);
    await newEntry(owner, c.id, { amount: 60.02, entryDate: '2026-03-01' });
    await newEntry(owner, c.id, { amount: -10, entryDate: '2026-03-15' });
    await newEntry(owner, c.id, { amount: 999, entryDate: '2026-02-28' });
    await newEntry(owner, c.id, { amount: 999, entryDate: '2026-04-01' });

    const march = (await getCategory(owner, c.id)).json<Category>();
    expect(march).toMatchObject({ month: '2026-03', spent: 110.01, overLimit: true });
    expect(march.remaining).toBe(-10.01);
    const feb = (await getCategory(owner, c.id, '?month=2026-02')).json<Category>();
    expect(feb).toMatchObject({ spent: 999, remaining: -899, overLimit: true });
    const may = (await getCategory(owner, c.id, '?month=2026-05')).json<Category>();
    expect(may).toMatchObject({ spent: 0, remaining: 100, overLimit: false });

    // A rename shows in the entries' categoryName.
    await t.request({
      method: 'PATCH',
      url: `/v1/budget-categories/${c.id}`,
      token: owner.token,
      payload: { version: 1, name: 'Software & Lizenzen' },
    });
    const got = await t.request({
      method: 'GET',
      url: `/v1/budget-entries/${entry.id}`,
      token: owner.token,
    });
    expect(got.json<Entry>().categoryName).toBe('Software & Lizenzen');
  });

  it('refuses a foreign or unknown category (422), another currency, zero and bad dates', async () => {
    const mine = await newCategory(owner);
    const theirs = await newCategory(other);
    const before = await auditCount(t, owner.accountId);
    const base = { categoryId: mine.id, amount: 10, currency: 'EUR', entryDate: '2026-03-05' };
    const expectations: Array<[Body, number, string, string]> = [
      [{ categoryId: theirs.id }, 422, 'reference_not_found', '/body/categoryId'],
      [{ categoryId: 'bgc_nope' }, 422, 'reference_not_found', '/body/categoryId'],
      [{ currency: 'GBP' }, 422, 'business_rule_violated', '/body/currency'],
      [{ amount: 0 }, 400, 'validation_failed', '/body/amount'],
      [{ amount: 1.001 }, 400, 'validation_failed', '/body/amount'],
      [{ entryDate: '2026-02-30' }, 400, 'validation_failed', '/body/entryDate'],
      [{ entryDate: '05.03.2026' }, 400, 'validation_failed', '/body/entryDate'],
      [{ vendorName: 'x'.repeat(201) }, 400, 'validation_failed', '/body/vendorName'],
      [
        { documentId: 'doc_00000000000000000000000000' },
        422,
        'reference_not_found',
        '/body/documentId',
      ],
    ];
    for (const [change, status, code, path] of expectations) {
      const res = await postEntry(owner, { ...base, ...change });
      expect(res.statusCode, JSON.stringify(change)).toBe(status);
      const body = res.json<{ code: string; errors: Array<{ path: string }> }>();
      expect(body.code).toBe(code);
      expect(body.errors.map((e) => e.path)).toContain(path);
    }
    expect(await auditCount(t, owner.accountId)).toBe(before);
  });

  it('replays a create with the same Idempotency-Key instead of booking twice', async () => {
    const c = await newCategory(owner);
    const payload = { categoryId: c.id, amount: 42, currency: 'EUR', entryDate: '2026-03-02' };
    const key = { 'idempotency-key': `entry-${c.id}` };
    const first = await postEntry(owner, payload, key);
    const again = await postEntry(owner, payload, key);
    expect(again.statusCode).toBe(201);
    expect(again.json<Entry>().id).toBe(first.json<Entry>().id);
    expect((await getCategory(owner, c.id)).json<Category>().spent).toBe(42);
  });

  it('lists with filters (category, source, date range) and deletes; other accounts see 404', async () => {
    const user = await createUser(t);
    const a = await newCategory(user);
    const b = await newCategory(user);
    const e1 = await newEntry(user, a.id, { entryDate: '2026-01-10' });
    const e2 = await newEntry(user, a.id, { entryDate: '2026-02-10' });
    const e3 = await newEntry(user, b.id, { entryDate: '2026-03-10' });
    const list = async (query: string) =>
      (await t.request({ method: 'GET', url: `/v1/budget-entries${query}`, token: user.token }))
        .json<{ data: Entry[] }>()
        .data.map((e) => e.id);
    expect(await list('')).toEqual([e3.id, e2.id, e1.id]);
    expect(await list(`?categoryId=${a.id}`)).toEqual([e2.id, e1.id]);
    expect(await list('?from=2026-02-01&to=2026-03-10')).toEqual([e3.id, e2.id]);
    expect(await list('?source=IMPORT')).toEqual([]);
    expect(
      (
        await t.request({
          method: 'GET',
          url: '/v1/budget-entries?from=2026-02-31',
          token: user.token,
        })
      ).statusCode,
    ).toBe(400);

    const foreign = await t.request({
      method: 'DELETE',
      url: `/v1/budget-entries/${e1.id}`,
      token: other.token,
    });
    expect(foreign.statusCode).toBe(404);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/budget-entries/${e1.id}`,
      token: user.token,
    });
    expect(del.statusCode).toBe(204);
    expect(await list('')).toEqual([e3.id, e2.id]);
    expect(await auditCount(t, user.accountId, e1.id)).toBe(2);
  });
});

describe('keyword matching', () => {
  it('folds case and umlauts both ways', () => {
    expect(foldForMatch('Müller  Straße')).toBe('mueller strasse');
    const categories = [
      { id: 'a', name: 'Büro', keywords: ['Müller', 'Papier'] },
      { id: 'b', name: 'Reisen', keywords: ['Deutsche Bahn', 'Lufthansa'] },
      { id: 'c', name: 'Leer', keywords: [] },
    ];
    expect(matchCategories(categories, 'SEPA MUELLER GMBH PAPIER')).toEqual([
      { categoryId: 'a', categoryName: 'Büro', keywords: ['Müller', 'Papier'] },
    ]);
    expect(matchCategories(categories, 'Muller Bürobedarf')[0]?.categoryId).toBe('a');
    expect(matchCategories(categories, 'DB Fernverkehr deutsche   bahn')[0]?.categoryId).toBe('b');
    expect(matchCategories(categories, 'Miete März')).toEqual([]);
  });
});

/** The mail text with quoted-printable soft breaks and escapes undone. */
function quotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('budget overrun reminders', () => {
  async function setup(settings: Body = {}): Promise<{ user: TestUser; inbox: string }> {
    const user = await createUser(t);
    const inbox = email('budget');
    const current = (
      await t.request({ method: 'GET', url: '/v1/account/addresses', token: user.token })
    ).json<{ version: number }>();
    const res = await t.request({
      method: 'PATCH',
      url: '/v1/account/addresses',
      token: user.token,
      payload: { version: current.version, reminderEmail: inbox, ...settings },
    });
    expect(res.statusCode).toBe(200);
    return { user, inbox };
  }

  it('mails an overrun once per category and month, in the account’s number format, with two schedulers', async () => {
    const db = t.app.ctx.config.database;
    const b = await buildTestApp({
      clock,
      env: {
        DATA_DIR: t.dataDir,
        ...(db.kind === 'sqlite' ? { DATABASE_URL: `sqlite:${db.file}` } : {}),
      },
    });
    try {
      const { user, inbox } = await setup({ numberFormat: '1.234,56' });
      const over = await newCategory(user, { name: 'Marketing', monthlyLimit: 1000 });
      const within = await newCategory(user, { name: 'Porto', monthlyLimit: 1000 });
      const inactive = await newCategory(user, { name: 'Alt', monthlyLimit: 1, active: false });
      await newEntry(user, over.id, { amount: 1234.56, entryDate: '2026-03-02' });
      await newEntry(user, within.id, { amount: 1000, entryDate: '2026-03-02' });
      await newEntry(user, within.id, { amount: 5000, entryDate: '2026-02-27' });
      await newEntry(user, inactive.id, { amount: 50, entryDate: '2026-03-02' });

      for (let round = 0; round < 3; round++)
        await Promise.all([runReminders(t.app.ctx), runReminders(b.app.ctx)]);
      const mails = await mailsTo(t, inbox, 2, 300);
      expect(mails).toHaveLength(1);
      expect(mails[0]!.subject).toBe('Budget exceeded: Marketing (2026-03)');
      expect(quotedPrintable(mails[0]!.raw)).toContain(
        '1.234,56 EUR spent of 1.000,00 EUR (234,56 EUR over)',
      );

      // The next month starts a new budget: a new overrun is mailed again, once.
      clock.advance(24 * DAY); // 2026-04-03
      await newEntry(user, over.id, { amount: 1000.01, entryDate: '2026-04-02' });
      await Promise.all([runReminders(t.app.ctx), runReminders(b.app.ctx)]);
      await runReminders(t.app.ctx);
      const after = await mailsTo(t, inbox, 3, 300);
      expect(after.map((m) => m.subject)).toEqual([
        'Budget exceeded: Marketing (2026-03)',
        'Budget exceeded: Marketing (2026-04)',
      ]);
    } finally {
      clock.advance(-(clock.now().getTime() - Date.parse('2026-03-10T09:00:00Z')));
      await b.close();
    }
  });

  it('mails nothing while the account suppresses budgets', async () => {
    const { user, inbox } = await setup({ budgetsSuppressed: true });
    const c = await newCategory(user, { monthlyLimit: 1 });
    await newEntry(user, c.id, { amount: 2, entryDate: '2026-03-02' });
    await runReminders(t.app.ctx);
    expect(await mailsTo(t, inbox, 1, 300)).toHaveLength(0);
  });
});
