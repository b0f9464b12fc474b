import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, mailsTo, type TestApp } from '../../../test/helpers.js';
import { analysePdf } from '../../shared/pdf/analyse.js';
import { redPixels } from '../../shared/pdf/pdf.test-support.js';
import { upload } from '../files/files.test-support.js';
import { attachment, call, download, sha256, type Body } from './documents.test-support.js';

/**
 * Issue 4's "done when", as a newcomer does it, through HTTP only: upload a logo, make it the
 * account's logo, publish a letter template that shows it, create a partner and an invoice
 * with lines, finalize it, download its PDF, rasterize page 1, and send it.
 */

type Doc = Body & {
  id: string;
  version: number;
  status: string;
  documentNumber: string | null;
  fileId: string | null;
  pdfSha256: string | null;
  pageCount: number | null;
};

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});

afterAll(async () => {
  await t.close();
});

/** A solid red PNG, 3:1 like a typical logo. */
function redLogo(): Buffer {
  const canvas = createCanvas(600, 200);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#ff0000';
  ctx.fillRect(0, 0, 600, 200);
  return canvas.toBuffer('image/png');
}

/** Millimetres on the page → pixels at `dpi`. */
const px = (mm: number, dpi: number) => Math.round((mm / 25.4) * dpi);

/** Width and height from a PNG's IHDR chunk. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** A header's RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded. */
function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?([QB])\?([^?]*)\?=/gi, (_, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : Buffer.from(
            text
              .replace(/_/g, ' ')
              .replace(/=([0-9A-F]{2})/gi, (_m, hex: string) =>
                String.fromCharCode(parseInt(hex, 16)),
              ),
            'latin1',
          ).toString('utf8'),
    );
}

describe('documents: a newcomer’s invoice, end to end over HTTP', () => {
  it('uploads a logo, publishes a template, finalizes, downloads, rasterizes and sends an invoice', async () => {
    const admin = await createUser(t);

    // 1. The logo: upload through the signed URL, then make it the account's logo.
    const logo = redLogo();
    const { ticket, put } = await upload(t, admin, 'image/png', logo, 'logo.png');
    expect(put.statusCode).toBeLessThan(300);
    const account = await call<{ version: number }>(t, admin, 'GET', '/v1/account/addresses');
    const withLogo = await call<{ logoFileId: string | null }>(
      t,
      admin,
      'PATCH',
      '/v1/account/addresses',
      { version: account.version, logoFileId: ticket.fileId },
    );
    expect(withLogo.logoFileId).toBe(ticket.fileId);
    await call(t, admin, 'PUT', '/v1/account/addresses', {
      version: account.version + 1,
      addresses: [
        {
          type: 'OFFICE',
          name: 'Test GmbH',
          street: 'Musterstraße 1',
          postalCode: '10115',
          city: 'Berlin',
          country: 'DE',
        },
      ],
    });

    // 2. A letter template that shows the logo top left: created as a draft, then published.
    const draftTemplate = await call<{ id: string; version: number }>(
      t,
      admin,
      'POST',
      '/v1/document-templates',
      {
        name: 'Rechnung mit Logo',
        documentType: 'LETTER',
        status: 'DRAFT',
        showLogo: true,
        logoPosition: 'TOP_LEFT',
        headerSource:
          '<p style="text-align:right">{{ account.name }} · {{ account.address.street }} · {{ account.address.postalCode }} {{ account.address.city }}</p>',
        contentSource:
          '<p>{{ partner.name }}<br>{{ partner.address.street }}<br>{{ partner.address.postalCode }} {{ partner.address.city }}</p>' +
          '<h1>Rechnung {{ document.documentNumber }}</h1><p>Datum: {{ document.creationDate | date }}</p>' +
          '<p>Vielen Dank für Ihren Auftrag. Wir berechnen:</p>',
        footerSource: '<small>Seite <span class="pageNumber"></span></small>',
      },
    );
    const template = await call<{ status: string }>(
      t,
      admin,
      'PUT',
      `/v1/document-templates/${draftTemplate.id}`,
      { version: draftTemplate.version, status: 'PUBLISHED' },
    );
    expect(template.status).toBe('PUBLISHED');

    // 3. A customer whose BILLING address has an email.
    const partner = await call<{ id: string }>(t, admin, 'POST', '/v1/partners', {
      name: 'Nordlicht Handels GmbH',
      type: 'CUSTOMER',
      addresses: [
        {
          type: 'BILLING',
          street: 'Kaiserkai 7',
          postalCode: '20457',
          city: 'Hamburg',
          country: 'DE',
          email: 'rechnung@nordlicht.example',
        },
      ],
    });

    // 4. The invoice with lines at 19 % (the default rate) and 7 %, from the template; a draft.
    const rates = await call<{ data: { id: string; rate: number }[] }>(
      t,
      admin,
      'GET',
      '/v1/tax-rates',
    );
    const reduced = rates.data.find((r) => r.rate === 7)!.id;
    const draft = await call<Doc>(t, admin, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      source: 'GENERATED',
      name: 'Rechnung Juni',
      creationDate: '2026-06-10',
      dueDate: '2026-06-24',
      deliveryDate: '2026-06-10',
      templateId: draftTemplate.id,
      partnerId: partner.id,
      lineItems: [
        { description: 'Webdesign Startseite', quantity: 8, unitPrice: 110 },
        { description: 'Hosting Juni', quantity: 1, unitPrice: 29.9 },
        { description: 'Fachbuch Typografie', quantity: 1, unitPrice: 39.95, taxRateId: reduced },
      ],
    });
    expect(draft).toMatchObject({ status: 'DRAFT', documentNumber: null, fileId: null });

    // 5. Finalize: the number is taken, the PDF rendered and stored with its SHA-256.
    const final = await call<Doc>(t, admin, 'PUT', `/v1/documents/${draft.id}`, {
      version: draft.version,
      status: 'FINAL',
    });
    expect(final).toMatchObject({ status: 'FINAL', documentNumber: '2026-0001', pageCount: 1 });
    expect(final.pdfSha256).toMatch(/^[0-9a-f]{64}$/);

    // 6. Download the PDF through a signed URL: the same bytes as recorded.
    const pdf = await download(t, admin, final.fileId!);
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(sha256(pdf)).toBe(final.pdfSha256);
    const text = (await analysePdf(pdf)).text.replace(/\s+/g, ' ');
    for (const expected of [
      'Nordlicht Handels GmbH',
      'Kaiserkai 7',
      'Rechnung 2026-0001',
      'Datum: 10.06.2026',
      'Webdesign Startseite',
      '880,00 €',
      // 19 % on 8 × 110 + 29.90 = 909.90 → 172.881 → 172.88; 7 % on 39.95 → 2.7965 → 2.80.
      'Nettobetrag 949,85 €',
      'zzgl. 19 % USt. auf 909,90 € 172,88 €',
      'zzgl. 7 % USt. auf 39,95 € 2,80 €',
      'Gesamtbetrag 1.125,53 €',
      'Zahlbar bis 24.06.2026',
      'Test GmbH · Musterstraße 1 · 10115 Berlin',
      'Seite 1',
    ])
      expect(text).toContain(expected);

    // 7. Rasterize page 1 at the default 150 dpi: A4 (210 × 297 mm) is about 1240 × 1754
    // pixels; exactly round(points × 150 / 72) of the page's MediaBox (Chromium writes A4 as
    // 594.96 × 841.92 pt, so 1239 × 1754).
    const page = (await PDFDocument.load(pdf)).getPage(0).getSize();
    const expectedSize = {
      width: Math.round((page.width * 150) / 72),
      height: Math.round((page.height * 150) / 72),
    };
    expect(Math.abs(expectedSize.width - 1240)).toBeLessThanOrEqual(1);
    expect(Math.abs(expectedSize.height - 1754)).toBeLessThanOrEqual(1);
    const raster = await call<{ dpi: number; pages: (Body & { fileId: string })[] }>(
      t,
      admin,
      'POST',
      '/v1/documents/rasterize',
      { documentId: final.id, pages: [1] },
      200,
    );
    expect(raster.dpi).toBe(150);
    expect(raster.pages).toHaveLength(1);
    expect(raster.pages[0]).toMatchObject({ page: 1, ...expectedSize });
    const png = await download(t, admin, raster.pages[0]!.fileId);
    expect(pngSize(png)).toEqual(expectedSize);
    expect(png.length).toBe(raster.pages[0]!.size);

    // The red logo sits top left in the header zone (60 × 20 mm at most, from the 25 mm left
    // margin, in the 40 mm header zone); the same area on the right holds none of it.
    const dpi = 150;
    const logoBox = { x: px(28, dpi), y: px(18, dpi), width: px(50, dpi), height: px(14, dpi) };
    const rightBox = { ...logoBox, x: px(135, dpi) };
    expect(await redPixels(png, logoBox)).toBeGreaterThan(0.9 * logoBox.width * logoBox.height);
    expect(await redPixels(png, rightBox)).toBe(0);
    const below = px(40, dpi);
    const rest = { x: 0, y: below, width: expectedSize.width, height: expectedSize.height - below };
    expect(await redPixels(png, rest)).toBe(0);

    // 8. Send it: to the partner's billing email, with the PDF attached under its number.
    const sent = await call<Doc & { sentTo: string[]; sentAt: string | null }>(
      t,
      admin,
      'POST',
      `/v1/documents/${final.id}/send`,
      {},
      200,
    );
    expect(sent.sentTo).toEqual(['rechnung@nordlicht.example']);
    expect(sent.sentAt).toEqual(expect.any(String));
    const [mail] = await mailsTo(t, 'rechnung@nordlicht.example');
    expect(mail).toBeDefined();
    expect(decodeHeader(mail!.subject)).toBe('Rechnung 2026-0001 – Test GmbH');
    const attached = attachment(mail!.raw, 'Rechnung 2026-0001.pdf');
    expect(attached.contentType).toBe('application/pdf');
    expect(sha256(attached.bytes)).toBe(final.pdfSha256);

    // The logo is in use now: it cannot be deleted.
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/files/${ticket.fileId}`,
      token: admin.token,
    });
    expect(del.statusCode).toBe(409);
    expect(del.json()).toMatchObject({ code: 'in_use' });
  });
});
