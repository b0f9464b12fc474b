import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Pdfjs from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { PDFDocumentLoadingTask, PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../errors.js';

/**
 * pdf.js in Node for reading untrusted PDFs: no worker (the worker module runs in this
 * thread), no `eval`, no network — standard fonts, CMaps and the image decoders' wasm are
 * read from pdfjs-dist's own directories on disk — and caps on size, images and time.
 */

type PdfjsModule = typeof Pdfjs;

let loading: Promise<PdfjsModule> | undefined;

/** Loads pdf.js once, with its worker code on the main thread (`globalThis.pdfjsWorker`). */
function pdfjs(): Promise<PdfjsModule> {
  loading ??= (async () => {
    const worker = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = worker;
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })();
  return loading;
}

const pdfjsDir = path.dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
/** pdf.js reads these with `fs` in Node; the trailing slash is required. */
const dataDir = (name: string) => `${path.join(pdfjsDir, name)}/`;

/** Largest image inside a PDF that pdf.js decodes, in pixels. */
const MAX_IMAGE_PIXELS = 50_000_000;

export interface OpenOptions {
  /** Largest accepted file, in bytes. */
  maxBytes: number;
  /** Rejects with AppError when the deadline (epoch ms) passes. */
  deadline: Deadline;
}

/** A time budget shared by the steps of one operation. */
export class Deadline {
  private readonly end: number;
  constructor(
    readonly ms: number,
    private readonly what: string,
  ) {
    this.end = Date.now() + ms;
  }

  remaining(): number {
    return this.end - Date.now();
  }

  error(): AppError {
    return new AppError(
      'file_unprocessable',
      `${this.what} took longer than ${this.ms} ms; the PDF is too large or too complex.`,
    );
  }

  /** Throws when the budget is used up. */
  check(): void {
    if (this.remaining() <= 0) throw this.error();
  }

  /** Races `promise` against the budget; `onTimeout` cancels the work behind it. */
  async race<T>(promise: Promise<T>, onTimeout?: () => unknown): Promise<T> {
    // The work may fail after the budget is gone (pdf.js rejects it when the document is
    // destroyed); that late failure is expected, not an unhandled rejection.
    promise.catch(() => undefined);
    this.check();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        // The budget's error first: cancelling may reject the work synchronously (pdf.js
        // does), and the race must answer with the time limit, not with "cancelled".
        reject(this.error());
        void Promise.resolve()
          .then(() => onTimeout?.())
          .catch(() => undefined);
      }, this.remaining());
    });
    try {
      return await Promise.race([promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

function unreadable(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const name = error instanceof Error ? error.name : '';
  if (name === 'PasswordException')
    return new AppError('file_unprocessable', 'The PDF is encrypted with a password.');
  const message = error instanceof Error ? error.message : String(error);
  return new AppError('file_unprocessable', `The file is not a readable PDF: ${message}`);
}

/** Opens a PDF; unreadable, encrypted or oversized files become 4xx AppErrors. */
async function openPdf(
  bytes: Buffer | Uint8Array,
  options: OpenOptions,
): Promise<{ doc: PDFDocumentProxy; task: PDFDocumentLoadingTask }> {
  if (bytes.byteLength > options.maxBytes)
    throw new AppError(
      'payload_too_large',
      `The PDF has ${bytes.byteLength} bytes; at most ${options.maxBytes} are read.`,
    );
  if (bytes.byteLength < 8 || Buffer.from(bytes.subarray(0, 1024)).indexOf('%PDF-') === -1)
    throw new AppError('file_unprocessable', 'The file is not a PDF (no %PDF- header).');
  const lib = await pdfjs();
  const task = lib.getDocument({
    // pdf.js takes ownership of (detaches) the buffer it gets: hand it a copy.
    data: new Uint8Array(bytes),
    useSystemFonts: false,
    disableFontFace: true,
    standardFontDataUrl: dataDir('standard_fonts'),
    cMapUrl: dataDir('cmaps'),
    cMapPacked: true,
    wasmUrl: dataDir('wasm'),
    useWorkerFetch: false,
    enableXfa: false,
    maxImageSize: MAX_IMAGE_PIXELS,
    verbosity: lib.VerbosityLevel.ERRORS,
  });
  try {
    return { doc: await options.deadline.race(task.promise, () => task.destroy()), task };
  } catch (error) {
    void task.destroy().catch(() => undefined);
    throw unreadable(error);
  }
}

/** Runs `work` on an opened PDF, mapping pdf.js failures to 422 and always freeing it. */
export async function withPdf<T>(
  bytes: Buffer | Uint8Array,
  options: OpenOptions,
  work: (doc: PDFDocumentProxy) => Promise<T>,
): Promise<T> {
  const { doc, task } = await openPdf(bytes, options);
  try {
    return await work(doc);
  } catch (error) {
    throw unreadable(error);
  } finally {
    // pdf.js 6 frees a document through the task that loaded it.
    await task.destroy().catch(() => undefined);
  }
}
