import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../errors.js';
import { Deadline, withPdf } from './pdfjs.js';
import { pdfWorkers } from './worker-pool.js';

/**
 * PDF pages → PNG with pdf.js and @napi-rs/canvas. The canvas comes from pdf.js's own canvas
 * factory, i.e. the @napi-rs/canvas build pdf.js is tested with: mixing it with another copy
 * of the package breaks pdf.js's Path2D/DOMMatrix objects.
 */

export interface RasterizeOptions {
  /** 1-based page numbers; default all pages (up to `maxPages`). */
  pages?: number[];
  /** Resolution, 72–300 dots per inch; default 150. */
  dpi?: number;
  /** Most pages rasterized in one call; default 20. */
  maxPages?: number;
  /** Largest page, width × height in pixels; default 40 MP. */
  maxPixels?: number;
  /** Largest accepted PDF, in bytes; default 50 MiB. */
  maxBytes?: number;
  /** Time budget for the whole call; default 60 s. */
  timeoutMs?: number;
}

export interface RasterPage {
  /** 1-based page number. */
  page: number;
  png: Buffer;
  width: number;
  height: number;
}

export const RASTER_DEFAULTS = {
  dpi: 150,
  minDpi: 72,
  maxDpi: 300,
  maxPages: 20,
  maxPixels: 40_000_000,
  maxBytes: 50 * 1024 * 1024,
  timeoutMs: 60_000,
} as const;

interface CanvasAndContext {
  canvas: { encode(format: 'png'): Promise<Buffer> };
  context: unknown;
}

interface CanvasFactory {
  create(width: number, height: number): CanvasAndContext;
  destroy(canvasAndContext: CanvasAndContext): void;
}

function invalid(path: string, message: string): AppError {
  return new AppError('validation_failed', `${path} ${message}.`, {
    errors: [{ path, message, code: 'validation_failed' }],
  });
}

/** Checks dpi and page numbers before any PDF work. */
function checkOptions(options: RasterizeOptions, maxPages: number): number {
  const dpi = options.dpi ?? RASTER_DEFAULTS.dpi;
  if (!Number.isInteger(dpi) || dpi < RASTER_DEFAULTS.minDpi || dpi > RASTER_DEFAULTS.maxDpi)
    throw invalid(
      '/body/dpi',
      `must be a whole number from ${RASTER_DEFAULTS.minDpi} to ${RASTER_DEFAULTS.maxDpi}`,
    );
  if (options.pages !== undefined) {
    if (options.pages.length === 0) throw invalid('/body/pages', 'must name at least one page');
    if (options.pages.length > maxPages)
      throw invalid('/body/pages', `must name at most ${maxPages} pages per request`);
    options.pages.forEach((page, i) => {
      if (!Number.isInteger(page) || page < 1)
        throw invalid(`/body/pages/${i}`, 'must be a page number from 1');
    });
  }
  return dpi;
}

/**
 * Renders the chosen pages of a PDF to PNG, in a worker thread of the PDF pool, so the event
 * loop stays free. Bad options → 400 naming the field; a page that does not exist → 400
 * naming it; too many pages or too many pixels → 422 saying which limit; an unreadable or
 * encrypted PDF → 422 `file_unprocessable`; too large → 413; over `timeoutMs` or the worker's
 * memory → 422 (the worker is ended); pool queue full → 503 with `Retry-After`.
 */
export async function rasterizePdf(
  pdf: Buffer | Uint8Array,
  options: RasterizeOptions = {},
): Promise<RasterPage[]> {
  // Bad options answer at once, without a trip to a worker.
  checkOptions(options, options.maxPages ?? RASTER_DEFAULTS.maxPages);
  const timeoutMs = options.timeoutMs ?? RASTER_DEFAULTS.timeoutMs;
  // One exact copy, moved to the worker: the caller keeps its buffer, and a Buffer that is a
  // view into a larger pool is not cloned whole.
  const input = new Uint8Array(pdf);
  const pages = await pdfWorkers().run<RasterPage[]>(
    'rasterize',
    input,
    options,
    timeoutMs,
    'Rasterizing',
    [input.buffer],
  );
  // Buffers arrive as plain Uint8Arrays: make them Buffers again, without copying.
  return pages.map((page) => ({
    ...page,
    png: Buffer.from(page.png.buffer, page.png.byteOffset, page.png.byteLength),
  }));
}

/** `rasterizePdf` in the calling thread: what the PDF worker runs. */
export async function rasterizePdfHere(
  pdf: Buffer | Uint8Array,
  options: RasterizeOptions = {},
): Promise<RasterPage[]> {
  const maxPages = options.maxPages ?? RASTER_DEFAULTS.maxPages;
  const maxPixels = options.maxPixels ?? RASTER_DEFAULTS.maxPixels;
  const dpi = checkOptions(options, maxPages);
  const deadline = new Deadline(options.timeoutMs ?? RASTER_DEFAULTS.timeoutMs, 'Rasterizing');
  const maxBytes = options.maxBytes ?? RASTER_DEFAULTS.maxBytes;

  return withPdf(pdf, { maxBytes, deadline }, async (doc) => {
    const count = doc.numPages;
    let pages: number[];
    if (options.pages === undefined) {
      if (count > maxPages)
        throw new AppError(
          'file_unprocessable',
          `The PDF has ${count} pages; at most ${maxPages} are rasterized at once: choose pages.`,
        );
      pages = Array.from({ length: count }, (_, i) => i + 1);
    } else {
      options.pages.forEach((page, i) => {
        if (page > count)
          throw invalid(
            `/body/pages/${i}`,
            `page ${page} does not exist: the PDF has ${count} page${count === 1 ? '' : 's'}`,
          );
      });
      pages = [...new Set(options.pages)];
    }

    // Measure every page first, so an oversized one fails before any rendering work.
    const scale = dpi / 72;
    const planned: { number: number; page: PDFPageProxy; width: number; height: number }[] = [];
    for (const number of pages) {
      const page = await deadline.race(doc.getPage(number));
      const viewport = page.getViewport({ scale });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      if (width * height > maxPixels)
        throw new AppError(
          'file_unprocessable',
          `Page ${number} would be ${width}×${height} pixels at ${dpi} dpi (${((width * height) / 1e6).toFixed(1)} MP); at most ${(maxPixels / 1e6).toFixed(1)} MP are rendered: choose a lower dpi.`,
        );
      planned.push({ number, page, width, height });
    }

    const factory = doc.canvasFactory as CanvasFactory;
    const result: RasterPage[] = [];
    for (const { number, page, width, height } of planned) {
      const target = factory.create(width, height);
      try {
        const viewport = page.getViewport({ scale });
        // Stretch the viewport to the rounded canvas so the page fills it exactly.
        const transform = [width / viewport.width, 0, 0, height / viewport.height, 0, 0];
        const task = page.render({
          canvas: target.canvas as unknown as HTMLCanvasElement,
          viewport,
          transform,
          background: '#ffffff',
          intent: 'print',
        });
        await deadline.race(task.promise, () => task.cancel());
        const png = await deadline.race(target.canvas.encode('png'));
        result.push({ page: number, png, width, height });
      } finally {
        factory.destroy(target);
        page.cleanup();
      }
    }
    return result;
  });
}
