import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PDFDict, PDFDocument, PDFName } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { rasterizePdf } from './rasterize.js';
import { mayDeclareFonts, PdfRenderer, type LetterInput } from './renderer.js';
import {
  darkPixels,
  pageTexts,
  pngDataUri,
  quietLogger,
  redPixels,
  rejection,
  startRecordingServer,
} from './pdf.test-support.js';

/** One warm browser for the whole file (Chromium starts in about a second). */
let renderer: PdfRenderer;

beforeAll(() => {
  renderer = new PdfRenderer(loadConfig({}), quietLogger);
});

afterAll(async () => {
  await renderer.close();
});

const LINE = 'Größe Äpfel Übermaß Straße – 12,50 €';
const longContent = Array.from({ length: 90 }, (_, i) => `<p>Absatz ${i + 1}: ${LINE}</p>`).join(
  '',
);

const letter = (overrides: Partial<LetterInput> = {}): LetterInput => ({
  contentHtml: longContent,
  headerHtml: '<b>Kopfzeile Muster GmbH</b>',
  footerHtml: 'Fußzeile Bankverbindung',
  headerVisibility: 'ALL_PAGES',
  footerVisibility: 'ALL_PAGES',
  title: 'Testbrief',
  ...overrides,
});

const mmToPt = (mm: number) => Math.round((mm * 72) / 25.4);

describe('PdfRenderer', () => {
  it('does not start a browser before the first render', () => {
    expect(renderer.stats()).toEqual({
      running: 0,
      waiting: 0,
      browserPid: undefined,
      contexts: 0,
    });
  });

  it('makes the next render’s context while one prints, and closes each render’s own', async () => {
    // Open render contexts once every render has closed its own: the spare alone.
    const settled = async () => {
      for (let i = 0; i < 200 && renderer.stats().contexts !== 1; i++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return renderer.stats().contexts;
    };
    await renderer.render(letter({ contentHtml: '<p>Erster Brief</p>' }));
    expect(await settled()).toBe(1);
    // Concurrent renders: the first takes the spare, the others wait for theirs or make them.
    const results = await Promise.all(
      [1, 2, 3].map((i) => renderer.render(letter({ contentHtml: `<p>Brief Nummer ${i}</p>` }))),
    );
    for (const [i, { pdf }] of results.entries()) {
      const [first] = await pageTexts(pdf);
      expect(first).toContain(`Brief Nummer ${i + 1}`);
      for (const other of [1, 2, 3].filter((n) => n !== i + 1))
        expect(first).not.toContain(`Brief Nummer ${other}`);
    }
    expect(await settled()).toBe(1);
    expect(renderer.stats()).toMatchObject({ running: 0, waiting: 0 });
  });

  it('renders header and footer on every page (ALL_PAGES), with umlauts and €', async () => {
    const { pdf, pageCount } = await renderer.render(letter());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pageCount).toBeGreaterThanOrEqual(3);
    const pages = await pageTexts(pdf);
    expect(pages).toHaveLength(pageCount);
    for (const text of pages) {
      expect(text).toContain('Kopfzeile Muster GmbH');
      expect(text).toContain('Fußzeile Bankverbindung');
    }
    expect(pages[0]).toContain(`Absatz 1: ${LINE}`);
    expect(pages.at(-1)).toContain(`Absatz 90: ${LINE}`);
    // The embedded font is the bundled Liberation Sans, not whatever the machine has.
    expect(pdf.toString('latin1')).toMatch(/FontName\s*\/[A-Z]{6}\+LiberationSans/);
  });

  it('renders header and footer on the first page only (FIRST_PAGE_ONLY)', async () => {
    const { pdf, pageCount } = await renderer.render(
      letter({ headerVisibility: 'FIRST_PAGE_ONLY', footerVisibility: 'FIRST_PAGE_ONLY' }),
    );
    expect(pageCount).toBeGreaterThanOrEqual(3);
    const pages = await pageTexts(pdf);
    expect(pages[0]).toContain('Kopfzeile Muster GmbH');
    expect(pages[0]).toContain('Fußzeile Bankverbindung');
    for (const text of pages.slice(1)) {
      expect(text).not.toContain('Kopfzeile');
      expect(text).not.toContain('Fußzeile');
    }
    // The stamped footer does not hide the letter: page 1 still shows its text.
    const [first] = await rasterizePdf(pdf, { pages: [1], dpi: 72 });
    expect(
      await darkPixels(first!.png, { x: mmToPt(25), y: mmToPt(40), width: 200, height: 200 }),
    ).toBeGreaterThan(100);
    const all = pages.join('\n');
    for (let i = 1; i <= 90; i++) expect(all).toContain(`Absatz ${i}: `);
  });

  it('mixes visibilities: header on every page, footer on page 1 only', async () => {
    const { pdf } = await renderer.render(letter({ footerVisibility: 'FIRST_PAGE_ONLY' }));
    const pages = await pageTexts(pdf);
    expect(pages.every((p) => p.includes('Kopfzeile'))).toBe(true);
    expect(pages.map((p) => p.includes('Fußzeile'))).toEqual(pages.map((_, i) => i === 0));
  });

  it('fills page numbers in ALL_PAGES templates', async () => {
    const { pdf, pageCount } = await renderer.render(
      letter({
        footerHtml: 'Seite <span class="pageNumber"></span> von <span class="totalPages"></span>',
      }),
    );
    const pages = await pageTexts(pdf);
    pages.forEach((text, i) => expect(text).toContain(`Seite ${i + 1} von ${pageCount}`));
  });

  it('places the logo top left or top right, following the header visibility', async () => {
    const logo = pngDataUri(300, 100, '#ff0000');
    // At 72 dpi one pixel is one point; the logo box is 60 × 20 mm at most, 10 mm from the top.
    const leftBox = { x: mmToPt(27), y: mmToPt(12), width: mmToPt(50), height: mmToPt(15) };
    const rightBox = { x: mmToPt(135), y: mmToPt(12), width: mmToPt(50), height: mmToPt(15) };

    const left = await renderer.render(letter({ logo: { dataUri: logo, position: 'TOP_LEFT' } }));
    const leftPages = await rasterizePdf(left.pdf, { pages: [1, 2], dpi: 72 });
    for (const page of leftPages) {
      expect(await redPixels(page.png, leftBox)).toBeGreaterThan(2000);
      expect(await redPixels(page.png, rightBox)).toBe(0);
    }

    const right = await renderer.render(
      letter({
        headerVisibility: 'FIRST_PAGE_ONLY',
        logo: { dataUri: logo, position: 'TOP_RIGHT' },
      }),
    );
    const [first, second] = await rasterizePdf(right.pdf, { pages: [1, 2], dpi: 72 });
    expect(await redPixels(first!.png, rightBox)).toBeGreaterThan(2000);
    expect(await redPixels(first!.png, leftBox)).toBe(0);
    // FIRST_PAGE_ONLY: no logo on page 2.
    expect(await redPixels(second!.png, rightBox)).toBe(0);
  });

  it('runs no script: the page keeps its text and shows <noscript>', async () => {
    const { pdf } = await renderer.render({
      contentHtml: `<p id="t">original text</p>
        <script>document.getElementById('t').textContent = 'changed by script';
          document.write('<p>written by script</p>');</script>
        <img src="data:image/png;base64,AAAA" onerror="document.body.textContent = 'onerror ran'">
        <noscript><p>noscript shown</p></noscript>`,
      headerHtml:
        '<span id="h">header</span><script>document.getElementById("h").textContent = "header changed"</script>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    const [text] = await pageTexts(pdf);
    expect(text).toContain('original text');
    expect(text).toContain('noscript shown');
    expect(text).toContain('header');
    expect(text).not.toMatch(/changed|written by script|onerror ran/);
  });

  it.each([
    ['system fonts only', '<style>p { font-family: Arial }</style><p>Größe</p>', false],
    ['an @font-face rule', '<style>@font-face { font-family: X }</style>', true],
    ['the rule in capitals', '<style>@FONT-FACE { font-family: X }</style>', true],
    // A CSS escape can spell the at-rule without its letters; any backslash counts.
    ['an escaped rule', '<style>@\\66 ont-face { font-family: X }</style>', true],
    ['a backslash in the text', '<p>C:\\Rechnungen</p>', true],
    // An SVG <style> decodes character references: `&#45;` is the hyphen.
    ['inline SVG', '<svg><style>@font&#45;face { font-family: X }</style></svg>', true],
  ])('a document with %s: waits for its fonts: %s', (_label, html, waits) => {
    expect(mayDeclareFonts(html)).toBe(waits);
  });

  // The embedded font is in place by the page's load event even without the wait: this guards
  // the embedding (CSP, fonts.conf), not the wait, which stays for such documents regardless.
  it('prints a font the document embeds', async () => {
    const dir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
    const italic = readFileSync(path.join(dir, 'standard_fonts', 'LiberationSans-Italic.ttf'));
    const { pdf } = await renderer.render({
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
      contentHtml: `<style>@font-face { font-family: Probe; src: url(data:font/ttf;base64,${italic.toString('base64')}); }
        .probe { font-family: Probe; font-style: normal; }</style><p class="probe">Schrift</p>`,
    });
    const doc = await PDFDocument.load(pdf);
    const fonts = doc.context
      .enumerateIndirectObjects()
      .map(([, object]) => object)
      .filter(
        (o): o is PDFDict => o instanceof PDFDict && o.get(PDFName.of('FontName')) !== undefined,
      )
      .map((o) => o.get(PDFName.of('FontName'))!.toString());
    expect(fonts.some((name) => name.includes('Italic'))).toBe(true);
  });

  it('requests nothing from the network: images, CSS, fonts, frames, refreshes', async () => {
    const server = await startRecordingServer();
    try {
      const base = `http://127.0.0.1:${server.port}`;
      const { pdf } = await renderer.render({
        contentHtml: `
          <meta http-equiv="refresh" content="0;url=${base}/refresh">
          <link rel="stylesheet" href="${base}/link.css"><link rel="prefetch" href="${base}/prefetch">
          <style>@import url(${base}/import.css);
            @font-face { font-family: Remote; src: url(${base}/font.woff2); }
            .remote { font-family: Remote; background-image: url(${base}/class-bg.png); }</style>
          <p class="remote">visible text</p>
          <img src="${base}/img.png" alt="">
          <img srcset="${base}/srcset.png 2x" alt="">
          <div style="width: 10mm; height: 10mm; background: url('${base}/inline-bg.png')"></div>
          <iframe src="${base}/frame.html"></iframe>
          <object data="${base}/object"></object><embed src="${base}/embed">
          <video poster="${base}/poster.png"></video><audio src="${base}/audio.mp3"></audio>
          <svg width="20" height="20"><image href="${base}/svg.png" width="20" height="20"/></svg>
          <form action="${base}/form"><input type="image" src="${base}/input.png"></form>
          <a href="${base}/link" ping="${base}/ping">link</a>`,
        headerHtml: `<img src="${base}/header.png" alt=""><span style="background: url(${base}/header-bg.png)">Kopf</span>`,
        footerHtml: `<img src="${base}/footer.png" alt="">Fuß`,
        headerVisibility: 'ALL_PAGES',
        footerVisibility: 'FIRST_PAGE_ONLY',
        logo: { dataUri: pngDataUri(20, 20, '#ff0000'), position: 'TOP_LEFT' },
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(server.requests).toEqual([]);
      const [text] = await pageTexts(pdf);
      expect(text).toContain('visible text');
      expect(text).toContain('Kopf');
    } finally {
      await server.close();
    }
  });

  it('reads no local files: file:// frames, images and styles leak nothing', async () => {
    expect(readFileSync('/etc/passwd', 'utf8')).toContain('root:');
    const { pdf } = await renderer.render({
      contentHtml: `<p>before</p>
        <iframe src="file:///etc/passwd" width="600" height="400"></iframe>
        <object data="file:///etc/passwd" type="text/plain" width="600" height="200"></object>
        <embed src="file:///etc/passwd" type="text/plain" width="600" height="200">
        <img src="file:///etc/passwd" alt="">
        <link rel="stylesheet" href="file:///etc/passwd">
        <div style="background: url(file:///etc/passwd)">after</div>`,
      headerHtml: '<iframe src="file:///etc/passwd"></iframe>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    const text = (await pageTexts(pdf)).join('\n');
    expect(text).toContain('before');
    expect(text).toContain('after');
    expect(text).not.toContain('root:');
    expect(text).not.toContain('/bin/');
  });

  it('relaunches a killed browser on the next render', async () => {
    await renderer.render({
      contentHtml: '<p>warm</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    const before = renderer.stats().browserPid;
    expect(before).toBeDefined();
    process.kill(before!, 'SIGKILL');
    for (let i = 0; i < 100 && renderer.stats().browserPid !== undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(renderer.stats().browserPid).toBeUndefined();
    const { pdf } = await renderer.render({
      contentHtml: '<p>after the crash</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    expect((await pageTexts(pdf))[0]).toContain('after the crash');
    const after = renderer.stats().browserPid;
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
  });

  it('fails a render in flight cleanly with 503 when the browser dies, then recovers', async () => {
    await renderer.render({
      contentHtml: '<p>warm</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    const pid = renderer.stats().browserPid!;
    // Blurred, shadowed boxes take Chromium seconds to print.
    const slow = Array.from(
      { length: 12 },
      (_, i) =>
        `<div style="width:150mm;height:20mm;filter:blur(8px) drop-shadow(0 0 30px red);box-shadow:0 0 60px 20px blue">${i}</div>`,
    ).join('');
    const inFlight = renderer.render({
      contentHtml: slow,
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    process.kill(pid, 'SIGKILL');
    const error = await rejection(inFlight);
    expect(error.code).toBe('service_unavailable');
    expect(error.status).toBe(503);
    expect(error.extras.headers?.['retry-after']).toBe('1');
    expect(renderer.stats()).toMatchObject({ running: 0, waiting: 0 });
    const { pageCount } = await renderer.render({
      contentHtml: '<p>recovered</p>',
      headerVisibility: 'ALL_PAGES',
      footerVisibility: 'ALL_PAGES',
    });
    expect(pageCount).toBe(1);
  });
});
