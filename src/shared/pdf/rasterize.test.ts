import { PDFDocument, PDFHexString, StandardFonts, rgb } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { darkPixels, redPixels, rejection } from './pdf.test-support.js';
import { rasterizePdf } from './rasterize.js';

const A4: [number, number] = [595, 842];

/** A PDF with one page per size; each page has a red box and black Helvetica text. */
async function buildPdf(sizes: [number, number][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  sizes.forEach(([width, height], i) => {
    const page = doc.addPage([width, height]);
    // PDF y runs upwards: this box sits 50–150 pt from the top-left corner.
    page.drawRectangle({ x: 50, y: height - 150, width: 100, height: 100, color: rgb(1, 0, 0) });
    page.drawText(`Seite ${i + 1} Größe`, { x: 50, y: height - 200, size: 24, font });
  });
  return doc.save();
}

describe('rasterizePdf', () => {
  it('renders A4 at 72 dpi as 595×842 pixels and at 150 dpi as 1240×1754', async () => {
    const pdf = await buildPdf([A4]);
    const [at72] = await rasterizePdf(pdf, { dpi: 72 });
    expect(at72).toMatchObject({ page: 1, width: 595, height: 842 });
    expect(at72!.png.subarray(1, 4).toString()).toBe('PNG');
    const [at150] = await rasterizePdf(pdf);
    expect(at150).toMatchObject({ page: 1, width: 1240, height: 1754 });
  });

  it('draws the page content where it is (box and standard-font text)', async () => {
    const [page] = await rasterizePdf(await buildPdf([A4]), { dpi: 72 });
    const png = page!.png;
    expect(await redPixels(png, { x: 55, y: 55, width: 90, height: 90 })).toBe(90 * 90);
    expect(await redPixels(png, { x: 300, y: 55, width: 90, height: 90 })).toBe(0);
    // The Helvetica text (from pdf.js's bundled standard fonts) is drawn below the box.
    expect(await darkPixels(png, { x: 50, y: 175, width: 250, height: 30 })).toBeGreaterThan(200);
  });

  it('renders only the chosen pages, in the given order, without duplicates', async () => {
    const pdf = await buildPdf([A4, [300, 400], [842, 595]]);
    const pages = await rasterizePdf(pdf, { pages: [3, 2, 3], dpi: 72 });
    expect(pages.map((p) => [p.page, p.width, p.height])).toEqual([
      [3, 842, 595],
      [2, 300, 400],
    ]);
  });

  it('refuses a page that does not exist, naming it', async () => {
    const pdf = await buildPdf([A4, A4]);
    const error = await rejection(rasterizePdf(pdf, { pages: [1, 7] }));
    expect(error.status).toBe(400);
    expect(error.code).toBe('validation_failed');
    expect(error.extras.errors).toEqual([
      {
        path: '/body/pages/1',
        message: 'page 7 does not exist: the PDF has 2 pages',
        code: 'validation_failed',
      },
    ]);
    for (const pages of [[0], [1.5], [-1], []]) {
      const bad = await rejection(rasterizePdf(pdf, { pages }));
      expect(bad.status).toBe(400);
      expect(bad.extras.errors?.[0]?.path).toMatch(/^\/body\/pages/);
    }
  });

  it('refuses a dpi outside 72–300 with 400 naming the field', async () => {
    const pdf = await buildPdf([A4]);
    for (const dpi of [71, 301, 150.5]) {
      const error = await rejection(rasterizePdf(pdf, { dpi }));
      expect(error.status).toBe(400);
      expect(error.extras.errors?.[0]?.path).toBe('/body/dpi');
    }
    const [at300] = await rasterizePdf(pdf, { dpi: 300 });
    expect(at300).toMatchObject({ width: 2479, height: 3508 });
  });

  it('caps the number of pages per call', async () => {
    const pdf = await buildPdf([A4, A4, A4]);
    const all = await rejection(rasterizePdf(pdf, { maxPages: 2 }));
    expect(all.status).toBe(422);
    expect(all.message).toBe(
      'The PDF has 3 pages; at most 2 are rasterized at once: choose pages.',
    );
    const chosen = await rejection(rasterizePdf(pdf, { maxPages: 2, pages: [1, 2, 3] }));
    expect(chosen.status).toBe(400);
    expect(chosen.extras.errors?.[0]).toMatchObject({ path: '/body/pages' });
    expect(await rasterizePdf(pdf, { maxPages: 2, pages: [1, 3], dpi: 72 })).toHaveLength(2);
  });

  it('caps the pixels of a page', async () => {
    const pdf = await buildPdf([A4, [5000, 5000]]);
    const error = await rejection(rasterizePdf(pdf, { pages: [2], dpi: 150 }));
    expect(error.status).toBe(422);
    expect(error.code).toBe('file_unprocessable');
    expect(error.message).toBe(
      'Page 2 would be 10417×10417 pixels at 150 dpi (108.5 MP); at most 40.0 MP are rendered: choose a lower dpi.',
    );
    const small = await rejection(rasterizePdf(pdf, { pages: [1], maxPixels: 100_000 }));
    expect(small.message).toMatch(/^Page 1 would be 1240×1754 pixels/);
  });

  it('refuses corrupt, truncated, encrypted and oversized input', async () => {
    const good = await buildPdf([A4]);
    const cases: [Uint8Array, number, RegExp][] = [
      [Buffer.from('not a pdf at all'), 422, /not a PDF/],
      [Buffer.from('%PDF-1.7\n garbage that is no pdf structure'), 422, /not a readable PDF/],
      [good.subarray(0, 200), 422, /not a readable PDF/],
      [good, 413, /at most 100 are read/],
    ];
    for (const [bytes, status, message] of cases) {
      const error = await rejection(rasterizePdf(bytes, bytes === good ? { maxBytes: 100 } : {}));
      expect(error.status).toBe(status);
      expect(error.message).toMatch(message);
    }

    const doc = await PDFDocument.create();
    doc.addPage(A4);
    const ctx = doc.context;
    ctx.trailerInfo.Encrypt = ctx.register(
      ctx.obj({
        Filter: 'Standard',
        V: 1,
        R: 2,
        P: -4,
        O: PDFHexString.of('11'.repeat(32)),
        U: PDFHexString.of('22'.repeat(32)),
      }),
    );
    ctx.trailerInfo.ID = ctx.obj([
      PDFHexString.of('ab'.repeat(16)),
      PDFHexString.of('ab'.repeat(16)),
    ]);
    const encrypted = await rejection(rasterizePdf(await doc.save({ useObjectStreams: false })));
    expect(encrypted.status).toBe(422);
    expect(encrypted.message).toBe('The PDF is encrypted with a password.');
  });

  it('stops at its time budget', async () => {
    const pdf = await buildPdf(Array.from({ length: 5 }, () => A4));
    const error = await rejection(rasterizePdf(pdf, { dpi: 300, timeoutMs: 1 }));
    expect(error.status).toBe(422);
    expect(error.message).toMatch(/^Rasterizing took longer than 1 ms/);
  });
});
