import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import { newId } from '../../shared/ids.js';
import type { ImportView } from './bank-imports.schemas.js';
import { mt940, uploadStatement, type Line } from './bank-imports.test-support.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

type Body = Record<string, unknown>;

const MARCH: Line[] = [
  {
    date: '2026-03-02',
    cents: 119_000,
    name: 'Müller GmbH',
    purpose: 'Rechnung 2026-0001 vielen Dank',
    ref: 'B1',
  },
  {
    date: '2026-03-05',
    cents: -4_999,
    name: 'Papierhaus Nord',
    purpose: 'Bürobedarf März',
    ref: 'B2',
  },
  { date: '2026-03-09', cents: -25_000, name: 'Stadtwerke', purpose: 'Abschlag Strom', ref: 'B3' },
  { date: '2026-04-01', cents: 500, name: 'Bank', purpose: 'Zinsen', ref: 'B4' },
];

async function post(user: TestUser, payload: Body) {
  return t.request({
    method: 'POST',
    url: '/v1/bank-statement-imports',
    token: user.token,
    payload,
  });
}

async function startImport(user: TestUser, text: string, extra: Body = {}): Promise<ImportView> {
  const file = await uploadStatement(t, user, text);
  const res = await post(user, {
    ...file,
    periodFrom: '2026-03-01',
    periodTo: '2026-03-31',
    ...extra,
  });
  if (res.statusCode !== 201) throw new Error(`import failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

async function decide(user: TestUser, imp: ImportView, index: number, decision: string) {
  return t.request({
    method: 'PATCH',
    url: `/v1/bank-statement-imports/${imp.id}/transactions/${index}`,
    token: user.token,
    payload: { version: imp.version, decision },
  });
}

async function decideAll(
  user: TestUser,
  imp: ImportView,
  decision = 'ACCEPTED',
): Promise<ImportView> {
  let current = imp;
  for (const tx of imp.transactions) {
    const res = await decide(user, current, tx.index, decision);
    expect(res.statusCode, res.body).toBe(200);
    current = res.json();
  }
  return current;
}

const finalize = (user: TestUser, imp: { id: string; version: number }) =>
  t.request({
    method: 'POST',
    url: `/v1/bank-statement-imports/${imp.id}/finalize`,
    token: user.token,
    payload: { version: imp.version },
  });

async function payments(user: TestUser) {
  return t.app.ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('account_id', '=', user.accountId)
    .orderBy('payment_date')
    .execute();
}

/** An open (PENDING) payment of `user`'s account, written straight to the table. */
async function openPayment(
  user: TestUser,
  values: {
    id: string;
    direction: string;
    amount: number;
    payment_date: string;
    partner_name: string;
    document_number?: string | null;
  },
): Promise<void> {
  const now = new Date().toISOString();
  await t.app.ctx.db
    .insertInto('payments')
    .values({
      document_number: null,
      ...values,
      account_id: user.accountId,
      document_id: null,
      contract_id: null,
      contract_name: null,
      partner_id: null,
      currency: 'EUR',
      status: 'PENDING',
      payment_method: 'BANK_TRANSFER',
      provider_payment_intent_id: null,
      failure_reason: null,
      marked_at: null,
      source: 'MANUAL',
      import_id: null,
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

// Ids made per run: a PostgreSQL database may hold an earlier run's rows.
const MUELLER_ID = newId('partner');
const OPEN_PAYMENT_ID = newId('payment');
const STRONG_PAYMENT_ID = newId('payment');

describe('bank statement imports: staging', () => {
  it('parses, keeps the period, checks the balance and suggests partner, invoice and category', async () => {
    const user = await createUser(t);
    const now = new Date().toISOString();
    await t.app.ctx.db
      .insertInto('partners')
      .values({
        id: MUELLER_ID,
        account_id: user.accountId,
        name: 'Müller GmbH',
        search_name: 'muller gmbh',
        type: 'CUSTOMER',
        description: null,
        website: null,
        logo_file_id: null,
        addresses: '[]',
        tags: '[]',
        version: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    const category = await t.request({
      method: 'POST',
      url: '/v1/budget-categories',
      token: user.token,
      payload: {
        name: 'Büro',
        monthlyLimit: 100,
        currency: 'EUR',
        keywords: ['Bürobedarf'],
        active: true,
      },
    });
    expect(category.statusCode).toBe(201);

    const imp = await startImport(user, mt940(MARCH));
    expect(imp).toMatchObject({
      status: 'ACTIVE',
      format: 'MT940',
      version: 1,
      transactionCount: 3,
      undecidedCount: 3,
      outsidePeriodCount: 1,
      balanceOk: true,
      duplicateCount: 0,
    });
    expect(imp.id).toMatch(/^imp_/);
    expect(imp.statements[0]).toMatchObject({ openingBalance: 1000, closingBalance: 1895.01 });
    const [credit, office, power] = imp.transactions;
    expect(credit).toMatchObject({
      index: 0,
      bookingDate: '2026-03-02',
      amount: 1190,
      direction: 'INCOMING',
      counterpartyName: 'Müller GmbH',
      counterpartyIban: 'DE89370400440532013000',
      bankReference: 'B1',
      decision: null,
      duplicateOf: null,
    });
    expect(credit!.suggestions[0]).toMatchObject({
      type: 'PARTNER',
      id: MUELLER_ID,
      score: 80,
    });
    expect(office).toMatchObject({ amount: -49.99, direction: 'OUTGOING' });
    expect(office!.suggestions).toEqual([
      expect.objectContaining({
        type: 'BUDGET_CATEGORY',
        label: 'Büro',
        reasons: ['keyword "Bürobedarf" in the counterparty or purpose'],
      }),
    ]);
    expect(power!.suggestions).toEqual([]);
    expect(await auditCount(t, user.accountId, imp.id)).toBe(1);
  });

  it('reports a statement whose balances do not add up', async () => {
    const user = await createUser(t);
    const imp = await startImport(user, mt940(MARCH, { closingCents: 1 }));
    expect(imp.balanceOk).toBe(false);
    expect(imp.statements[0]!.balanceOk).toBe(false);
  });

  it('refuses bad input with the field, and keeps nothing', async () => {
    const user = await createUser(t);
    const other = await createUser(t);
    const file = await uploadStatement(t, user, mt940(MARCH));
    const theirs = await uploadStatement(t, other, mt940(MARCH));
    const pdf = (await upload(t, user, 'application/pdf', SAMPLES.pdf)).ticket;
    const notStatement = await uploadStatement(t, user, 'Hallo Welt\r\nkein Kontoauszug\r\n');
    const base = { ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31' };
    const cases: Array<[Body, number, string, string | undefined]> = [
      [{ periodTo: '2026-02-01' }, 400, 'validation_failed', '/body/periodTo'],
      [{ periodFrom: '2026-02-30' }, 400, 'validation_failed', '/body/periodFrom'],
      [{ key: 'wrong/key' }, 422, 'business_rule_violated', '/body/key'],
      [{ fileId: theirs.fileId, key: theirs.key }, 422, 'reference_not_found', '/body/fileId'],
      [{ fileId: pdf.fileId, key: pdf.key }, 422, 'business_rule_violated', '/body/fileId'],
      [{ ...notStatement }, 422, 'file_unprocessable', undefined],
      [{ autoApprove: 'yes' }, 400, 'validation_failed', '/body/autoApprove'],
    ];
    for (const [change, status, code, path] of cases) {
      const res = await post(user, { ...base, ...change });
      expect(res.statusCode, JSON.stringify(change)).toBe(status);
      const body = res.json<{ code: string; errors?: Array<{ path: string }> }>();
      expect(body.code).toBe(code);
      if (path) expect(body.errors?.map((e) => e.path)).toContain(path);
    }
    const active = await t.request({
      method: 'GET',
      url: '/v1/bank-statement-imports/active',
      token: user.token,
    });
    expect(active.statusCode).toBe(404);
  });

  it('allows one active import per account; discarding frees the slot', async () => {
    const user = await createUser(t);
    const first = await startImport(user, mt940(MARCH));
    const file = await uploadStatement(t, user, mt940(MARCH));
    const second = await post(user, { ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'state_conflict' });

    const active = await t.request({
      method: 'GET',
      url: '/v1/bank-statement-imports/active',
      token: user.token,
    });
    expect(active.json<ImportView>().id).toBe(first.id);

    const other = await createUser(t);
    const foreign = await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${first.id}`,
      token: other.token,
    });
    expect(foreign.statusCode).toBe(404);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${first.id}`,
      token: user.token,
    });
    expect(del.statusCode).toBe(204);
    const again = await post(user, { ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31' });
    expect(again.statusCode).toBe(201);
    const gone = await t.request({
      method: 'GET',
      url: `/v1/bank-statement-imports/${first.id}`,
      token: user.token,
    });
    expect(gone.json()).toMatchObject({ status: 'DISCARDED', transactions: [] });
  });
});

describe('bank statement imports: review and finalize', () => {
  it('decides per line with the import’s version; stale versions and unknown lines are refused', async () => {
    const user = await createUser(t);
    const imp = await startImport(user, mt940(MARCH));
    const first = await decide(user, imp, 1, 'ACCEPTED');
    expect(first.statusCode).toBe(200);
    const after = first.json<ImportView>();
    expect(after).toMatchObject({ version: 2, undecidedCount: 2, acceptedCount: 1 });
    expect(after.transactions[1]!.decision).toBe('ACCEPTED');
    expect(first.headers.etag).toBe('"2"');

    const stale = await decide(user, imp, 0, 'REJECTED');
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const missing = await decide(user, after, 99, 'REJECTED');
    expect(missing.statusCode).toBe(404);
    const bad = await decide(user, after, 0, 'MAYBE');
    expect(bad.statusCode).toBe(400);

    const early = await finalize(user, after);
    expect(early.statusCode).toBe(409);
    expect(early.json()).toMatchObject({ code: 'state_conflict', undecidedCount: 2 });
  });

  it('finalize books payments, marks a matching open payment, writes budget entries, closes the import', async () => {
    const user = await createUser(t);
    await t.request({
      method: 'POST',
      url: '/v1/budget-categories',
      token: user.token,
      payload: {
        name: 'Büro',
        monthlyLimit: 100,
        currency: 'EUR',
        keywords: ['Bürobedarf'],
        active: true,
      },
    });
    // An open payment that the electricity debit settles.
    await openPayment(user, {
      id: OPEN_PAYMENT_ID,
      direction: 'OUTGOING',
      document_number: null,
      partner_name: 'Stadtwerke',
      amount: 25_000,
      payment_date: '2026-03-08',
    });
    let imp = await startImport(user, mt940(MARCH));
    expect(imp.transactions[2]!.suggestions[0]).toMatchObject({
      type: 'PAYMENT',
      id: OPEN_PAYMENT_ID,
      score: 60,
    });
    imp = await decideAll(user, imp);
    // A suggestion under 70 is not used: the open payment stays, a new one is booked.
    const res = await finalize(user, imp);
    expect(res.statusCode, res.body).toBe(200);
    const done = res.json<ImportView>();
    expect(done).toMatchObject({
      status: 'FINALIZED',
      version: imp.version + 1,
      result: { paymentsCreated: 3, paymentsMarked: 0, budgetEntries: 1 },
    });
    const booked = await payments(user);
    expect(booked.filter((p) => p.source === 'IMPORT')).toHaveLength(3);
    expect(booked.find((p) => p.payment_date === '2026-03-02')).toMatchObject({
      direction: 'INCOMING',
      amount: 119_000,
      status: 'MARKED',
      partner_name: 'Müller GmbH',
      import_id: imp.id,
    });
    const entries = await t.request({
      method: 'GET',
      url: '/v1/budget-entries?source=IMPORT',
      token: user.token,
    });
    expect(entries.json<{ data: unknown[] }>().data).toEqual([
      expect.objectContaining({ amount: 49.99, categoryName: 'Büro', entryDate: '2026-03-05' }),
    ]);
    const again = await finalize(user, done);
    expect(again.statusCode).toBe(409);
    expect(await payments(user)).toHaveLength(booked.length);
  });

  it('marks an open payment instead of duplicating it when the match is strong', async () => {
    const user = await createUser(t);
    await openPayment(user, {
      id: STRONG_PAYMENT_ID,
      direction: 'INCOMING',
      document_number: '2026-0001',
      partner_name: 'Müller GmbH',
      amount: 119_000,
      payment_date: '2026-03-01',
    });
    let imp = await startImport(user, mt940(MARCH.slice(0, 1)));
    expect(imp.transactions[0]!.suggestions).toEqual([
      expect.objectContaining({ type: 'PAYMENT', score: 85 }),
    ]);
    imp = await decideAll(user, imp);
    const done = (await finalize(user, imp)).json<ImportView>();
    expect(done.result).toEqual({ paymentsCreated: 0, paymentsMarked: 1, budgetEntries: 0 });
    expect(await payments(user)).toEqual([
      expect.objectContaining({
        id: STRONG_PAYMENT_ID,
        status: 'MARKED',
        import_id: imp.id,
      }),
    ]);
  });

  it('two concurrent finalizes: one wins, the other books nothing', async () => {
    const user = await createUser(t);
    const imp = await startImport(user, mt940(MARCH), { autoApprove: true });
    expect(imp.undecidedCount).toBe(0);
    const results = await Promise.all([finalize(user, imp), finalize(user, imp)]);
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(await payments(user)).toHaveLength(3);
  });
});

describe('bank statement imports: duplicates', () => {
  it('finds lines booked by an earlier import across overlapping periods; twins in one file are both kept', async () => {
    const user = await createUser(t);
    const twin: Line = { date: '2026-03-10', cents: -1_000, name: 'Kiosk', purpose: 'Kaffee' };
    const first = await startImport(user, mt940([...MARCH.slice(0, 2), twin, twin]), {
      autoApprove: true,
    });
    expect(first.transactionCount).toBe(4);
    expect(first.duplicateCount).toBe(0);
    expect((await finalize(user, first)).statusCode).toBe(200);

    // The next statement repeats two known lines (one twin) and brings a new one.
    const second = await startImport(
      user,
      mt940([MARCH[1]!, twin, { date: '2026-03-20', cents: 7_700, name: 'Neu', purpose: 'Neu' }]),
      { autoApprove: true },
    );
    expect(second.transactions.map((x) => [x.duplicateOf?.index ?? null, x.decision])).toEqual([
      [1, 'REJECTED'],
      [2, 'REJECTED'],
      [null, 'ACCEPTED'],
    ]);
    expect(second.duplicateCount).toBe(2);
    expect(second.transactions[0]!.duplicateOf).toMatchObject({ importId: first.id });
  });

  it('rejected or discarded lines never block a later import', async () => {
    const user = await createUser(t);
    let imp = await startImport(user, mt940(MARCH));
    imp = await decideAll(user, imp, 'REJECTED');
    expect((await finalize(user, imp)).json()).toMatchObject({
      result: { paymentsCreated: 0, paymentsMarked: 0, budgetEntries: 0 },
    });
    const again = await startImport(user, mt940(MARCH));
    expect(again.duplicateCount).toBe(0);
  });
});
