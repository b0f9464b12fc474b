import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.js';
import { PdfRenderer, RENDER_CONCURRENCY, type LetterInput } from './renderer.js';
import { pageTexts, quietLogger, rejection } from './pdf.test-support.js';

/**
 * Tight limits so they are reached quickly: 2 pages, one waiting render. The time limit is
 * generous here (a loaded machine must not turn a long document into a timeout); the timeout
 * test brings a renderer of its own with 1 s.
 */
let renderer: PdfRenderer;

beforeAll(() => {
  renderer = new PdfRenderer(
    loadConfig({ RENDER_MAX_PAGES: '2', RENDER_TIMEOUT_MS: '30000', RENDER_QUEUE_LIMIT: '1' }),
    quietLogger,
  );
});

afterAll(async () => {
  await renderer.close();
});

const paragraphs = (count: number) =>
  Array.from({ length: count }, (_, i) => `<p>Absatz ${i + 1}</p>`).join('');

const letter = (contentHtml: string): LetterInput => ({
  contentHtml,
  footerHtml: 'Seite <span class="pageNumber"></span>',
  headerVisibility: 'ALL_PAGES',
  footerVisibility: 'ALL_PAGES',
});

/** Blurred, shadowed boxes: seconds of work for Chromium's printer on one page. */
const slowContent = Array.from(
  { length: 20 },
  (_, i) =>
    `<div style="width:150mm;height:10mm;filter:blur(8px) drop-shadow(0 0 30px red);box-shadow:0 0 60px 20px blue">${i}</div>`,
).join('');

describe('PdfRenderer limits', () => {
  it('renders a document of exactly RENDER_MAX_PAGES pages', async () => {
    const { pdf, pageCount } = await renderer.render(
      letter(`${paragraphs(5)}<div style="break-before: page">${paragraphs(5)}</div>`),
    );
    expect(pageCount).toBe(2);
    expect(await pageTexts(pdf)).toHaveLength(2);
  });

  it('refuses a document over RENDER_MAX_PAGES with 422', async () => {
    const error = await rejection(renderer.render(letter(paragraphs(200))));
    expect(error.code).toBe('file_unprocessable');
    expect(error.status).toBe(422);
    expect(error.message).toBe(
      'The document would have more than 2 pages (RENDER_MAX_PAGES); shorten its content.',
    );
  });

  it('stops a render after RENDER_TIMEOUT_MS with 422, and the browser stays usable', async () => {
    const quick = new PdfRenderer(loadConfig({ RENDER_TIMEOUT_MS: '1000' }), quietLogger);
    /**
     * A one-line letter within the 1 s limit, tried up to three times: on a loaded machine with
     * a slow Chromium the cold first render (the browser's start) or one render under load can
     * pass 1 s by itself. Any other failure, or three timeouts in a row, fails the test: a
     * browser left unusable by the timeout never renders again.
     */
    const renderSmall = async (text: string) => {
      for (let attempt = 1; ; attempt++) {
        try {
          return await quick.render(letter(`<p>${text}</p>`));
        } catch (err) {
          if (attempt === 3 || !/took longer than/.test((err as Error).message)) throw err;
        }
      }
    };
    try {
      await renderSmall('warm');
      const error = await rejection(quick.render(letter(slowContent)));
      expect(error.code).toBe('file_unprocessable');
      expect(error.message).toMatch(/took longer than 1000 ms \(RENDER_TIMEOUT_MS\)/);
      const { pageCount } = await renderSmall('next');
      expect(pageCount).toBe(1);
    } finally {
      await quick.close();
    }
  });

  it('answers 503 with Retry-After once RENDER_QUEUE_LIMIT renders wait', async () => {
    // Its own renderer, warm and without the tight time limit: what is checked is the queue,
    // and a loaded machine must not turn a queued render into a timeout.
    const queued = new PdfRenderer(
      loadConfig({ RENDER_QUEUE_LIMIT: '1', RENDER_TIMEOUT_MS: '30000' }),
      quietLogger,
    );
    try {
      await queued.render(letter('<p>warm</p>'));
      const small = letter('<p>queued</p>');
      const calls = Array.from({ length: RENDER_CONCURRENCY + 2 }, () => queued.render(small));
      // Two run, one waits (the limit), the fourth is refused at once.
      expect(queued.stats()).toMatchObject({ running: RENDER_CONCURRENCY, waiting: 1 });
      const results = await Promise.allSettled(calls);
      expect(results.map((r) => r.status)).toEqual([
        'fulfilled',
        'fulfilled',
        'fulfilled',
        'rejected',
      ]);
      const refused = (results[3] as PromiseRejectedResult).reason as {
        code: string;
        status: number;
        extras: { headers?: Record<string, string> };
      };
      expect(refused.code).toBe('service_unavailable');
      expect(refused.status).toBe(503);
      expect(Number(refused.extras.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(queued.stats()).toMatchObject({ running: 0, waiting: 0 });
    } finally {
      await queued.close();
    }
  });

  it('answers 503 with Retry-After when the browser cannot start', async () => {
    const broken = new PdfRenderer(
      loadConfig({ CHROMIUM_PATH: '/nonexistent/chromium' }),
      quietLogger,
    );
    try {
      const error = await rejection(broken.render(letter('<p>x</p>')));
      expect(error.code).toBe('service_unavailable');
      expect(error.message).toBe('The PDF renderer could not start; try again.');
      expect(error.extras.headers).toEqual({ 'retry-after': '5' });
    } finally {
      await broken.close();
    }
  });

  it('refuses renders after close() with 503', async () => {
    const other = new PdfRenderer(loadConfig({}), quietLogger);
    await other.close();
    const error = await rejection(other.render(letter('<p>late</p>')));
    expect(error.code).toBe('service_unavailable');
    expect(other.stats().browserPid).toBeUndefined();
  });
});
