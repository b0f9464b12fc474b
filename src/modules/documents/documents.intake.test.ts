import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { toCii } from '../../shared/einvoice/index.js';
import { buildEnInvoice, SELLER } from '../../shared/einvoice/fixtures.test-support.js';
import { upload } from '../files/files.test-support.js';
import { call, type Body } from './documents.test-support.js';

/**
 * Uploaded invoices with an e-invoice inside (issue 11): the document takes number, dates,
 * currency, totals and partner from it; a refused e-invoice says why.
 */

type Doc = Body & { id: string; version: number };

let t: TestApp;
let user: TestUser;
let vendorId: string;

/** An uploaded XML e-invoice processed in the background; the document afterwards. */
async function process(xml: string, extra: Body = {}): Promise<Doc> {
  const { ticket } = await upload(t, user, 'application/xml', Buffer.from(xml), 'rechnung.xml');
  const res = await t.request({
    method: 'POST',
    url: '/v1/documents/processing',
    token: user.token,
    payload: {
      documentType: 'INVOICE',
      name: 'Eingangsrechnung',
      creationDate: '2026-01-01',
      fileId: ticket.fileId,
      ...extra,
    },
  });
  expect(res.statusCode, res.body).toBe(202);
  await t.app.ctx.jobs.drain();
  return call<Doc>(t, user, 'GET', `/v1/documents/${res.json<Doc>().id}`);
}

const seller = { ...SELLER, vatId: 'DE811907980' };

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  vendorId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Lieferant unter anderem Namen',
      type: 'VENDOR',
      vatId: 'DE811907980',
    })
  ).id;
});

afterAll(async () => {
  await t.close();
});

describe('uploaded e-invoices fill their document', () => {
  it('takes number, dates, currency and totals, and finds the partner by VAT id', async () => {
    const xml = toCii(buildEnInvoice({ number: 'ER-7781', seller }));
    const doc = await process(xml);
    expect(doc).toMatchObject({
      processingStatus: 'DONE',
      documentNumber: 'ER-7781',
      creationDate: '2026-11-20',
      dueDate: '2026-12-04',
      currency: 'EUR',
      netTotal: 1579.8,
      taxTotal: 290.59,
      grossTotal: 1870.39,
      invoiceType: 'INVOICE',
      partnerId: vendorId,
      partnerName: 'Lieferant unter anderem Namen',
      eInvoiceProblems: [],
    });
    expect(doc.version).toBeGreaterThan(1);
  });

  it('matches by name without a VAT id, and keeps a number the account already uses', async () => {
    const named = (
      await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
        name: 'Muster Software GmbH',
        type: 'VENDOR',
      })
    ).id;
    const xml = toCii(
      buildEnInvoice({ number: 'ER-7781', seller: { ...seller, vatId: undefined } }),
    );
    const doc = await process(xml);
    expect(doc).toMatchObject({ partnerId: named, documentNumber: null, grossTotal: 1870.39 });
  });

  // Its answers are written as built (`builtAnswers`): the stored analysis is of its day, and
  // what it kept then that the answer does not name stays out of the answer.
  it('answers a stored analysis field by field, whatever else it kept', async () => {
    const doc = await process(toCii(buildEnInvoice({ number: 'ER-12', seller })));
    const stored = JSON.parse(
      (
        await sql<{
          analysis: string;
        }>`select analysis from documents where id = ${doc.id}`.execute(t.app.ctx.db)
      ).rows[0]!.analysis,
    ) as { eInvoice: Body };
    const { payeeIban: _dropped, ...older } = stored.eInvoice;
    const analysis = JSON.stringify({
      ...stored,
      eInvoice: { ...older, sellerVatId: 'DE811907980' },
      eInvoiceProblems: [{ code: 'x', message: 'BR-1 failed', ruleIds: ['BR-1'], line: 7 }],
    });
    await sql`update documents set analysis = ${analysis} where id = ${doc.id}`.execute(
      t.app.ctx.db,
    );
    const after = await call<Doc>(t, user, 'GET', `/v1/documents/${doc.id}`);
    expect(after.eInvoice).toEqual({ ...older, payeeIban: null });
    expect(after.eInvoiceProblems).toEqual([
      { code: 'x', message: 'BR-1 failed', ruleIds: ['BR-1'] },
    ]);
  });

  it('says why an e-invoice is refused, with its rule ids', async () => {
    const good = toCii(buildEnInvoice({ number: 'ER-9', seller }));
    const broken = good.replace(
      /<ram:DuePayableAmount>[^<]+<\/ram:DuePayableAmount>/,
      '<ram:DuePayableAmount>1.00</ram:DuePayableAmount>',
    );
    expect(broken).not.toBe(good);
    const doc = await process(broken);
    expect(doc).toMatchObject({ processingStatus: 'FAILED', eInvoice: null });
    const problems = doc.eInvoiceProblems as { code: string; ruleIds: string[] }[];
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'file_unprocessable', ruleIds: ['BR-CO-16'] });
  });
});
