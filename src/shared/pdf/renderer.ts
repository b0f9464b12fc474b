import { rm } from 'node:fs/promises';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { PDFDocument } from 'pdf-lib';
import type { Browser, BrowserContext, HTTPRequest, Page, PDFOptions } from 'puppeteer-core';
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

/** A render's own browser context and page, set up (no scripts, only `data:` requests). */
interface Prepared {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Requests the page refused (logged at debug level). */
  blocked: { count: number };
  /** The page's renderer process crashed (a spare waiting for its render is dropped). */
  crashed: boolean;
}

/**
 * Whether a document could declare a web font: `@font-face` in any case, a backslash (a CSS
 * escape can spell the at-rule) or inline SVG (an SVG `<style>` decodes character references,
 * so `@font&#45;face` is one). Only such a document is printed after `document.fonts.ready`
 * (puppeteer's `waitForFonts`, a round trip into an isolated world of the page: about 5 ms of a
 * 150 ms render). Without one there is nothing to wait for: the page runs no script and takes
 * styles inline only (its CSP). Letters made from templates never declare one (the sanitizer
 * strips `src:`, `url(`, backslashes and `<svg>`); the check covers every other caller.
 */
export function mayDeclareFonts(html: string): boolean {
  return /font-face|\\|<svg/i.test(html);
}

/**
 * HTML → PDF with one warm headless Chromium, started on the first render (never in the
 * constructor) and relaunched after a crash. Each render runs in a fresh incognito browser
 * context with JavaScript disabled, every request but `data:` aborted and a strict CSP in the
 * document; it is capped in time (RENDER_TIMEOUT_MS) and pages (RENDER_MAX_PAGES). At most
 * RENDER_CONCURRENCY renders run at once and RENDER_QUEUE_LIMIT wait; beyond that → 503.
 *
 * Making a context and its page costs Chromium about as long as printing the PDF, so the next
 * render's context and page (the spare) are made while a render prints, outside any request's
 * wait. Each is used by one render and closed after it, as before; only when it is made moves.
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
  /** The next render's context and page, being made or ready (undefined when it failed). */
  private spare: Promise<Prepared | undefined> | undefined;

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

  /**
   * Renders waiting and running, the browser's process id and its open render contexts (those
   * of running renders and the spare) for health checks and tests.
   */
  stats(): { running: number; waiting: number; browserPid: number | undefined; contexts: number } {
    return {
      running: this.running,
      waiting: this.waiting.length,
      browserPid: this.browser?.process()?.pid,
      // The browser's default context is never a render's.
      contexts: this.browser?.connected === true ? this.browser.browserContexts().length - 1 : 0,
    };
  }

  /** Closes the browser; waiting renders fail with 503 and later ones are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0))
      waiter.reject(new AppError('service_unavailable', 'The PDF renderer is shutting down.'));
    const browser = this.browser ?? (await this.launching?.catch(() => undefined));
    this.browser = undefined;
    // Closing the browser closes the spare's context.
    this.spare = undefined;
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
      const prepared = await this.takePrepared(browser);
      context = prepared.context;
      // The next render's page is made while this one prints (measured: the least wait).
      this.prepareSpare(browser);
      // Taken after the deadline: the cleanup below has already run without it.
      if (timedOut) {
        await this.closeContext(browser, prepared.context);
        throw new Error('render timeout');
      }
      return this.renderInContext(prepared, layout, timeoutMs);
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

  /** A context and page for a render: the spare when it is this browser's, else new ones. */
  private async takePrepared(browser: Browser): Promise<Prepared> {
    // Taken before waiting for it: two renders never share one.
    const pending = this.spare;
    this.spare = undefined;
    const spare = await pending;
    if (spare?.browser === browser && browser.connected && !spare.page.isClosed() && !spare.crashed)
      return spare;
    if (spare) await this.closeContext(spare.browser, spare.context);
    return this.prepare(browser);
  }

  /** Starts making the next render's context and page, unless one is made or being made. */
  private prepareSpare(browser: Browser): void {
    if (this.closed || this.spare !== undefined || !browser.connected) return;
    this.spare = this.prepare(browser).catch((error: unknown) => {
      // The render that would have taken it makes its own (and meets the failure there).
      this.logger.debug({ err: error }, 'PDF renderer: no spare page');
      return undefined;
    });
  }

  private async prepare(browser: Browser): Promise<Prepared> {
    const context = await browser.createBrowserContext();
    try {
      const page = await context.newPage();
      await page.setJavaScriptEnabled(false);
      await page.setRequestInterception(true);
      const blocked = { count: 0 };
      page.on('request', (request: HTTPRequest) => {
        if (request.isInterceptResolutionHandled()) return;
        const allowed = request.url().startsWith('data:');
        if (!allowed) blocked.count++;
        (allowed ? request.continue() : request.abort('blockedbyclient')).catch(() => undefined);
      });
      const prepared: Prepared = { browser, context, page, blocked, crashed: false };
      page.once('error', () => {
        prepared.crashed = true;
      });
      return prepared;
    } catch (error) {
      await this.closeContext(browser, context);
      throw error;
    }
  }

  private async renderInContext(
    { page, blocked }: Prepared,
    layout: LetterLayout,
    timeoutMs: number,
  ): Promise<RenderResult> {
    const max = this.config.renderMaxPages;
    const print = async (html: string, options: PDFOptions): Promise<Uint8Array> => {
      await page.setContent(html, { waitUntil: 'load', timeout: timeoutMs });
      const pdf = await page.pdf({
        ...options,
        timeout: timeoutMs,
        waitForFonts: mayDeclareFonts(html),
      });
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
    if (blocked.count > 0)
      this.logger.debug({ blocked: blocked.count }, 'PDF renderer: blocked requests');
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
