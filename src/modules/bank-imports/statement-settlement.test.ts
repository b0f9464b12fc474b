import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock, MINUTE } from '../../shared/clock.js';
import { newId } from '../../shared/ids.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';
import { insertImportedPayments, newPaymentRow } from '../payments/index.js';
import type { ImportView } from './bank-imports.schemas.js';
import { mt940, uploadStatement, type Line } from './bank-imports.test-support.js';

/**
 * A statement that settles several invoices at once (finalize judges them as a set) leaves
 * every invoice, its `document.paid` event and the audit trail as the same payments recorded
 * one by one through the API do: paid in full, partly, by two lines, overpaid, after a credit
 * note, by confirming a PENDING payment, and a payment recorded by hand only confirmed.
 * Booking it twice books nothing twice. The events are read from the outbox.
 */

const TODAY = '2026-06-30';
const BOOKED = '2026-06-25';
let t: TestApp;
let clock: ManualClock;

type Doc = Body & {
  id: string;
  version: number;
  documentNumber: string;
  paymentStatus: string;
  openAmount: number | null;
  paidAt: string | null;
  overdue: boolean;
};
type Payment = Body & { id: string; version: number; status: string };
type Outbox = { type: string; timestamp: string; data: Doc };

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
// On PostgreSQL the test files of a worker share the job queue: the deliveries to the closed
// port below would keep the next file's delivery turns busy, so they leave with this file.
const accounts: string[] = [];
afterAll(async () => {
  if (accounts.length > 0)
    await t.app.ctx.db
      .deleteFrom('webhook_deliveries')
      .where('account_id', 'in', accounts)
      .execute();
  await t.close();
});

/** A fresh account with the partner and an endpoint subscribed to the settlement events. */
async function account(): Promise<{ user: TestUser; partnerId: string }> {
  const user = await createUser(t);
  accounts.push(user.accountId);
  await call(t, user, 'POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['document.paid', 'import.finalized'],
  });
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Müller GmbH',
    addresses: [billingAddress('buchhaltung@mueller.example')],
  });
  return { user, partnerId: partner.id };
}

const pay = (user: TestUser, documentId: string, amount: number, status = 'MARKED') =>
  call<Payment>(t, user, 'POST', '/v1/payments', {
    direction: 'INCOMING',
    documentId,
    amount,
    currency: 'EUR',
    paymentDate: '2026-06-20',
    status,
  });

const read = (user: TestUser, id: string) => call<Doc>(t, user, 'GET', `/v1/documents/${id}`);

async function outbox(user: TestUser, type: string): Promise<Outbox[]> {
  const rows = await t.app.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['payload'])
    .where('account_id', '=', user.accountId)
    .where('event_type', '=', type)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => JSON.parse(r.payload) as Outbox);
}

/**
 * The invoices of one account, each with what the bank paid on it (EUR): 1,190.00 invoices
 * unless said otherwise. `pending` has a PENDING payment and `manual` one recorded by hand as
 * settled, both of their whole amount (other amounts than 1,190.00, so no line of another
 * invoice takes them for its own); `credited` has a credit note of 119.00.
 */
async function invoices(user: TestUser, partnerId: string) {
  const make = (quantity = 10) =>
    finalInvoice<Doc>(t, user, partnerId, '2026-06-15', {
      lineItems: [{ description: 'Beratung', quantity, unitPrice: 100 }],
    });
  const docs = {
    full: await make(),
    partial: await make(),
    split: await make(),
    over: await make(),
    credited: await make(),
    pending: await make(5),
    manual: await make(3),
    untouched: await make(),
  };
  await call(t, user, 'POST', `/v1/documents/${docs.credited.id}/credit-notes`, {
    lineItems: [{ description: 'Nachlass', quantity: 1, unitPrice: 100 }],
  });
  const pending = await pay(user, docs.pending.id, 595, 'PENDING');
  await pay(user, docs.manual.id, 357);
  const paid: Record<keyof typeof docs, number[]> = {
    full: [1190],
    partial: [500],
    split: [600, 590],
    over: [1300],
    credited: [1071],
    pending: [595],
    manual: [357],
    untouched: [],
  };
  return { docs, paid, pending };
}

/** What a settlement decides about an invoice, as the API answers it. */
const standing = (d: Doc) => ({
  paymentStatus: d.paymentStatus,
  openAmount: d.openAmount,
  paidAt: d.paidAt,
  overdue: d.overdue,
  version: d.version,
});

async function standings(user: TestUser, docs: Record<string, Doc>) {
  const out: Record<string, ReturnType<typeof standing>> = {};
  for (const [role, doc] of Object.entries(docs)) out[role] = standing(await read(user, doc.id));
  return out;
}

/** The `document.paid` events after `skip`, by invoice role, with what they say. */
async function paidEvents(user: TestUser, docs: Record<string, Doc>, skip: number) {
  const roles = new Map(Object.entries(docs).map(([role, d]) => [d.id, role]));
  const out: Record<string, ReturnType<typeof standing>> = {};
  for (const e of (await outbox(user, 'document.paid')).slice(skip)) {
    const role = roles.get(e.data.id)!;
    expect(out[role], `one event for ${role}`).toBeUndefined();
    out[role] = standing(e.data);
  }
  return out;
}

async function importStatement(user: TestUser, lines: Line[]): Promise<ImportView> {
  const file = await uploadStatement(t, user, mt940(lines));
  return call<ImportView>(t, user, 'POST', '/v1/bank-statement-imports', {
    ...file,
    periodFrom: '2026-06-01',
    periodTo: TODAY,
    autoApprove: true,
  });
}

const finalize = (user: TestUser, imp: ImportView) =>
  call<ImportView>(
    t,
    user,
    'POST',
    `/v1/bank-statement-imports/${imp.id}/finalize`,
    { version: imp.version },
    200,
  );

describe('a statement settling many invoices', () => {
  it('leaves invoices, events and audit as the payments recorded one by one do', async () => {
    const byStatement = await account();
    const byHand = await account();
    const a = await invoices(byStatement.user, byStatement.partnerId);
    const b = await invoices(byHand.user, byHand.partnerId);
    // The payment recorded by hand announced its invoice already, in both accounts.
    expect(await outbox(byStatement.user, 'document.paid')).toHaveLength(1);
    expect(await outbox(byHand.user, 'document.paid')).toHaveLength(1);

    clock.advance(MINUTE);
    const lines: Line[] = Object.entries(a.paid).flatMap(([role, amounts]) =>
      amounts.map((amount, n) => ({
        date: BOOKED,
        cents: amount * 100,
        name: 'Müller GmbH',
        purpose: `Rechnung ${a.docs[role as keyof typeof a.docs].documentNumber}`,
        ref: `${role}-${n}`,
      })),
    );
    const imp = await importStatement(byStatement.user, lines);
    expect(imp).toMatchObject({ transactionCount: 8, undecidedCount: 0 });
    clock.advance(MINUTE);
    const settledAt = clock.now().toISOString();
    const done = await finalize(byStatement.user, imp);
    expect(done).toMatchObject({
      status: 'FINALIZED',
      result: { paymentsCreated: 6, paymentsMarked: 2, budgetEntries: 0 },
    });

    // The same money, one API call per payment, at the same time.
    for (const [role, amounts] of Object.entries(b.paid)) {
      if (role === 'manual') continue; // the statement only confirms it
      if (role === 'pending') {
        await call(t, byHand.user, 'PUT', `/v1/payments/${b.pending.id}`, {
          version: b.pending.version,
          status: 'MARKED',
        });
        continue;
      }
      for (const amount of amounts)
        await pay(byHand.user, b.docs[role as keyof typeof b.docs].id, amount);
    }

    const expected = await standings(byHand.user, b.docs);
    expect(await standings(byStatement.user, a.docs)).toEqual(expected);
    expect(expected).toMatchObject({
      full: { paymentStatus: 'PAID', openAmount: 0, paidAt: settledAt, overdue: false },
      partial: { paymentStatus: 'PARTIAL', openAmount: 690, paidAt: null, overdue: true },
      split: { paymentStatus: 'PAID', openAmount: 0, paidAt: settledAt },
      over: { paymentStatus: 'PAID', openAmount: 0, paidAt: settledAt },
      // The credit note takes off what the payment left open, not from paymentStatus.
      credited: { paymentStatus: 'PARTIAL', openAmount: 0, paidAt: null },
      pending: { paymentStatus: 'PAID', openAmount: 0, paidAt: settledAt },
      manual: { paymentStatus: 'PAID', openAmount: 0 },
      untouched: { paymentStatus: 'UNPAID', openAmount: 1190, paidAt: null, overdue: true },
    });

    // One document.paid per invoice the settlement completed, saying the same.
    const events = await paidEvents(byStatement.user, a.docs, 1);
    expect(events).toEqual(await paidEvents(byHand.user, b.docs, 1));
    expect(Object.keys(events).sort()).toEqual(['full', 'over', 'pending', 'split']);
    // Each carries the invoice as the API answers it.
    for (const e of (await outbox(byStatement.user, 'document.paid')).slice(1))
      expect(e.data).toEqual(await read(byStatement.user, e.data.id));

    // The payments name the import; the import's audit events count them.
    const booked = await t.app.ctx.db
      .selectFrom('payments')
      .select(['document_id', 'status', 'import_id', 'amount'])
      .where('account_id', '=', byStatement.user.accountId)
      .execute();
    expect(booked).toHaveLength(8);
    expect(booked.every((p) => p.status === 'MARKED' && p.import_id === imp.id)).toBe(true);
    const audit = await call<{ data: { action: string; changes: Body }[] }>(
      t,
      byStatement.user,
      'GET',
      `/v1/audit-events?resourceId=${imp.id}`,
    );
    expect(audit.data.map((e) => e.action)).toEqual([
      'bank_import.finalized',
      'bank_import.created',
    ]);
    expect(audit.data[0]!.changes).toEqual(done.result);
    expect((await outbox(byStatement.user, 'import.finalized')).map((e) => e.data.id)).toEqual([
      imp.id,
    ]);

    // Finalized once: a second finalize is refused, the same statement again books nothing.
    const again = await t.request({
      method: 'POST',
      url: `/v1/bank-statement-imports/${imp.id}/finalize`,
      token: byStatement.user.token,
      payload: { version: imp.version },
    });
    expect(again.statusCode).toBe(409);
    clock.advance(MINUTE);
    const reimport = await importStatement(byStatement.user, lines);
    expect(reimport.transactions.every((tx) => tx.decision === 'REJECTED')).toBe(true);
    const second = await finalize(byStatement.user, reimport);
    expect(second.result).toEqual({ paymentsCreated: 0, paymentsMarked: 0, budgetEntries: 0 });
    expect(await standings(byStatement.user, a.docs)).toEqual(expected);
    expect(await outbox(byStatement.user, 'document.paid')).toHaveLength(5);
  }, 120_000);

  it('judges more invoices than one round of statements holds, each once', async () => {
    // 1,201 invoices settled by one booking: three rounds of 500 (copies of one invoice made
    // through the API, inserted directly as the SEPA round-trip bench does).
    const { user, partnerId } = await account();
    const model = await finalInvoice<Doc>(t, user, partnerId, '2026-07-31');
    const row = await t.app.ctx.db
      .selectFrom('documents')
      .selectAll()
      .where('id', '=', model.id)
      .executeTakeFirstOrThrow();
    const ids = Array.from({ length: 1200 }, () => newId('document'));
    await t.app.ctx.db.transaction().execute(async (trx) => {
      for (let from = 0; from < ids.length; from += 100)
        await trx
          .insertInto('documents')
          .values(
            ids.slice(from, from + 100).map((id, i) => ({
              ...row,
              id,
              document_number: `RE-X-${from + i}`,
            })),
          )
          .execute();
    });
    ids.push(model.id);
    // The last one is paid only in part: judged, not paid.
    const partly = ids[700]!;
    clock.advance(MINUTE);
    const at = clock.now();
    const rows = ids.map((id) =>
      newPaymentRow(
        {
          accountId: user.accountId,
          direction: 'INCOMING',
          links: {
            document_id: id,
            document_number: null,
            contract_id: null,
            contract_name: null,
            partner_id: partnerId,
            partner_name: 'Müller GmbH',
          },
          amountMinor: id === partly ? 100_000 : 119_000,
          currency: 'EUR',
          paymentDate: BOOKED,
          status: 'MARKED',
          paymentMethod: 'BANK_TRANSFER',
          providerPaymentIntentId: null,
          failureReason: null,
          source: 'IMPORT',
          importId: null,
        },
        at,
      ),
    );
    await t.app.ctx.db
      .transaction()
      .execute((trx) => insertImportedPayments(t.app.ctx, trx, user.accountId, rows, []));

    const paid = await t.app.ctx.db
      .selectFrom('documents')
      .select(['id', 'paid_at', 'version'])
      .where('account_id', '=', user.accountId)
      .execute();
    expect(paid).toHaveLength(1201);
    const unpaid = paid.filter((d) => d.paid_at === null).map((d) => d.id);
    expect(unpaid).toEqual([partly]);
    expect(paid.every((d) => d.paid_at === null || d.paid_at === at.toISOString())).toBe(true);
    const events = await outbox(user, 'document.paid');
    expect(events).toHaveLength(1200);
    expect(new Set(events.map((e) => e.data.id)).size).toBe(1200);
    expect(events.map((e) => e.data.id)).toEqual(ids.filter((id) => id !== partly).sort());
    expect(events.every((e) => e.data.paymentStatus === 'PAID')).toBe(true);
    expect(await read(user, model.id)).toEqual(events.find((e) => e.data.id === model.id)!.data);
  });
});
