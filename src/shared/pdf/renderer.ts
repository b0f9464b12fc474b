import { rm } from 'node:fs/promises';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { PDFDocument } from 'pdf-lib';
import type { Browser, BrowserContext, HTTPRequest, PDFOptions } from 'puppeteer-core';
import type { Config } from '../../config.js';
import { AppError } from '../errors.js';
import { launchChromium, prepareFonts } from './browser.js';
import { composeLetter, type LetterInput, type LetterLayout } from './layout.js';

export type { LetterInput, LogoPosition, Visibility } from './layout.js';

export interface RenderResult {
  pdf: Buffer;
  pageCount: number;
}

/** Renders running at once (the machine's cores); more wait in the queue. */
export const RENDER_CONCURRENCY = 2;

const BROWSER_FAILURES = new Set(['TargetCloseError', 'ProtocolError', 'ConnectionClosedError']);

interface Waiter {
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * HTML → PDF with one warm headless Chromium, started on the first render (never in the
 * constructor) and relaunched after a crash. Each render runs in a fresh incognito browser
 * context with JavaScript disabled, every request but `data:` aborted and a strict CSP in the
 * document; it is capped in time (RENDER_TIMEOUT_MS) and pages (RENDER_MAX_PAGES). At most
 * RENDER_CONCURRENCY renders run at once and RENDER_QUEUE_LIMIT wait; beyond that → 503.
 */
export class PdfRenderer {
  private browser: Browser | undefined;
  private launching: Promise<Browser> | undefined;
  private fontDir: string | undefined;
  private running = 0;
  private readonly waiting: Waiter[] = [];
  private closed = false;
  /** Moving average of render time, for `Retry-After`. */
  private averageMs = 1000;

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
  ) {}

  /** Renders a composed A4 letter. */
  async render(input: LetterInput): Promise<RenderResult> {
    const layout = composeLetter(input);
    await this.acquire();
    const started = Date.now();
    try {
      return await this.renderLayout(layout);
    } finally {
      this.averageMs = 0.8 * this.averageMs + 0.2 * (Date.now() - started);
      this.release();
    }
  }

  /** Renders waiting and running, and the browser's process id (health checks, tests). */
  stats(): { running: number; waiting: number; browserPid: number | undefined } {
    return {
      running: this.running,
      waiting: this.waiting.length,
      browserPid: this.browser?.process()?.pid,
    };
  }

  /** Closes the browser; waiting renders fail with 503 and later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new AppError('service_unavailable', 'The PDF renderer is shutting down.'));
    const browser = this.browser ?? (await this.launching?.catch(() => undefined));
    this.browser = undefined;
    if (browser !== undefined)
      await browser.close().catch(() => browser.process()?.kill('SIGKILL'));
    if (this.fontDir !== undefined) await rm(this.fontDir, { recursive: true, force: true });
    this.fontDir = undefined;
  }

  // ------------------------------------------------------------------------------------------
  // Queue. `acquire` decides synchronously, so concurrent callers are admitted in call order.

  private acquire(): Promise<void> {
    if (this.closed)
      return Promise.reject(new AppError('service_unavailable', 'The PDF renderer is shut down.'));
    if (this.running < RENDER_CONCURRENCY) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.config.renderQueueLimit)
      return Promise.reject(
        new AppError(
          'service_unavailable',
          `${this.waiting.length} PDF renders are already waiting (RENDER_QUEUE_LIMIT); try again shortly.`,
          { headers: { 'retry-after': String(this.retryAfterSeconds()) } },
        ),
      );
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Hands the slot to the next waiter (which then counts as running) or frees it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.resolve();
    else this.running--;
  }

  private retryAfterSeconds(): number {
    const ahead = (this.waiting.length + this.running) / RENDER_CONCURRENCY;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.averageMs) / 1000)));
  }

  // ------------------------------------------------------------------------------------------
  // Browser.

  private async getBrowser(): Promise<Browser> {
    if (this.browser?.connected === true) return this.browser;
    this.launching ??= this.launch().finally(() => {
      this.launching = undefined;
    });
    return this.launching;
  }

  private async launch(): Promise<Browser> {
    try {
      return await this.start();
    } catch (first) {
      if (first instanceof AppError) throw first;
      // One more try: a first start unpacks Chromium to /tmp, which another process may be
      // doing at the same moment.
      this.logger.warn({ err: first }, 'PDF renderer: the browser did not start; retrying');
      await new Promise((resolve) => setTimeout(resolve, 1000));
      try {
        return await this.start();
      } catch (error) {
        if (error instanceof AppError) throw error;
        this.logger.error({ err: error }, 'PDF renderer: the browser did not start');
        throw new AppError('service_unavailable', 'The PDF renderer could not start; try again.', {
          headers: { 'retry-after': '5' },
        });
      }
    }
  }

  private async start(): Promise<Browser> {
    this.fontDir ??= await prepareFonts();
    const browser = await launchChromium(this.config, this.fontDir);
    browser.on('disconnected', () => {
      if (this.browser === browser) this.browser = undefined;
      if (!this.closed)
        this.logger.warn('PDF renderer: the browser disconnected; relaunching on the next render');
    });
    if (this.closed) {
      await browser.close();
      throw new AppError('service_unavailable', 'The PDF renderer is shut down.');
    }
    this.browser = browser;
    this.logger.info({ pid: browser.process()?.pid }, 'PDF renderer: browser started');
    return browser;
  }

  // ------------------------------------------------------------------------------------------
  // One render.

  private async renderLayout(layout: LetterLayout): Promise<RenderResult> {
    const browser = await this.getBrowser();
    const timeoutMs = this.config.renderTimeoutMs;
    let context: BrowserContext | undefined;
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        timedOut = true;
        reject(new Error('render timeout'));
      }, timeoutMs);
    });
    const work = (async () => {
      const created = await browser.createBrowserContext();
      context = created;
      // Created after the deadline: the cleanup below has already run without it.
      if (timedOut) {
        await this.closeContext(browser, created);
        throw new Error('render timeout');
      }
      return this.renderInContext(created, layout, timeoutMs);
    })();
    try {
      return await Promise.race([work, deadline]);
    } catch (error) {
      throw this.failure(error, timedOut, browser);
    } finally {
      clearTimeout(timer);
      work.catch(() => undefined);
      await this.closeContext(browser, context);
    }
  }

  private async renderInContext(
    context: BrowserContext,
    layout: LetterLayout,
    timeoutMs: number,
  ): Promise<RenderResult> {
    const page = await context.newPage();
    await page.setJavaScriptEnabled(false);
    await page.setRequestInterception(true);
    let blocked = 0;
    page.on('request', (request: HTTPRequest) => {
      if (request.isInterceptResolutionHandled()) return;
      const allowed = request.url().startsWith('data:');
      if (!allowed) blocked++;
      (allowed ? request.continue() : request.abort('blockedbyclient')).catch(() => undefined);
    });
    const max = this.config.renderMaxPages;
    const print = async (html: string, options: PDFOptions): Promise<Uint8Array> => {
      await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
      const pdf = await page.pdf({ ...options, timeout: timeoutMs });
      // The document must still be the one set (layout.ts defuses meta refresh; belt and braces).
      if (page.url() !== 'about:blank')
        throw new AppError('file_unprocessable', 'The document navigated away while rendering.');
      return pdf;
    };
    // One page beyond the cap is enough to know the document is too long.
    let pdf = await print(layout.documentHtml, { ...layout.print, pageRanges: `1-${max + 1}` });
    const doc = await PDFDocument.load(pdf, { updateMetadata: false });
    const pageCount = doc.getPageCount();
    if (pageCount > max)
      throw new AppError(
        'file_unprocessable',
        `The document would have more than ${max} pages (RENDER_MAX_PAGES); shorten its content.`,
      );
    if (layout.firstPageOverlay !== undefined) {
      const overlay = await print(layout.firstPageOverlay.html, layout.firstPageOverlay.print);
      const [stamp] = await doc.embedPdf(overlay, [0]);
      const first = doc.getPage(0);
      if (stamp !== undefined)
        first.drawPage(stamp, { x: 0, y: 0, width: first.getWidth(), height: first.getHeight() });
      pdf = await doc.save();
    }
    if (blocked > 0) this.logger.debug({ blocked }, 'PDF renderer: blocked requests');
    return { pdf: Buffer.from(pdf), pageCount };
  }

  /** Closes a render's context; a browser that cannot even do that is killed. */
  private async closeContext(browser: Browser, context: BrowserContext | undefined) {
    if (context === undefined || !browser.connected) return;
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<'stuck'>((resolve) => {
      timer = setTimeout(() => resolve('stuck'), 5000);
    });
    const outcome = await Promise.race([context.close().catch(() => 'failed' as const), stuck]);
    clearTimeout(timer);
    if (outcome === 'stuck') {
      this.logger.error('PDF renderer: a browser context would not close; killing the browser');
      browser.process()?.kill('SIGKILL');
    }
  }

  private failure(error: unknown, timedOut: boolean, browser: Browser): Error {
    if (error instanceof AppError) return error;
    const name = error instanceof Error ? error.name : '';
    if (timedOut || name === 'TimeoutError')
      return new AppError(
        'file_unprocessable',
        `Rendering the document took longer than ${this.config.renderTimeoutMs} ms (RENDER_TIMEOUT_MS); it is too large or too complex.`,
      );
    if (BROWSER_FAILURES.has(name) || !browser.connected) {
      this.logger.warn({ err: error }, 'PDF renderer: the browser failed during a render');
      return new AppError(
        'service_unavailable',
        'The PDF renderer stopped during this render; try again.',
        { headers: { 'retry-after': '1' } },
      );
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}
