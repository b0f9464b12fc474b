import { parseEInvoiceXml, type EInvoice } from '../einvoice/index.js';
import { pdfWorkers } from './worker-pool.js';

/**
 * Reads an uploaded e-invoice XML without stalling the event loop (issue 11): the XML parser
 * costs about 200 ms per MB, and an e-invoice may carry megabytes of embedded attachments, so
 * anything beyond a small invoice is read in the PDF worker pool (bounded, time-limited).
 */

/** XML up to this size is read in the calling thread: a few milliseconds at most. */
export const INLINE_EINVOICE_BYTES = 256 * 1024;

/** Time a worker may take to read one e-invoice before it is ended (422). */
const READ_TIMEOUT_MS = 30_000;

/** `parseEInvoiceXml`, off the event loop for large files; the same answers and refusals. */
export async function readEInvoiceXml(bytes: Buffer): Promise<EInvoice> {
  if (bytes.length <= INLINE_EINVOICE_BYTES) return parseEInvoiceXml(bytes);
  // One exact copy, moved to the worker.
  const input = new Uint8Array(bytes);
  return pdfWorkers().run<EInvoice>(
    'einvoice',
    input,
    {},
    READ_TIMEOUT_MS,
    'Reading the e-invoice',
    [input.buffer],
  );
}
