import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { billingAddress, call, finalInvoice, type Body } from './documents.test-support.js';
import { downPaymentSteps } from './documents.down-payments.test-support.js';
import { findDocument, listDocuments, withPaymentFigures } from './documents.repository.js';

/**
 * A document read by id or in a list carries the figures the database keeps in its row; they
 * must be those `withPaymentFigures` sums for the same row (writes use it): settled payments
 * only, FINAL credit notes, the preceding invoice's number and date.
 */

const TODAY = '2026-06-30';
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(`${TODAY}T08:00:00Z`)) });
});
afterAll(() => t.close());

type Doc = Body & { id: string; grossTotal: number };

describe('a document read by id', () => {
  it('has the figures withPaymentFigures gives the same row, for every kind of document', async () => {
    const user = await createUser(t);
    const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Zahler GmbH',
      addresses: [billingAddress('buchhaltung@zahler.example')],
    });
    const paid = await finalInvoice<Doc>(t, user, partner.id, '2026-07-31');
    const credited = await finalInvoice<Doc>(t, user, partner.id, '2026-05-31');
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Entwurf',
      partnerId: partner.id,
      creationDate: '2026-06-01',
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });
    const pay = (documentId: string, body: Body) =>
      call(t, user, 'POST', '/v1/payments', {
        documentId,
        currency: 'EUR',
        paymentDate: '2026-06-01',
        status: 'MARKED',
        ...body,
      });
    await pay(paid.id, { amount: 500 });
    await pay(paid.id, { amount: 30, direction: 'OUTGOING' });
    // Not counted: a payment not yet settled.
    await pay(paid.id, { amount: 90, status: 'PENDING' });
    const note = await call<Doc>(t, user, 'POST', `/v1/documents/${credited.id}/credit-notes`, {
      lineItems: [{ description: 'Gutschrift', quantity: 1, unitPrice: 100 }],
    });
    await pay(note.id, { amount: note.grossTotal });
    const quote = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'QUOTE',
      name: 'Angebot',
      partnerId: partner.id,
      creationDate: '2026-06-01',
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });

    const db = t.app.ctx.db;
    const figures: Record<string, Body> = {};
    for (const { id } of [paid, credited, draft, note, quote]) {
      const row = await db
        .selectFrom('documents')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      const [expected] = await withPaymentFigures(db, user.accountId, [row], TODAY);
      const read = await findDocument(db, user.accountId, id, TODAY);
      expect(read).toEqual(expected);
      figures[id] = {
        settled: read!.settled_minor,
        credited: read!.credited_minor,
        preceding: read!.preceding_number,
      };
    }
    // The figures are not all zero: the comparison saw each kind.
    expect(figures[paid.id]).toEqual({ settled: 47000, credited: 0, preceding: null });
    expect(figures[credited.id]).toMatchObject({ settled: 0, credited: 11900 });
    expect(figures[note.id]).toMatchObject({ settled: -11900, preceding: expect.any(String) });
    expect(await findDocument(db, user.accountId, 'doc_missing', TODAY)).toBeUndefined();
  });
});

/**
 * The figures the database keeps in a document's row (migration 0039: settled net, credit
 * notes, deductions), summed from scratch here, independently of its triggers.
 */
async function storedAndSummed(accountId: string) {
  const { rows } = await sql<Record<string, number | string>>`
    select d.id, d.settled_net_minor, d.credit_notes_minor, d.deducted_minor,
      coalesce((select sum(case when p.direction = 'INCOMING' then p.amount else -p.amount end)
        from payments p where p.account_id = d.account_id and p.document_id = d.id
          and p.status = 'MARKED' and p.currency = d.currency), 0) as settled,
      coalesce((select sum(c.gross_total) from documents c where c.account_id = d.account_id
        and c.preceding_document_id = d.id and c.invoice_type = 'CREDIT_NOTE'
        and c.status = 'FINAL'), 0) as credited,
      coalesce((select sum(dd.gross_minor) from document_deductions dd
        where dd.account_id = d.account_id and dd.final_document_id = d.id), 0) as deducted
    from documents d where d.account_id = ${accountId} order by d.id`.execute(t.app.ctx.db);
  return rows.map((r) => ({
    id: r.id,
    stored: [r.settled_net_minor, r.credit_notes_minor, r.deducted_minor].map(Number),
    summed: [r.settled, r.credited, r.deducted].map(Number),
  }));
}

/**
 * The open invoices' totals the database keeps per currency, source and due date (migration
 * 0041), and the same summed from scratch over the open invoices and the rows their open
 * amounts come from.
 */
async function openTotalsKeptAndSummed(accountId: string) {
  const db = t.app.ctx.db;
  const kept = await db
    .selectFrom('open_invoice_totals')
    .select((eb) => [
      'currency',
      'source',
      'due_date',
      eb.fn.sum<number | string>('amount').as('amount'),
      eb.fn.sum<number | string>('count').as('count'),
    ])
    .where('account_id', '=', accountId)
    .groupBy(['currency', 'source', 'due_date'])
    .having((eb) => eb.or([eb.fn.sum('amount'), eb.fn.sum('count')].map((x) => eb(x, '<>', 0))))
    .orderBy(['currency', 'source', 'due_date'])
    .execute();
  const { rows: summed } = await sql<Record<string, string | number>>`
    select currency, source, due, sum(case when open > 0 then open else 0 end) as amount,
      sum(case when open > 0 then 1 else 0 end) as count
    from (select d.currency, d.source, coalesce(d.due_date, '9999-12-31') as due,
      d.gross_total
      - coalesce((select sum(dd.gross_minor) from document_deductions dd
          where dd.account_id = d.account_id and dd.final_document_id = d.id), 0)
      - coalesce((select sum(c.gross_total) from documents c where c.account_id = d.account_id
          and c.preceding_document_id = d.id and c.invoice_type = 'CREDIT_NOTE'
          and c.status = 'FINAL'), 0)
      - abs(coalesce((select sum(case when p.direction = 'INCOMING' then p.amount
          else -p.amount end) from payments p where p.account_id = d.account_id
          and p.document_id = d.id and p.status = 'MARKED' and p.currency = d.currency), 0))
        as open
      from documents d where d.account_id = ${accountId} and d.document_type = 'INVOICE'
        and d.invoice_type = 'INVOICE' and d.status = 'FINAL'
        and d.cancelled_by_document_id is null and d.paid_at is null) o
    group by currency, source, due order by currency, source, due`.execute(db);
  const numbers = (r: Record<string, unknown>, due: unknown) => ({
    currency: r.currency,
    source: r.source,
    due,
    amount: Number(r.amount),
    count: Number(r.count),
  });
  return {
    kept: kept.map((r) => numbers(r, r.due_date)),
    summed: summed.map((r) => numbers(r, r.due)).filter((r) => r.amount !== 0 || r.count !== 0),
  };
}

/** Every document's kept figures equal its summed ones; answers the documents with some. */
async function expectKeptFigures(accountId: string): Promise<string[]> {
  const figures = await storedAndSummed(accountId);
  for (const r of figures) expect(r.stored, r.id as string).toEqual(r.summed);
  const open = await openTotalsKeptAndSummed(accountId);
  expect(open.kept).toEqual(open.summed);
  // Lists answer the kept figures: the same as withPaymentFigures sums for their rows.
  const db = t.app.ctx.db;
  const listed = await listDocuments(db, accountId, { limit: 100, today: TODAY });
  const rows = await db
    .selectFrom('documents')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('id', 'desc')
    .execute();
  expect(listed).toEqual(await withPaymentFigures(db, accountId, rows, TODAY));
  return figures.filter((r) => r.summed.some((n) => n !== 0)).map((r) => r.id as string);
}

describe('the figures kept in a document row', () => {
  it('follow every write of payments and credit notes', async () => {
    const user = await createUser(t);
    const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Zahler GmbH',
      addresses: [billingAddress('buchhaltung@zahler.example')],
    });
    const a = await finalInvoice<Doc>(t, user, partner.id, '2026-07-31');
    const b = await finalInvoice<Doc>(t, user, partner.id, '2026-07-31');
    const c = await finalInvoice<Doc>(t, user, partner.id, '2026-07-31');
    type Payment = { id: string; version: number };
    const pay = (documentId: string, body: Body) =>
      call<Payment>(t, user, 'POST', '/v1/payments', {
        documentId,
        currency: 'EUR',
        paymentDate: '2026-06-01',
        status: 'MARKED',
        ...body,
      });
    const change = (p: Payment, body: Body) =>
      call<Payment>(t, user, 'PUT', `/v1/payments/${p.id}`, { version: p.version, ...body });

    const p1 = await pay(a.id, { amount: 500 });
    await pay(a.id, { amount: 30, direction: 'OUTGOING' });
    const pending = await pay(a.id, { amount: 90, status: 'PENDING' });
    expect(await expectKeptFigures(user.accountId)).toEqual([a.id]);
    // The three are open: the kept totals hold them (what the comparisons see is not empty).
    const open = await openTotalsKeptAndSummed(user.accountId);
    expect(open.kept.reduce((n, r) => n + r.count, 0)).toBe(3);
    // PENDING → MARKED, a settled amount changed, a payment moved to another invoice.
    await change(pending, { status: 'MARKED' });
    const p1b = await change(p1, { amount: 450 });
    const moved = await change(p1b, { documentId: b.id });
    await expectKeptFigures(user.accountId);
    // No longer settled (back to PENDING); then deleted.
    const unsettled = await change(moved, { status: 'PENDING' });
    await expectKeptFigures(user.accountId);
    const gone = await t.request({
      method: 'DELETE',
      url: `/v1/payments/${unsettled.id}`,
      token: user.token,
    });
    expect([200, 204]).toContain(gone.statusCode);
    // A credit note (FINAL at once) and a Storno.
    await call(t, user, 'POST', `/v1/documents/${b.id}/credit-notes`, {
      lineItems: [{ description: 'Gutschrift', quantity: 1, unitPrice: 100 }],
    });
    await call(t, user, 'POST', `/v1/documents/${c.id}/cancel`, {});
    const kept = await expectKeptFigures(user.accountId);
    expect(kept).toEqual(expect.arrayContaining([a.id, b.id, c.id]));
  });

  it('follow a final invoice’s deductions', async () => {
    const steps = downPaymentSteps(t, TODAY);
    const { user, order } = await steps.order();
    const dp = await steps.downPayment(user, order.id, { percent: 30 });
    await steps.pay(user, dp.id, dp.grossTotal);
    const draft = await steps.convert(user, order.id);
    const fin = await steps.finalize(user, draft);
    await steps.pay(user, fin.id, 100);
    const kept = await expectKeptFigures(user.accountId);
    expect(kept).toEqual(expect.arrayContaining([dp.id, fin.id]));
  });
});
