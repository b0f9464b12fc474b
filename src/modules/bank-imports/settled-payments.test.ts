import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import {
  getDocument,
  newInvoice,
  newPartner,
  paymentBody,
  payments,
  type PaymentView,
} from '../payments/payments.test-support.js';
import type { ImportView } from './bank-imports.schemas.js';
import { mt940, uploadStatement } from './bank-imports.test-support.js';

/**
 * A payment recorded by hand is settled at once (MARKED). When the bank statement later shows
 * the same money, the import must confirm that payment, not book a second one: the invoice is
 * paid once and the cash counts the money once.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

async function call<T>(
  user: TestUser,
  method: 'POST' | 'PUT' | 'PATCH',
  url: string,
  body: object,
) {
  const res = await t.request({ method, url, token: user.token, payload: body });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
  return res.json<T>();
}

async function importLine(user: TestUser, purpose: string, cents: number): Promise<ImportView> {
  const file = await uploadStatement(
    t,
    user,
    mt940([{ date: '2026-03-04', cents, name: 'Müller GmbH', purpose, ref: 'M1' }]),
  );
  let imp = await call<ImportView>(user, 'POST', '/v1/bank-statement-imports', {
    ...file,
    periodFrom: '2026-03-01',
    periodTo: '2026-03-31',
  });
  imp = await call<ImportView>(
    user,
    'PATCH',
    `/v1/bank-statement-imports/${imp.id}/transactions/0`,
    { version: imp.version, decision: 'ACCEPTED' },
  );
  return imp;
}

describe('bank imports and payments recorded as settled', () => {
  it('confirms the payment recorded by hand instead of booking the money twice', async () => {
    const user = await createUser(t);
    const partner = await newPartner(t, user, 'Müller GmbH');
    const draft = await newInvoice(t, user, {
      partnerId: partner.id,
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 1000 }],
    });
    const invoice = await call<{ documentNumber: string }>(
      user,
      'PUT',
      `/v1/documents/${draft.id}`,
      { version: draft.version, status: 'FINAL' },
    );
    const recorded = (
      await payments(t).post(
        user,
        paymentBody({
          documentId: draft.id,
          partnerName: undefined,
          amount: 1190,
          paymentDate: '2026-03-03',
        }),
      )
    ).json<PaymentView>();
    expect(recorded.status).toBe('MARKED');
    expect((await getDocument(t, user, draft.id)).paymentStatus).toBe('PAID');

    const imp = await importLine(user, `Rechnung ${invoice.documentNumber}`, 119_000);
    const suggestions = imp.transactions[0]!.suggestions;
    // The paid invoice is no longer open; the recorded payment is what the line matches.
    expect(suggestions.map((s) => s.type)).not.toContain('INVOICE');
    expect(suggestions).toContainEqual(
      expect.objectContaining({ type: 'PAYMENT', id: recorded.id, score: 100 }),
    );
    const done = await call<ImportView>(
      user,
      'POST',
      `/v1/bank-statement-imports/${imp.id}/finalize`,
      { version: imp.version },
    );
    expect(done.result).toEqual({ paymentsCreated: 0, paymentsMarked: 1, budgetEntries: 0 });

    const rows = await t.app.ctx.db
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .execute();
    expect(rows).toEqual([
      expect.objectContaining({
        id: recorded.id,
        status: 'MARKED',
        import_id: imp.id,
        // Settled when recorded; the statement only confirms it.
        marked_at: recorded.markedAt,
        version: 2,
      }),
    ]);
    expect((await getDocument(t, user, draft.id)).paymentStatus).toBe('PAID');

    // A second statement with the same money again is booked: that payment is confirmed now.
    const next = await importLine(user, 'Rechnung nochmal', 119_000);
    expect(next.transactions[0]!.suggestions.map((s) => s.type)).not.toContain('PAYMENT');
  });
});
