import type { PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { AppError } from '../errors.js';
import { looksLikeEInvoice, parseEInvoiceXml, type EInvoice } from '../einvoice/index.js';
import { Deadline, withPdf } from './pdfjs.js';
import { pdfWorkers } from './worker-pool.js';

/**
 * What Kontor reads from an uploaded PDF: page count, text, embedded files and — for
 * ZUGFeRD/Factur-X and XRechnung hybrids — the structured invoice inside it.
 */

export interface PdfAttachment {
  /** File name from the file specification (path stripped). */
  name: string;
  /** Media type guessed from the file name's extension. */
  mimeType?: string;
  description?: string;
  bytes: Buffer;
}

export interface PdfAnalysis {
  pageCount: number;
  /** Extracted text, pages separated by a form feed (`\f`); cut at `maxTextChars`. */
  text: string;
  textTruncated: boolean;
  attachments: PdfAttachment[];
  /** Embedded files left out because they would exceed `maxAttachmentBytes`. */
  attachmentsOmitted: number;
  /** The embedded e-invoice, when one was found and is valid. */
  eInvoice?: EInvoice;
  /** Name of the attachment the e-invoice was read from. */
  eInvoiceFile?: string;
  /** Why an embedded e-invoice was found but not accepted. */
  eInvoiceError?: string;
}

export interface AnalyseOptions {
  /** Largest accepted PDF, in bytes; default 50 MiB. */
  maxBytes?: number;
  /** Most pages a PDF may have; default 2000. */
  maxPages?: number;
  /** Most characters of text returned; default 64 Ki. */
  maxTextChars?: number;
  /** Most bytes of embedded files returned (all together); default 20 MiB. */
  maxAttachmentBytes?: number;
  /** Time budget for the whole analysis; default 30 s. */
  timeoutMs?: number;
}

export const ANALYSE_DEFAULTS = {
  maxBytes: 50 * 1024 * 1024,
  maxPages: 2000,
  maxTextChars: 64 * 1024,
  maxAttachmentBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
} as const;

/** File names the e-invoice standards prescribe for the embedded XML, in priority order. */
const EINVOICE_NAMES = ['factur-x.xml', 'zugferd-invoice.xml', 'xrechnung.xml'];

/** Conformance levels a Factur-X/ZUGFeRD XMP may declare. */
const CONFORMANCE_LEVELS = new Set([
  'MINIMUM',
  'BASIC WL',
  'BASIC',
  'COMFORT',
  'EN 16931',
  'EXTENDED',
  'XRECHNUNG',
]);

const MIME_TYPES: Record<string, string> = {
  xml: 'application/xml',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  txt: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
};

interface RawAttachment {
  filename?: string;
  content?: Uint8Array | null;
  description?: string;
}

async function extractText(
  doc: PDFDocumentProxy,
  maxChars: number,
  deadline: Deadline,
): Promise<{ text: string; truncated: boolean }> {
  const pages: string[] = [];
  let length = 0;
  for (let number = 1; number <= doc.numPages; number++) {
    if (length > maxChars) break;
    const page = await deadline.race(doc.getPage(number));
    const content = await deadline.race(page.getTextContent());
    let text = '';
    for (const item of content.items)
      if ('str' in item) text += item.str + (item.hasEOL ? '\n' : '');
    pages.push(text.trim());
    length += text.length + 1;
    page.cleanup();
  }
  const text = pages.join('\f');
  const truncated = text.length > maxChars || pages.length < doc.numPages;
  return { text: text.slice(0, maxChars), truncated };
}

interface XmpDeclaration {
  /** fx:/zf: ConformanceLevel. */
  level?: string;
  /** fx:/zf: DocumentFileName: the attachment holding the invoice. */
  fileName?: string;
}

/** One property of the Factur-X/ZUGFeRD XMP extension schema, in element or attribute form. */
function xmpProperty(xmp: string, name: string): string | undefined {
  const element = new RegExp(`<([\\w.-]+):${name}>\\s*([^<]*?)\\s*</\\1:${name}>`).exec(xmp);
  if (element) return element[2];
  return new RegExp(`\\s[\\w.-]+:${name}\\s*=\\s*["']([^"']*)["']`).exec(xmp)?.[1]?.trim();
}

/** What the XMP metadata says about an embedded e-invoice. */
async function xmpDeclaration(doc: PDFDocumentProxy): Promise<XmpDeclaration> {
  const { metadata } = await doc.getMetadata().catch(() => ({ metadata: null }));
  const xmp = (metadata as { getRaw(): string } | null)?.getRaw();
  if (typeof xmp !== 'string') return {};
  const level = xmpProperty(xmp, 'ConformanceLevel');
  const fileName = xmpProperty(xmp, 'DocumentFileName');
  return {
    ...(level !== undefined && { level }),
    ...(fileName !== undefined && { fileName }),
  };
}

function readEInvoice(
  attachments: PdfAttachment[],
  xmp: XmpDeclaration,
): Pick<PdfAnalysis, 'eInvoice' | 'eInvoiceFile' | 'eInvoiceError'> {
  const byName = (a: PdfAttachment) => {
    const rank = EINVOICE_NAMES.indexOf(a.name.toLowerCase());
    return rank === -1 ? EINVOICE_NAMES.length : rank;
  };
  const candidates = attachments
    .filter(
      (a) =>
        byName(a) < EINVOICE_NAMES.length ||
        (a.name.toLowerCase().endsWith('.xml') &&
          looksLikeEInvoice(a.bytes.subarray(0, 4096).toString('utf8'))),
    )
    .sort((a, b) => byName(a) - byName(b));
  if (candidates.length === 0) {
    // A Factur-X/ZUGFeRD PDF names its XML in the XMP; if that file is missing, the PDF is
    // broken (a differently named XML, e.g. an Order-X order, is simply not an invoice).
    const declared = xmp.fileName;
    if (declared === undefined || attachments.some((a) => a.name === declared)) return {};
    return {
      eInvoiceError: `The PDF's XMP metadata declares the embedded e-invoice ${declared}, but the PDF contains no such file.`,
    };
  }
  let firstError: string | undefined;
  for (const candidate of candidates) {
    try {
      const eInvoice = parseEInvoiceXml(candidate.bytes);
      if (xmp.level !== undefined && !CONFORMANCE_LEVELS.has(xmp.level.toUpperCase()))
        return {
          eInvoiceFile: candidate.name,
          eInvoiceError: `The PDF's XMP metadata declares the conformance level "${xmp.level}", which is not a Factur-X/ZUGFeRD level.`,
        };
      return { eInvoice, eInvoiceFile: candidate.name };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      firstError ??= `${candidate.name}: ${error.message}`;
    }
  }
  return { eInvoiceFile: candidates[0]?.name, eInvoiceError: firstError };
}

/**
 * Analyses a PDF in a worker thread of the PDF pool, so the event loop stays free. An
 * unreadable, encrypted or too complex PDF → 422 `file_unprocessable`; over `maxBytes` → 413;
 * over `timeoutMs` or the worker's memory → 422 (the worker is ended); pool queue full → 503
 * with `Retry-After`. A broken embedded e-invoice does not fail the analysis: the reason is
 * in `eInvoiceError`.
 */
export async function analysePdf(
  bytes: Buffer | Uint8Array,
  options: AnalyseOptions = {},
): Promise<PdfAnalysis> {
  const timeoutMs = options.timeoutMs ?? ANALYSE_DEFAULTS.timeoutMs;
  // One exact copy, moved to the worker: the caller keeps its buffer, and a Buffer that is a
  // view into a larger pool is not cloned whole.
  const input = new Uint8Array(bytes);
  const analysis = await pdfWorkers().run<PdfAnalysis>(
    'analyse',
    input,
    options,
    timeoutMs,
    'Analysing the PDF',
    [input.buffer],
  );
  // Buffers arrive as plain Uint8Arrays: make them Buffers again, without copying.
  return {
    ...analysis,
    attachments: analysis.attachments.map((a) => ({
      ...a,
      bytes: Buffer.from(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength),
    })),
  };
}

/** `analysePdf` in the calling thread: what the PDF worker runs. */
export async function analysePdfHere(
  bytes: Buffer | Uint8Array,
  options: AnalyseOptions = {},
): Promise<PdfAnalysis> {
  const o = { ...ANALYSE_DEFAULTS, ...options };
  const deadline = new Deadline(o.timeoutMs, 'Analysing the PDF');
  return withPdf(bytes, { maxBytes: o.maxBytes, deadline }, async (doc) => {
    const pageCount = doc.numPages;
    if (pageCount > o.maxPages)
      throw new AppError(
        'file_unprocessable',
        `The PDF has ${pageCount} pages; at most ${o.maxPages} are analysed.`,
      );
    // pdf.js 6 lists the embedded files and hands out their bytes one by one, by key.
    const raw = (await deadline.race(doc.getAttachments())) ?? new Map<string, RawAttachment>();
    const attachments: PdfAttachment[] = [];
    let attachmentBytes = 0;
    let attachmentsOmitted = 0;
    for (const [key, file] of raw) {
      const content = file.content ?? (await deadline.race(doc.getAttachmentContent(key)));
      if (!content) continue;
      if (attachmentBytes + content.byteLength > o.maxAttachmentBytes) {
        attachmentsOmitted++;
        continue;
      }
      attachmentBytes += content.byteLength;
      const name = file.filename || key;
      const mimeType = MIME_TYPES[name.split('.').pop()?.toLowerCase() ?? ''];
      attachments.push({
        name,
        ...(mimeType !== undefined && { mimeType }),
        ...(file.description ? { description: file.description } : {}),
        bytes: Buffer.from(content),
      });
    }
    const xmp = await deadline.race(xmpDeclaration(doc));
    const text = await extractText(doc, o.maxTextChars, deadline);
    return {
      pageCount,
      text: text.text,
      textTruncated: text.truncated,
      attachments,
      attachmentsOmitted,
      ...readEInvoice(attachments, xmp),
    };
  });
}
