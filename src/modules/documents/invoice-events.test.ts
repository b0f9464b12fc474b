import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock, MINUTE } from '../../shared/clock.js';
import type { ImportView } from '../bank-imports/bank-imports.schemas.js';
import { mt940, uploadStatement } from '../bank-imports/bank-imports.test-support.js';
import { announceOverdue } from './documents.overdue.js';
import { billingAddress, call, finalInvoice, type Body } from './documents.test-support.js';

/**
 * Invoice events (issue 14): `document.paid` when an invoice's settled payments first cover it
 * (and again after a payment was undone and it is paid anew), `document.overdue` once per
 * invoice that fell due unpaid, and `import.finalized` when a bank statement import is booked.
 * The assertions read the outbox (`webhook_deliveries`); nothing is delivered here.
 */

const TODAY = '2026-06-30';
let t: TestApp;
let clock: ManualClock;

type Doc = Body & {
  id: string;
  version: number;
  documentNumber: string;
  paymentStatus: string;
  paidAt: string | null;
  overdue: boolean;
};
type Payment = Body & { id: string; version: number; status: string };
type Outbox = { type: string; timestamp: string; data: Body & { id: string } };

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
/** The endpoints made here, disabled at the end: their deliveries' retries stay unsent. */
const endpoints: { user: TestUser; id: string }[] = [];
afterAll(async () => {
  for (const e of endpoints) {
    const current = await call<{ version: number }>(
      t,
      e.user,
      'GET',
      `/v1/webhook-endpoints/${e.id}`,
    );
    await call(t, e.user, 'PUT', `/v1/webhook-endpoints/${e.id}`, {
      version: current.version,
      enabled: false,
    });
  }
  await t.close();
});

/** A fresh account with a billed partner and one endpoint subscribed to the invoice events. */
async function account(
  partnerName = 'Schuldner GmbH',
): Promise<{ user: TestUser; partnerId: string }> {
  const user = await createUser(t);
  const endpoint = await call<{ id: string }>(t, user, 'POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['document.paid', 'document.overdue', 'import.finalized'],
  });
  expect(endpoint.id).toMatch(/^whe_/);
  endpoints.push({ user, id: endpoint.id });
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: partnerName,
    addresses: [billingAddress('buchhaltung@schuldner.example')],
  });
  return { user, partnerId: partner.id };
}

/** A FINAL invoice over EUR 1,190.00 (1,000 net + 19 % VAT). */
const invoice = (user: TestUser, partnerId: string, dueDate = '2026-07-31') =>
  finalInvoice<Doc>(t, user, partnerId, dueDate);

const pay = (user: TestUser, documentId: string, amount: number, status = 'MARKED') =>
  call<Payment>(t, user, 'POST', '/v1/payments', {
    direction: 'INCOMING',
    documentId,
    amount,
    currency: 'EUR',
    paymentDate: '2026-06-20',
    status,
  });

const setStatus = (user: TestUser, p: { id: string; version: number }, status: string) =>
  call<Payment>(t, user, 'PUT', `/v1/payments/${p.id}`, { version: p.version, status });

async function remove(user: TestUser, paymentId: string): Promise<void> {
  const res = await t.request({
    method: 'DELETE',
    url: `/v1/payments/${paymentId}`,
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(204);
}

const read = (user: TestUser, id: string) => call<Doc>(t, user, 'GET', `/v1/documents/${id}`);

/** The account's outbox rows of one event type, oldest first, with their payloads parsed. */
async function outbox(user: TestUser, type: string): Promise<Outbox[]> {
  const rows = await t.app.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['account_id', 'event_type', 'payload', 'created_at', 'id'])
    .where('account_id', '=', user.accountId)
    .where('event_type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => {
    const payload = JSON.parse(r.payload) as Outbox;
    expect(payload.type).toBe(type);
    return payload;
  });
}

/** How many outbox rows of each invoice event type the account has. */
async function counts(user: TestUser): Promise<Record<string, number>> {
  return {
    'document.paid': (await outbox(user, 'document.paid')).length,
    'document.overdue': (await outbox(user, 'document.overdue')).length,
    'import.finalized': (await outbox(user, 'import.finalized')).length,
  };
}

/** The account's outbox rows per event type. */
async function expectCounts(
  user: TestUser,
  n: { paid: number; overdue: number; imports: number },
): Promise<void> {
  expect(await counts(user)).toEqual({
    'document.paid': n.paid,
    'document.overdue': n.overdue,
    'import.finalized': n.imports,
  });
}

const now = () => clock.now().toISOString();

describe('document.paid', () => {
  it('is not emitted for a PENDING payment, and is emitted once when it is marked', async () => {
    const { user, partnerId } = await account();
    const inv = await invoice(user, partnerId);
    expect(inv).toMatchObject({ paidAt: null, paymentStatus: 'UNPAID' });

    const pending = await pay(user, inv.id, 1190, 'PENDING');
    await expectCounts(user, { paid: 0, overdue: 0, imports: 0 });
    const unpaid = await read(user, inv.id);
    expect(unpaid).toMatchObject({ paidAt: null, paymentStatus: 'UNPAID', version: inv.version });

    clock.advance(MINUTE);
    const markedAt = now();
    await setStatus(user, pending, 'MARKED');
    const events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(1);
    expect(events[0]!.timestamp).toBe(markedAt);
    expect(events[0]!.data).toMatchObject({
      id: inv.id,
      paymentStatus: 'PAID',
      paidAt: markedAt,
      overdue: false,
    });
    const paid = await read(user, inv.id);
    expect(paid).toMatchObject({ paidAt: markedAt, paymentStatus: 'PAID' });
    expect(paid.version).toBeGreaterThan(inv.version);
    // The event carries the invoice as the API answers it.
    expect(events[0]!.data).toEqual(paid);
    await expectCounts(user, { paid: 1, overdue: 0, imports: 0 });
  });

  it('comes with the payment that completes the invoice, once; overpaying adds none', async () => {
    const { user, partnerId } = await account();
    const inv = await invoice(user, partnerId);

    await pay(user, inv.id, 500);
    expect((await outbox(user, 'document.paid')).length).toBe(0);
    const partial = await read(user, inv.id);
    expect(partial).toMatchObject({ paymentStatus: 'PARTIAL', paidAt: null });

    clock.advance(MINUTE);
    const completedAt = now();
    await pay(user, inv.id, 690);
    let events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({
      id: inv.id,
      paymentStatus: 'PAID',
      paidAt: completedAt,
    });
    const paid = await read(user, inv.id);
    expect(paid).toMatchObject({ paymentStatus: 'PAID', paidAt: completedAt });

    clock.advance(MINUTE);
    await pay(user, inv.id, 100);
    events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(1);
    // Still paid since the second payment; an overpayment is no new settlement.
    const over = await read(user, inv.id);
    expect(over).toMatchObject({
      paymentStatus: 'PAID',
      paidAt: completedAt,
      version: paid.version,
    });
    await expectCounts(user, { paid: 1, overdue: 0, imports: 0 });
  });

  it('loses paidAt when a payment is undone (no event) and announces the next payment again', async () => {
    const { user, partnerId } = await account();
    const inv = await invoice(user, partnerId);

    const first = await pay(user, inv.id, 1190);
    const firstAt = now();
    expect(await outbox(user, 'document.paid')).toHaveLength(1);
    const paid = await read(user, inv.id);
    expect(paid).toMatchObject({ paidAt: firstAt, paymentStatus: 'PAID' });

    // Deleted: no longer covered.
    clock.advance(MINUTE);
    await remove(user, first.id);
    const undone = await read(user, inv.id);
    expect(undone).toMatchObject({ paidAt: null, paymentStatus: 'UNPAID' });
    expect(undone.version).toBeGreaterThan(paid.version);
    expect(await outbox(user, 'document.paid')).toHaveLength(1);

    // Paid again: announced again.
    clock.advance(MINUTE);
    const secondAt = now();
    const second = await pay(user, inv.id, 1190);
    let events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(2);
    expect(events.map((e) => e.data.id)).toEqual([inv.id, inv.id]);
    expect(events.map((e) => e.data.paidAt)).toEqual([firstAt, secondAt]);
    expect(await read(user, inv.id)).toMatchObject({ paidAt: secondAt, paymentStatus: 'PAID' });

    // Set back to PENDING: no longer covered, no event.
    clock.advance(MINUTE);
    const reopened = await setStatus(user, second, 'PENDING');
    expect(await read(user, inv.id)).toMatchObject({ paidAt: null, paymentStatus: 'UNPAID' });
    expect(await outbox(user, 'document.paid')).toHaveLength(2);

    // Marked once more: a third announcement.
    clock.advance(MINUTE);
    const thirdAt = now();
    await setStatus(user, reopened, 'MARKED');
    events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(3);
    expect(events[2]!.data).toMatchObject({ id: inv.id, paymentStatus: 'PAID', paidAt: thirdAt });
    expect(await read(user, inv.id)).toMatchObject({ paidAt: thirdAt });
    await expectCounts(user, { paid: 3, overdue: 0, imports: 0 });
  });

  it('keeps paidAt when a deleted payment leaves the invoice still covered', async () => {
    const { user, partnerId } = await account();
    const inv = await invoice(user, partnerId);
    await pay(user, inv.id, 1190);
    const paidAt = now();
    clock.advance(MINUTE);
    const extra = await pay(user, inv.id, 10);
    const before = await read(user, inv.id);
    await remove(user, extra.id);
    const after = await read(user, inv.id);
    expect(after).toMatchObject({ paidAt, paymentStatus: 'PAID', version: before.version });
    expect(await outbox(user, 'document.paid')).toHaveLength(1);
  });

  it('announces a DRAFT paid in full before it was finalized when it becomes FINAL', async () => {
    const { user, partnerId } = await account();
    const draft = await finalInvoice<Doc>(t, user, partnerId, '2026-06-01', { status: 'DRAFT' });
    await pay(user, draft.id, 1190);
    expect(await outbox(user, 'document.paid')).toHaveLength(0);
    const final = await call<Doc>(t, user, 'PUT', `/v1/documents/${draft.id}`, {
      version: (await read(user, draft.id)).version,
      status: 'FINAL',
    });
    expect(final).toMatchObject({ status: 'FINAL', paymentStatus: 'PAID', paidAt: now() });
    expect(final.version).toBe((await read(user, draft.id)).version);
    const paid = await outbox(user, 'document.paid');
    expect(paid.map((e) => e.data.id)).toEqual([draft.id]);
    // Paid, so never overdue, though its due date has passed.
    await announceOverdue(t.app.ctx);
    expect(await outbox(user, 'document.overdue')).toHaveLength(0);
  });
});

describe('document.overdue', () => {
  it('announces an unpaid invoice due before today once; paid and not yet due ones never', async () => {
    // The scan covers every account: on PostgreSQL other test files (running beside this one)
    // leave overdue invoices too, so what is counted here is this account's announcements.
    const { user, partnerId } = await account();
    const overdue = await invoice(user, partnerId, '2026-06-01');
    const paid = await invoice(user, partnerId, '2026-06-01');
    const notYet = await invoice(user, partnerId, '2026-07-15');
    const dueToday = await invoice(user, partnerId, TODAY);
    await pay(user, paid.id, 1190);
    expect(await outbox(user, 'document.paid')).toHaveLength(1);

    expect(await announceOverdue(t.app.ctx)).toBeGreaterThanOrEqual(1);
    const events = await outbox(user, 'document.overdue');
    expect(events).toHaveLength(1);
    expect(events[0]!.timestamp).toBe(now());
    expect(events[0]!.data).toMatchObject({
      id: overdue.id,
      overdue: true,
      paymentStatus: 'UNPAID',
      paidAt: null,
      dueDate: '2026-06-01',
    });
    for (const id of [paid.id, notYet.id, dueToday.id])
      expect(events.some((e) => e.data.id === id)).toBe(false);

    // A second scan announces nothing new.
    await announceOverdue(t.app.ctx);
    expect(await outbox(user, 'document.overdue')).toHaveLength(1);
    await expectCounts(user, { paid: 1, overdue: 1, imports: 0 });
    expect(events[0]!.data).toEqual(await read(user, overdue.id));
  });
});

describe('import.finalized', () => {
  it('is emitted when a statement import is finalized; the line naming an invoice pays it', async () => {
    const { user, partnerId } = await account('Müller GmbH');
    const inv = await invoice(user, partnerId);
    expect(inv.documentNumber).toBeTruthy();
    const file = await uploadStatement(
      t,
      user,
      mt940([
        {
          date: '2026-06-15',
          cents: 119_000,
          name: 'Müller GmbH',
          purpose: `Rechnung ${inv.documentNumber} vielen Dank`,
          ref: 'B1',
        },
        { date: '2026-06-16', cents: -4_999, name: 'Papierhaus', purpose: 'Papier', ref: 'B2' },
      ]),
    );
    let imp = await call<ImportView>(t, user, 'POST', '/v1/bank-statement-imports', {
      ...file,
      periodFrom: '2026-06-01',
      periodTo: TODAY,
    });
    expect(imp.transactionCount).toBe(2);
    const suggestion = imp.transactions[0]!.suggestions.find((s) => s.type === 'INVOICE');
    expect(suggestion).toMatchObject({ id: inv.id });
    expect(suggestion!.score).toBeGreaterThanOrEqual(70);
    for (const tx of imp.transactions)
      imp = await call<ImportView>(
        t,
        user,
        'PATCH',
        `/v1/bank-statement-imports/${imp.id}/transactions/${tx.index}`,
        { version: imp.version, decision: 'ACCEPTED' },
      );
    await expectCounts(user, { paid: 0, overdue: 0, imports: 0 });

    clock.advance(MINUTE);
    const done = await call<ImportView>(
      t,
      user,
      'POST',
      `/v1/bank-statement-imports/${imp.id}/finalize`,
      { version: imp.version },
      200,
    );
    expect(done).toMatchObject({
      status: 'FINALIZED',
      result: { paymentsCreated: 2, paymentsMarked: 0, budgetEntries: 0 },
    });

    const finalized = await outbox(user, 'import.finalized');
    expect(finalized).toHaveLength(1);
    expect(finalized[0]!.timestamp).toBe(now());
    expect(finalized[0]!.data).toMatchObject({
      id: imp.id,
      status: 'FINALIZED',
      version: done.version,
      acceptedCount: 2,
      undecidedCount: 0,
      result: done.result,
    });
    // The import as presented, without its lines.
    expect(finalized[0]!.data).toEqual({ ...done, transactions: [], transactionsNextCursor: null });

    // The credit line was booked to the invoice, which is now paid.
    const paidEvents = await outbox(user, 'document.paid');
    expect(paidEvents).toHaveLength(1);
    expect(paidEvents[0]!.data).toMatchObject({
      id: inv.id,
      paymentStatus: 'PAID',
      paidAt: now(),
    });
    expect(await read(user, inv.id)).toMatchObject({ paidAt: now(), paymentStatus: 'PAID' });
    const booked = await t.app.ctx.db
      .selectFrom('payments')
      .select(['document_id', 'status', 'amount', 'import_id'])
      .where('account_id', '=', user.accountId)
      .where('direction', '=', 'INCOMING')
      .execute();
    // PostgreSQL answers bigint columns as strings.
    expect(booked.map((p) => ({ ...p, amount: Number(p.amount) }))).toEqual([
      { document_id: inv.id, status: 'MARKED', amount: 119_000, import_id: imp.id },
    ]);
    await expectCounts(user, { paid: 1, overdue: 0, imports: 1 });
  });

  it('marks an open payment of the invoice on finalize and announces the invoice paid', async () => {
    const { user, partnerId } = await account('Schmidt AG');
    const inv = await invoice(user, partnerId);
    const open = await pay(user, inv.id, 1190, 'PENDING');
    expect(open).toMatchObject({ status: 'PENDING', documentId: inv.id });
    const file = await uploadStatement(
      t,
      user,
      mt940([
        {
          date: '2026-06-22',
          cents: 119_000,
          name: 'Schmidt AG',
          purpose: `Rechnung ${inv.documentNumber}`,
          ref: 'S1',
        },
      ]),
    );
    let imp = await call<ImportView>(t, user, 'POST', '/v1/bank-statement-imports', {
      ...file,
      periodFrom: '2026-06-01',
      periodTo: TODAY,
    });
    expect(imp.transactions[0]!.suggestions[0]).toMatchObject({ type: 'PAYMENT', id: open.id });
    expect(imp.transactions[0]!.suggestions[0]!.score).toBeGreaterThanOrEqual(70);
    imp = await call<ImportView>(
      t,
      user,
      'PATCH',
      `/v1/bank-statement-imports/${imp.id}/transactions/0`,
      { version: imp.version, decision: 'ACCEPTED' },
    );
    clock.advance(MINUTE);
    const done = await call<ImportView>(
      t,
      user,
      'POST',
      `/v1/bank-statement-imports/${imp.id}/finalize`,
      { version: imp.version },
      200,
    );
    expect(done.result).toEqual({ paymentsCreated: 0, paymentsMarked: 1, budgetEntries: 0 });
    const paidEvents = await outbox(user, 'document.paid');
    expect(paidEvents).toHaveLength(1);
    expect(paidEvents[0]!.data).toMatchObject({ id: inv.id, paymentStatus: 'PAID', paidAt: now() });
    expect(await read(user, inv.id)).toMatchObject({ paidAt: now(), paymentStatus: 'PAID' });
    const finalized = await outbox(user, 'import.finalized');
    expect(finalized.map((e) => [e.data.id, e.data.status])).toEqual([[imp.id, 'FINALIZED']]);
    await expectCounts(user, { paid: 1, overdue: 0, imports: 1 });
  });
});

describe('open items', () => {
  it('lists open, settled, overdue and not yet due FINAL invoices, also as CSV', async () => {
    const { user, partnerId } = await account('Offene Posten GmbH');
    const late = await invoice(user, partnerId, '2026-06-01');
    const notDue = await invoice(user, partnerId, '2026-07-31');
    const paid = await invoice(user, partnerId, '2026-06-01');
    await pay(user, paid.id, 1190);
    const cancelled = await invoice(user, partnerId, '2026-06-01');
    await call(t, user, 'POST', `/v1/documents/${cancelled.id}/cancel`, {});
    // A DRAFT past its date is no open item; neither is the credit note.
    await finalInvoice(t, user, partnerId, '2026-06-01', { status: 'DRAFT' });
    const ids = async (qs: string) =>
      (await call<{ data: Doc[] }>(t, user, 'GET', `/v1/documents?limit=100&${qs}`)).data
        .map((d) => d.id)
        .sort();
    expect(await ids('open=true')).toEqual([late.id, notDue.id].sort());
    expect(await ids('open=false')).toEqual([paid.id, cancelled.id].sort());
    expect(await ids('overdue=true')).toEqual([late.id]);
    expect(await ids('overdue=false')).toEqual([notDue.id]);
    expect(await ids('overdue=true&partnerId=ptr_00000000000000000000000000')).toEqual([]);
    const csv = await t.request({
      method: 'GET',
      url: '/v1/documents?overdue=true',
      token: user.token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.statusCode).toBe(200);
    const lines = csv.body.trim().split(/\r?\n/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(late.documentNumber);
  });
});
