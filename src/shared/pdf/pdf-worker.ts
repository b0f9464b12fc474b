import { parentPort } from 'node:worker_threads';
import { AppError } from '../errors.js';
import { parseEInvoiceXml } from '../einvoice/index.js';
import { analysePdfHere, type AnalyseOptions } from './analyse.js';
import { downscaleImageHere, type ImageSize } from './downscale-image.js';
import { rasterizePdfHere, type RasterizeOptions } from './rasterize.js';
import type { WorkerReply, WorkerRequest } from './worker-pool.js';

/**
 * The worker thread of `PdfWorkerPool`: runs pdf.js jobs, the scaling of images for PDFs and
 * the reading of large e-invoice XML one at a time, and posts back the result or the error (an
 * AppError's code, message and field errors survive the trip).
 */

async function perform(request: WorkerRequest): Promise<unknown> {
  const bytes = request.input as Uint8Array;
  switch (request.op) {
    case 'rasterize':
      return rasterizePdfHere(bytes, request.options as RasterizeOptions);
    case 'analyse':
      return analysePdfHere(bytes, request.options as AnalyseOptions);
    case 'einvoice':
      return parseEInvoiceXml(bytes);
    case 'downscale': {
      const { contentType, size, maxSide } = request.options as {
        contentType: string;
        size: ImageSize;
        maxSide: number;
      };
      return downscaleImageHere({ contentType, bytes: Buffer.from(bytes) }, size, maxSide);
    }
    default:
      throw new Error(`unknown PDF job ${request.op}`);
  }
}

parentPort?.on('message', (request: WorkerRequest) => {
  void perform(request).then(
    (value) => parentPort?.postMessage({ id: request.id, ok: true, value } satisfies WorkerReply),
    (error: unknown) => {
      const reply: WorkerReply = {
        id: request.id,
        ok: false,
        error:
          error instanceof AppError
            ? { code: error.code, message: error.message, extras: error.extras }
            : { message: error instanceof Error ? error.message : String(error) },
      };
      parentPort?.postMessage(reply);
    },
  );
});
