import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import * as audit from '../../shared/audit.js';
import { billingAddress, call, type Body } from './documents.test-support.js';

/**
 * A draft invoice's writes read what they need once: its create goes as one statement with its
 * audit event on PostgreSQL (the reading way's transaction on SQLite), and its create and update
 * answer the payment figures the row keeps, summed again only when an update moves the draft to
 * another currency (SQLite answers an updated row before its trigger recomputes them).
 */

type Doc = Body & { id: string; version: number; paymentStatus: string; currency: string };

let t: TestApp;
let user: TestUser;
let partnerId: string;
beforeAll(async () => {
  t = await buildTestApp({ env: { JOB_POLL_INTERVAL_MS: '0' } });
  user = await createUser(t);
  partnerId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('rechnung@kunde.example')],
    })
  ).id;
});
afterAll(() => t.close());

const draft = (extra: Body = {}): Body => ({
  documentType: 'INVOICE',
  name: 'Entwurf',
  partnerId,
  creationDate: '2026-03-15',
  lineItems: [
    { description: 'Beratung', quantity: 3, unitPrice: 120 },
    { description: 'Anfahrt', quantity: 1, unitPrice: 45 },
  ],
  ...extra,
});

async function createdEvents(id: string): Promise<Body[]> {
  await audit.settleAudit(t.app.ctx.db);
  const res = await t.request({
    method: 'GET',
    url: `/v1/audit-events?resourceId=${id}`,
    token: user.token,
  });
  expect(res.statusCode).toBe(200);
  return (res.json().data as Body[]).filter((e) => e.action === 'document.created');
}

/** The account's documents and `document.created` events, however they were written. */
async function written(): Promise<{ documents: number; created: number }> {
  await audit.settleAudit(t.app.ctx.db);
  const db = t.app.ctx.db;
  const [documents, created] = await Promise.all([
    db
      .selectFrom('documents')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('audit_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', user.accountId)
      .where('action', '=', 'document.created')
      .executeTakeFirstOrThrow(),
  ]);
  return { documents: Number(documents.n), created: Number(created.n) };
}

describe('a draft invoice written with what the request read', () => {
  it('creates the row and one event holding its answer; on PostgreSQL in one statement', async () => {
    const spy = vi.spyOn(audit, 'appendAudit');
    let created: Doc;
    try {
      created = await call<Doc>(t, user, 'POST', '/v1/documents', draft());
      const reading = spy.mock.calls.filter(([, , e]) => e.action === 'document.created');
      expect(reading).toHaveLength(dbKind === 'postgres' ? 0 : 1);
    } finally {
      spy.mockRestore();
    }
    expect(created).toMatchObject({ status: 'DRAFT', grossTotal: 481.95, paymentStatus: 'UNPAID' });
    expect(await call(t, user, 'GET', `/v1/documents/${created.id}`)).toEqual(created);
    const events = await createdEvents(created.id);
    expect(events).toHaveLength(1);
    expect(events[0]!.changes).toEqual(audit.redact(created));
    expect((await audit.verifyAuditChain(t.app.ctx.db)).broken).toEqual([]);
  });

  it('refuses a hand-typed number that is taken with 409 and writes nothing', async () => {
    const first = await call<Doc>(
      t,
      user,
      'POST',
      '/v1/documents',
      draft({ documentNumber: 'E-1' }),
    );
    const before = await written();
    const again = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: draft({ documentNumber: 'E-1' }),
    });
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'duplicate',
      errors: [{ path: '/body/documentNumber' }],
    });
    const after = await written();
    expect(after).toEqual(before);
    expect(before.created).toBeGreaterThan(0);
    expect(await createdEvents(first.id)).toHaveLength(1);
    expect((await audit.verifyAuditChain(t.app.ctx.db)).broken).toEqual([]);
  });

  it('answers the figures a paid draft keeps through an update, and sums them when its currency moves', async () => {
    let doc = await call<Doc>(t, user, 'POST', '/v1/documents', draft());
    await call(t, user, 'POST', '/v1/payments', {
      direction: 'INCOMING',
      documentId: doc.id,
      amount: 100,
      currency: 'EUR',
      status: 'MARKED',
      paymentDate: '2026-03-20',
    });
    doc = await call<Doc>(t, user, 'GET', `/v1/documents/${doc.id}`);
    expect(doc.paymentStatus).toBe('PARTIAL');

    // Same currency: the kept figures are the answer's.
    const renamed = await call<Doc>(t, user, 'PUT', `/v1/documents/${doc.id}`, {
      version: doc.version,
      name: 'Umbenannt',
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });
    expect(renamed).toMatchObject({ name: 'Umbenannt', paymentStatus: 'PARTIAL' });
    expect(await call(t, user, 'GET', `/v1/documents/${doc.id}`)).toEqual(renamed);

    // Paid in full by the same EUR 100 once the lines ask for no more.
    const smaller = await call<Doc>(t, user, 'PUT', `/v1/documents/${doc.id}`, {
      version: renamed.version,
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 50 }],
    });
    expect(smaller.paymentStatus).toBe('PAID');
    expect(await call(t, user, 'GET', `/v1/documents/${doc.id}`)).toEqual(smaller);

    // Another currency: the EUR payment settles nothing of it, in the answer as in the row.
    const moved = await call<Doc>(t, user, 'PUT', `/v1/documents/${doc.id}`, {
      version: smaller.version,
      currency: 'USD',
    });
    expect(moved).toMatchObject({ currency: 'USD', paymentStatus: 'UNPAID' });
    expect(await call(t, user, 'GET', `/v1/documents/${doc.id}`)).toEqual(moved);
  });
});
