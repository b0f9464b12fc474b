import fs from 'node:fs';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';

type Body = Record<string, unknown>;
type Doc = Body & { id: string; version: number; status: string; fileId: string | null };

let t: TestApp;
let user: TestUser;
let other: TestUser;
let partnerId: string;
let pdfFileId: string;
let pdfSha: string;

const URL = '/v1/documents';
const post = (payload: Body, u = user, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: URL, token: u.token, payload, headers });
const get = (id: string, u = user) =>
  t.request({ method: 'GET', url: `${URL}/${id}`, token: u.token });
const put = (id: string, payload: Body) =>
  t.request({ method: 'PUT', url: `${URL}/${id}`, token: user.token, payload });
const del = (id: string) => t.request({ method: 'DELETE', url: `${URL}/${id}`, token: user.token });

async function pdfBytes(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++)
    doc.addPage([595, 842]).drawText(`Seite ${i + 1}`, { x: 50, y: 700 });
  return Buffer.from(await doc.save());
}

async function uploadPdf(u: TestUser, pages = 1): Promise<{ id: string; sha256: string }> {
  const { ticket, put: res } = await upload(
    t,
    u,
    'application/pdf',
    await pdfBytes(pages),
    'scan.pdf',
  );
  expect(res.statusCode).toBeLessThan(300);
  const file = (
    await t.request({ method: 'GET', url: `/v1/files/${ticket.fileId}`, token: u.token })
  ).json<{
    id: string;
    sha256: string;
  }>();
  return { id: file.id, sha256: file.sha256 };
}

const invoice = (extra: Body = {}): Body => ({
  documentType: 'INVOICE',
  name: 'Rechnung März',
  creationDate: '2026-03-15',
  fileId: pdfFileId,
  ...extra,
});

beforeAll(async () => {
  t = await buildTestApp({ env: { JOB_POLL_INTERVAL_MS: '0' } });
  user = await createUser(t);
  other = await createUser(t);
  const partner = await t.request({
    method: 'POST',
    url: '/v1/partners',
    token: user.token,
    payload: {
      name: 'Kunde AG',
      type: 'CUSTOMER',
      addresses: [
        {
          type: 'BILLING',
          street: 'Kundenweg 1',
          postalCode: '10115',
          city: 'Berlin',
          email: 'buchhaltung@kunde.example',
        },
      ],
    },
  });
  expect(partner.statusCode).toBe(201);
  partnerId = partner.json<{ id: string }>().id;
  const file = await uploadPdf(user);
  pdfFileId = file.id;
  pdfSha = file.sha256;
});

afterAll(async () => {
  await t.close();
});

describe('documents: create, read, list', () => {
  it('creates an uploaded invoice draft with priced lines and VAT per rate', async () => {
    const res = await post(
      invoice({
        partnerId,
        partnerName: 'ignored',
        lineItems: [
          { description: 'Beratung', quantity: 1.5, unitPrice: 100.01 },
          { description: 'Fahrt', quantity: 3, unitPrice: 0.35 },
        ],
      }),
    );
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBe('"1"');
    const doc = res.json<Doc>();
    expect(doc.id).toMatch(/^doc_/);
    expect(res.headers.location).toBe(`${URL}/${doc.id}`);
    expect(doc).toMatchObject({
      status: 'DRAFT',
      source: 'UPLOADED',
      documentNumber: null,
      partnerId,
      partnerName: 'Kunde AG',
      currency: 'EUR',
      fileId: pdfFileId,
      fileType: 'application/pdf',
      pdfSha256: null,
      netTotal: 151.07, // 150.015 → 150.02, 1.05
      taxTotal: 28.7, // 19 % of 151.07 = 28.7033
      grossTotal: 179.77,
    });
    expect((doc.lineItems as Body[])[0]).toMatchObject({
      quantity: 1.5,
      netAmount: 150.02,
      taxRate: 19,
    });
    expect(doc.taxes).toEqual([expect.objectContaining({ rate: 19, net: 151.07, tax: 28.7 })]);
    const read = await get(doc.id);
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('"1"');
    expect(read.json()).toEqual(doc);
    expect((await get(doc.id, other)).statusCode).toBe(404);
  });

  it('fills lines from a product and refuses bad input with the field named', async () => {
    const product = await t.request({
      method: 'POST',
      url: '/v1/products',
      token: user.token,
      payload: { name: 'Wartung', type: 'SERVICE', unitPrice: 80, currency: 'EUR' },
    });
    expect(product.statusCode).toBe(201);
    const productId = product.json<{ id: string }>().id;
    const ok = await post(invoice({ lineItems: [{ productId, quantity: 2 }] }));
    expect(ok.statusCode).toBe(201);
    expect(ok.json<Doc>()).toMatchObject({ netTotal: 160, grossTotal: 190.4 });
    expect((ok.json<Doc>().lineItems as Body[])[0]).toMatchObject({
      description: 'Wartung',
      productId,
    });

    const cases: [Body, number, string][] = [
      [
        { documentType: 'CONTRACT', lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }] },
        400,
        '/body/lineItems',
      ],
      [
        { lineItems: [{ description: 'x', quantity: 1.0001, unitPrice: 1 }] },
        400,
        '/body/lineItems/0/quantity',
      ],
      [
        { lineItems: [{ description: 'x', quantity: 1, unitPrice: 1.001 }] },
        400,
        '/body/lineItems/0/unitPrice',
      ],
      [
        { lineItems: [{ productId, quantity: 1 }], currency: 'USD' },
        422,
        '/body/lineItems/0/unitPrice',
      ],
      [{ lineItems: [{ productId: 'prd_nope', quantity: 1 }] }, 422, '/body/lineItems/0/productId'],
      [{ partnerId: 'ptr_nope' }, 422, '/body/partnerId'],
      [{ contractId: 'ctr_nope' }, 422, '/body/contractId'],
      [{ fileId: undefined, source: 'UPLOADED' }, 422, '/body/fileId'],
      [{ fileId: undefined, templateId: 'tpl_nope' }, 422, '/body/templateId'],
    ];
    for (const [extra, status, pointer] of cases) {
      const res = await post(invoice(extra));
      expect(res.statusCode, JSON.stringify(extra)).toBe(status);
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(
        pointer,
      );
    }
    // An invoice without template and file is GENERATED from the system invoice layout.
    for (const extra of [{ fileId: undefined }, { fileId: undefined, source: 'GENERATED' }]) {
      const res = await post(invoice(extra));
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json()).toMatchObject({ source: 'GENERATED', templateId: expect.any(String) });
    }
    // Another account's file is not found.
    const foreign = await post(invoice(), other);
    expect(foreign.statusCode).toBe(422);
  });

  it('needs a PUBLISHED template for generated documents', async () => {
    const draft = await t.request({
      method: 'POST',
      url: '/v1/document-templates',
      token: user.token,
      payload: { name: 'Entwurf', contentSource: '<p>x</p>', status: 'DRAFT' },
    });
    expect(draft.statusCode).toBe(201);
    const res = await post(
      invoice({ fileId: undefined, templateId: draft.json<{ id: string }>().id }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'business_rule_violated' });
  });

  it('lists with filters and keyset pagination', async () => {
    const contract = await post(
      invoice({ documentType: 'CONTRACT', name: 'Rahmenvertrag Zeta', creationDate: '2025-01-02' }),
    );
    expect(contract.statusCode).toBe(201);
    const list = async (qs: string) =>
      (await t.request({ method: 'GET', url: `${URL}?${qs}`, token: user.token })).json<{
        data: Doc[];
        nextCursor: string | null;
      }>();
    expect((await list('documentType=CONTRACT')).data.map((d) => d.name)).toEqual([
      'Rahmenvertrag Zeta',
    ]);
    expect((await list('q=zeta')).data).toHaveLength(1);
    expect((await list('to=2025-12-31')).data.map((d) => d.name)).toEqual(['Rahmenvertrag Zeta']);
    expect((await list(`partnerId=${partnerId}`)).data.length).toBeGreaterThan(0);
    const page1 = await list('limit=1');
    expect(page1.data).toHaveLength(1);
    const page2 = await list(`limit=1&cursor=${page1.nextCursor}`);
    expect(page2.data[0]!.id < page1.data[0]!.id).toBe(true);
    expect((await list('')).data.length).toBeGreaterThanOrEqual(3);
    expect((await list('')).data.every((d) => d.id)).toBe(true);
  });
});

describe('documents: finalization and immutability', () => {
  it('numbers invoices {YYYY}-{0000} when FINAL, then refuses changes', async () => {
    const a = (await post(invoice({ name: 'A' }))).json<Doc>();
    const b = (await post(invoice({ name: 'B', creationDate: '2026-05-01' }))).json<Doc>();
    const edited = await put(a.id, {
      version: 1,
      name: 'A2',
      lineItems: [{ description: 'x', quantity: 1, unitPrice: 10 }],
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json<Doc>()).toMatchObject({ name: 'A2', version: 2, grossTotal: 11.9 });
    expect((await put(a.id, { version: 1, name: 'stale' })).statusCode).toBe(409);

    const finalA = await put(a.id, { version: 2, status: 'FINAL' });
    expect(finalA.statusCode).toBe(200);
    expect(finalA.json<Doc>()).toMatchObject({
      status: 'FINAL',
      documentNumber: '2026-0001',
      pdfSha256: pdfSha,
      version: 3,
    });
    expect(finalA.json<Doc>().finalizedAt).toEqual(expect.any(String));
    const finalB = await put(b.id, { version: 1, status: 'FINAL' });
    expect(finalB.json<Doc>().documentNumber).toBe('2026-0002');

    const change = await put(a.id, { version: 3, name: 'nope' });
    expect(change.statusCode).toBe(409);
    expect(change.json()).toMatchObject({ code: 'state_conflict' });
    const stale = await put(a.id, { version: 1, name: 'nope' });
    expect(stale.json()).toMatchObject({ code: 'state_conflict' });
    const remove = await del(a.id);
    expect(remove.statusCode).toBe(409);
    expect(remove.json()).toMatchObject({ code: 'state_conflict' });
    expect((await get(a.id)).json<Doc>().name).toBe('A2');

    // The sequence is per account: the other account starts at 0001, and a FINAL create numbers too.
    const otherFile = await uploadPdf(other);
    const otherFinal = await post(invoice({ fileId: otherFile.id, status: 'FINAL' }), other);
    expect(otherFinal.statusCode).toBe(201);
    expect(otherFinal.json<Doc>()).toMatchObject({
      documentNumber: '2026-0001',
      pdfSha256: otherFile.sha256,
    });
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', '=', a.id)
      .execute();
    expect(events.map((e) => e.action).sort()).toEqual([
      'document.created',
      'document.finalized',
      'document.updated',
    ]);
  });

  it('skips a hand-typed number and refuses duplicates', async () => {
    const manual = await post(invoice({ documentNumber: '2026-0003', status: 'FINAL' }));
    expect(manual.statusCode).toBe(201);
    const dup = await post(invoice({ documentNumber: '2026-0003' }));
    expect(dup.statusCode).toBe(409);
    expect(dup.json()).toMatchObject({
      code: 'duplicate',
      errors: [{ path: '/body/documentNumber' }],
    });
    const next = await post(invoice({ status: 'FINAL' }));
    expect(next.json<Doc>().documentNumber).toBe('2026-0004');
    // Contract documents are not numbered automatically.
    const contract = await post(invoice({ documentType: 'CONTRACT', status: 'FINAL' }));
    expect(contract.json<Doc>()).toMatchObject({ status: 'FINAL', documentNumber: null });
  });

  it('deletes drafts; keeps used files, partners and contracts', async () => {
    const draft = (await post(invoice({ partnerId }))).json<Doc>();
    const file = await t.request({
      method: 'DELETE',
      url: `/v1/files/${pdfFileId}`,
      token: user.token,
    });
    expect(file.statusCode).toBe(409);
    expect(file.json()).toMatchObject({ code: 'in_use' });
    const partner = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${partnerId}`,
      token: user.token,
    });
    expect(partner.statusCode).toBe(409);
    expect(partner.json()).toMatchObject({ code: 'in_use' });
    const res = await del(draft.id);
    expect(res.statusCode).toBe(204);
    expect((await get(draft.id)).statusCode).toBe(404);
    expect((await del(draft.id)).statusCode).toBe(404);
  });
});

describe('documents: processing, rendering, sending, rasterizing', () => {
  it('analyses an uploaded PDF in the background', async () => {
    const file = await uploadPdf(user, 3);
    const res = await t.request({
      method: 'POST',
      url: `${URL}/processing`,
      token: user.token,
      payload: invoice({ fileId: file.id }),
    });
    expect(res.statusCode).toBe(202);
    const doc = res.json<Doc>();
    expect(doc.processingStatus).toBe('QUEUED');
    await t.app.ctx.jobs.drain();
    const done = (await get(doc.id)).json<Doc>();
    expect(done).toMatchObject({
      processingStatus: 'DONE',
      pageCount: 3,
      eInvoice: null,
    });
    // What processing changed moves version and updatedAt, so a client's copy turns stale.
    expect(done.version).toBeGreaterThan(doc.version);
    expect(String(done.updatedAt) > String(doc.updatedAt)).toBe(true);
    const stale = await t.request({
      method: 'PUT',
      url: `${URL}/${doc.id}`,
      token: user.token,
      payload: { version: doc.version, name: 'Alt' },
    });
    expect(stale.statusCode).toBe(409);
  });

  it('marks processing FAILED when the uploaded XML is no e-invoice', async () => {
    const { ticket } = await upload(t, user, 'application/xml', SAMPLES.xml, 'camt.xml');
    const res = await t.request({
      method: 'POST',
      url: `${URL}/processing`,
      token: user.token,
      payload: invoice({ fileId: ticket.fileId }),
    });
    expect(res.statusCode).toBe(202);
    await t.app.ctx.jobs.drain();
    const doc = (await get(res.json<Doc>().id)).json<Doc>();
    expect(doc.processingStatus).toBe('FAILED');
    expect(doc.processingError).toEqual(expect.any(String));
  });

  it('renders a FINAL generated invoice, mails it once per idempotency key, and rasterizes it', async () => {
    const template = await t.request({
      method: 'POST',
      url: '/v1/document-templates',
      token: user.token,
      payload: {
        name: 'Rechnung',
        contentSource: '<h1>Rechnung {{ document.documentNumber }}</h1><p>{{ partner.name }}</p>',
        status: 'PUBLISHED',
      },
    });
    expect(template.statusCode).toBe(201);
    const templateId = template.json<{ id: string }>().id;
    const draft = await post({
      documentType: 'INVOICE',
      name: 'Rechnung April',
      creationDate: '2026-04-01',
      deliveryDate: '2026-03-31',
      templateId,
      partnerId,
      lineItems: [{ description: 'Leistung', quantity: 1, unitPrice: 100 }],
    });
    expect(draft.statusCode).toBe(201);
    const doc = draft.json<Doc>();
    expect(doc).toMatchObject({ source: 'GENERATED', fileId: null, templateId });

    const headers = { 'idempotency-key': `send-${doc.id}` };
    const send = () =>
      t.request({
        method: 'POST',
        url: `${URL}/${doc.id}/send`,
        token: user.token,
        payload: {},
        headers,
      });
    const sent = await send();
    expect(sent.statusCode).toBe(200);
    const body = sent.json<Doc>();
    expect(body).toMatchObject({
      status: 'FINAL',
      documentNumber: '2026-0005',
      fileType: 'application/pdf',
      pageCount: 1,
      sentTo: ['buchhaltung@kunde.example'],
    });
    expect(body.fileId).toMatch(/^fil_/);
    expect(body.pdfSha256).toMatch(/^[0-9a-f]{64}$/);
    const mails = await mailsTo(t, 'buchhaltung@kunde.example');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.raw).toContain('Rechnung 2026-0005.pdf');
    expect(mails[0]!.raw).toContain('application/pdf');
    const replay = await send();
    expect(replay.statusCode).toBe(200);
    const outbox = path.join(t.dataDir, 'outbox');
    const written = fs.readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    const seen = written.map((f) => {
      const raw = fs.readFileSync(path.join(outbox, f), 'utf8');
      return `${f}: ${/^To: (.*)$/m.exec(raw)?.[1]} / ${/^Subject: (.*)$/m.exec(raw)?.[1]}`;
    });
    expect(
      written.length,
      `replayed: ${String(replay.headers['idempotent-replayed'])}; ${seen.join(' | ')}`,
    ).toBe(1);

    // The template and the rendered PDF are in use now.
    const tplDelete = await t.request({
      method: 'DELETE',
      url: `/v1/document-templates/${templateId}`,
      token: user.token,
    });
    expect(tplDelete.statusCode).toBe(409);
    expect(tplDelete.json()).toMatchObject({ code: 'in_use' });

    // The safety-net job finds the PDF attached and does nothing.
    await t.app.ctx.jobs.drain();
    expect((await get(doc.id)).json<Doc>().fileId).toBe(body.fileId);

    const raster = await t.request({
      method: 'POST',
      url: `${URL}/rasterize`,
      token: user.token,
      payload: { documentId: doc.id, dpi: 72 },
    });
    expect(raster.statusCode).toBe(200);
    const r = raster.json<{ sourceFileId: string; dpi: number; pages: Body[] }>();
    expect(r).toMatchObject({ sourceFileId: body.fileId, dpi: 72 });
    expect(r.pages).toHaveLength(1);
    expect(r.pages[0]).toMatchObject({ page: 1, width: 595, height: 842 });
    const both = await t.request({
      method: 'POST',
      url: `${URL}/rasterize`,
      token: user.token,
      payload: { documentId: doc.id, fileId: pdfFileId },
    });
    expect(both.statusCode).toBe(400);
    const missingPage = await t.request({
      method: 'POST',
      url: `${URL}/rasterize`,
      token: user.token,
      payload: { fileId: pdfFileId, pages: [5] },
    });
    expect(missingPage.statusCode).toBe(400);
  });

  it('refuses to send without a recipient', async () => {
    const doc = (await post(invoice())).json<Doc>();
    const res = await t.request({
      method: 'POST',
      url: `${URL}/${doc.id}/send`,
      token: user.token,
      payload: {},
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ errors: [{ path: '/body/to' }] });
    expect((await get(doc.id)).json<Doc>().status).toBe('DRAFT');
  });
});
