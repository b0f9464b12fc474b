import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';

/**
 * Invoice numbers under concurrency (decisions §7): finalizing many drafts of one account at
 * once takes one number each from the per-account, per-type, per-year sequence: distinct,
 * consecutive, none skipped or reused. On SQLite writers serialise; on PostgreSQL the
 * sequence upsert's row lock serialises the finalizing transactions.
 */

type Doc = { id: string; version: number; status: string; documentNumber: string | null };

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

afterAll(async () => {
  await t.close();
});

describe(`documents: concurrent finalization (${dbKind})`, () => {
  it('gives 20 invoices finalized in parallel 20 distinct, consecutive numbers', async () => {
    const user = await createUser(t);
    const N = 20;
    // One file per draft, so no shared file row lock serialises the finalizations for us.
    const files = await Promise.all(
      Array.from({ length: N }, async (_, i) => {
        const { ticket, put } = await upload(t, user, 'application/pdf', SAMPLES.pdf, `r${i}.pdf`);
        expect(put.statusCode).toBeLessThan(300);
        return ticket.fileId;
      }),
    );
    const drafts: Doc[] = [];
    for (const [i, fileId] of files.entries()) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/documents',
        token: user.token,
        payload: {
          documentType: 'INVOICE',
          name: `Rechnung ${i}`,
          creationDate: `2026-0${1 + (i % 9)}-15`,
          fileId,
          lineItems: [{ description: `Leistung ${i}`, quantity: 1, unitPrice: 10 + i }],
        },
      });
      expect(res.statusCode).toBe(201);
      drafts.push(res.json<Doc>());
    }
    expect(drafts.every((d) => d.documentNumber === null)).toBe(true);

    const answers = await Promise.all(
      drafts.map((d) =>
        t.request({
          method: 'PUT',
          url: `/v1/documents/${d.id}`,
          token: user.token,
          payload: { version: d.version, status: 'FINAL' },
        }),
      ),
    );
    for (const res of answers) expect(res.statusCode, res.body).toBe(200);
    const numbers = answers.map((r) => r.json<Doc>().documentNumber);
    expect(answers.every((r) => r.json<Doc>().status === 'FINAL')).toBe(true);
    expect(new Set(numbers).size).toBe(N);
    expect([...numbers].sort()).toEqual(
      Array.from({ length: N }, (_, i) => `2026-${String(i + 1).padStart(4, '0')}`),
    );

    // What the database holds agrees, and the sequence stands at N for the next invoice.
    const stored = await t.app.ctx.db
      .selectFrom('documents')
      .select(['id', 'document_number'])
      .where('account_id', '=', user.accountId)
      .where('status', '=', 'FINAL')
      .execute();
    expect(stored.map((r) => r.document_number).sort()).toEqual([...numbers].sort());
    const sequence = await t.app.ctx.db
      .selectFrom('document_sequences')
      .select('last_value')
      .where('account_id', '=', user.accountId)
      .where('document_type', '=', 'INVOICE')
      .where('year', '=', 2026)
      .executeTakeFirstOrThrow();
    expect(Number(sequence.last_value)).toBe(N);

    // Finalizing again is refused and takes no number.
    const again = await t.request({
      method: 'PUT',
      url: `/v1/documents/${drafts[0]!.id}`,
      token: user.token,
      payload: { version: drafts[0]!.version + 1, status: 'FINAL' },
    });
    expect(again.statusCode).toBe(409);
    const after = await t.app.ctx.db
      .selectFrom('document_sequences')
      .select('last_value')
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(after.last_value)).toBe(N);
  });

  it('lets one of two racing finalizations of the same draft win; the loser takes no number', async () => {
    const user = await createUser(t);
    const draft = async (name: string) => {
      const { ticket } = await upload(t, user, 'application/pdf', SAMPLES.pdf, `${name}.pdf`);
      const res = await t.request({
        method: 'POST',
        url: '/v1/documents',
        token: user.token,
        payload: {
          documentType: 'INVOICE',
          name,
          creationDate: '2026-06-01',
          fileId: ticket.fileId,
        },
      });
      expect(res.statusCode).toBe(201);
      return res.json<Doc>();
    };
    const finalize = (d: Doc) =>
      t.request({
        method: 'PUT',
        url: `/v1/documents/${d.id}`,
        token: user.token,
        payload: { version: d.version, status: 'FINAL' },
      });
    const a = await draft('A');
    const race = await Promise.all([finalize(a), finalize(a), finalize(a)]);
    const codes = race.map((r) => r.statusCode).sort();
    expect(codes).toEqual([200, 409, 409]);
    const winner = race.find((r) => r.statusCode === 200)!.json<Doc>();
    expect(winner.documentNumber).toBe('2026-0001');
    // The losers' transactions rolled back their sequence step: the next number follows on.
    const b = await draft('B');
    expect((await finalize(b)).json<Doc>().documentNumber).toBe('2026-0002');
  });
});
