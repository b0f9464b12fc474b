import { createCanvas, loadImage } from '@napi-rs/canvas';
import jsqr from 'jsqr';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { rasterizePdf } from '../../shared/pdf/rasterize.js';
import { sha256 } from '../../shared/secrets.js';
import {
  billingAddress,
  call,
  download,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';

/**
 * The customer page's link on the PDF (docs/customer-page.md, "On the PDF"): made when the
 * document becomes FINAL while the account enables links, printed with its QR code in the first
 * render, reused by a later send; none while links are off. Its URL is kept sealed, never in
 * clear text in the database. A finalize renders the PDF once, with links or without.
 */

const jsQR = jsqr.default;
const URL_PATTERN = /https:\/\/kontor\.example\/c\/[0-9A-Za-z]{32}/;
let t: TestApp;

type Doc = Body & { id: string; fileId: string | null; documentNumber: string };
type Link = Body & { id: string };

beforeAll(async () => {
  t = await buildTestApp({
    clock: new ManualClock(new Date('2026-06-01T08:00:00Z')),
    env: { PUBLIC_URL: 'https://kontor.example' },
  });
});
afterAll(async () => {
  await t?.close();
});

async function seller(enabled: boolean): Promise<{ user: TestUser; partnerId: string }> {
  const user = await createUser(t);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: 'Kunde GmbH',
    addresses: [billingAddress(`${user.userId}@kunde.example`)],
  });
  if (enabled)
    await call(t, user, 'PUT', '/v1/customer-link-settings', { enabled: true, version: 0 });
  return { user, partnerId: partner.id };
}

async function pdfOf(user: TestUser, id: string): Promise<Buffer> {
  let doc = await call<Doc>(t, user, 'GET', `/v1/documents/${id}`);
  if (!doc.fileId) {
    await t.app.ctx.jobs.drain();
    doc = await call<Doc>(t, user, 'GET', `/v1/documents/${id}`);
  }
  return download(t, user, doc.fileId!);
}

const textOf = async (pdf: Buffer) => (await pageTexts(pdf)).join('\n').replace(/\s+/g, ' ');

/** The QR codes' contents found on the PDF's first page. */
async function qrOf(pdf: Buffer): Promise<string | undefined> {
  const [page] = await rasterizePdf(pdf, { pages: [1], dpi: 200 });
  const image = await loadImage(page!.png);
  const canvas = createCanvas(image.width, image.height);
  const c = canvas.getContext('2d');
  c.drawImage(image, 0, 0);
  const data = c.getImageData(0, 0, image.width, image.height);
  return jsQR(new Uint8ClampedArray(data.data), image.width, image.height)?.data;
}

describe('the customer page on the PDF', () => {
  it('prints the link made at finalization on an invoice; send reuses it', async () => {
    const { user, partnerId } = await seller(true);
    const doc = await finalInvoice<Doc>(t, user, partnerId, '2026-06-30');
    const links = await call<{ data: Link[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${doc.id}/customer-links`,
    );
    expect(links.data).toHaveLength(1);
    const url = URL_PATTERN.exec(await textOf(await pdfOf(user, doc.id)))?.[0];
    expect(url).toBeDefined();
    // Stored sealed: neither the URL nor its token in clear text.
    const row = await t.app.ctx.db
      .selectFrom('customer_links')
      .selectAll()
      .where('id', '=', links.data[0]!.id)
      .executeTakeFirstOrThrow();
    expect(row.url_sealed).not.toBeNull();
    expect(JSON.stringify(row)).not.toContain(url!.slice(-32));
    // The page opens.
    const page = await t.app.inject({ method: 'GET', url: new URL(url!).pathname });
    expect(page.statusCode).toBe(200);
    // The mail carries the same link; no second link is made.
    await call(t, user, 'POST', `/v1/documents/${doc.id}/send`, {}, 200);
    const [mail] = await mailsTo(t, `${user.userId}@kunde.example`);
    expect(URL_PATTERN.exec(mail!.raw.replace(/=\r?\n/g, ''))?.[0]).toBe(url);
    const after = await call<{ data: Link[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${doc.id}/customer-links`,
    );
    expect(after.data).toHaveLength(1);
  });

  it('prints link and QR code on a quote (the QR code reads as the URL)', async () => {
    const { user, partnerId } = await seller(true);
    const quote = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'QUOTE',
      name: 'Website',
      partnerId,
      creationDate: '2026-06-01',
      status: 'FINAL',
      lineItems: [{ description: 'Konzept', quantity: 1, unitPrice: 500 }],
    });
    const pdf = await pdfOf(user, quote.id);
    const url = URL_PATTERN.exec(await textOf(pdf))?.[0];
    expect(url).toBeDefined();
    expect(await qrOf(pdf)).toBe(url);
  });

  it('prints nothing and makes no link while links are off', async () => {
    const { user, partnerId } = await seller(false);
    const doc = await finalInvoice<Doc>(t, user, partnerId, '2026-06-30');
    const text = await textOf(await pdfOf(user, doc.id));
    expect(text).toContain(doc.documentNumber);
    expect(text).not.toMatch(/kontor\.example\/c\//);
    const links = await call<{ data: Link[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${doc.id}/customer-links`,
    );
    expect(links.data).toHaveLength(0);
  });

  it('renders the PDF once per finalize, with links and without, the link already printed', async () => {
    const render = vi.spyOn(t.app.ctx.renderer, 'render');
    try {
      for (const enabled of [true, false]) {
        const { user, partnerId } = await seller(enabled);
        // Created FINAL, and a draft made FINAL by PUT: one render each, before the commit.
        render.mockClear();
        const created = await finalInvoice<Doc>(t, user, partnerId, '2026-06-30');
        expect(render, `created, links ${enabled}`).toHaveBeenCalledTimes(1);
        const draft = await finalInvoice<Doc & { version: number }>(
          t,
          user,
          partnerId,
          '2026-06-30',
          { status: 'DRAFT' },
        );
        render.mockClear();
        const put = await call<Doc>(t, user, 'PUT', `/v1/documents/${draft.id}`, {
          version: draft.version,
          status: 'FINAL',
        });
        expect(render, `PUT, links ${enabled}`).toHaveBeenCalledTimes(1);
        for (const doc of [created, put]) {
          // The PDF was attached in the request, and prints the link the transaction wrote.
          expect(doc.fileId).not.toBeNull();
          const url = URL_PATTERN.exec(await textOf(await download(t, user, doc.fileId!)))?.[0];
          const rows = await t.app.ctx.db
            .selectFrom('customer_links')
            .select(['token_hash', 'url_sealed'])
            .where('document_id', '=', doc.id)
            .execute();
          if (!enabled) {
            expect([url, rows]).toEqual([undefined, []]);
            continue;
          }
          expect(rows).toHaveLength(1);
          expect(rows[0]!.token_hash).toBe(sha256(url!.slice(-32)));
          expect(rows[0]!.url_sealed).not.toContain(url!.slice(-32));
        }
      }
    } finally {
      render.mockRestore();
    }
  });
});
