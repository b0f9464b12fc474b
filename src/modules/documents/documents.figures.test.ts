import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { billingAddress, call, finalInvoice, type Body } from './documents.test-support.js';
import { findDocument, withPaymentFigures } from './documents.repository.js';

/**
 * A document read by id carries its figures from one statement (`findDocument`); they must be
 * those `withPaymentFigures` adds to the same row (lists and writes use it): settled payments
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
