import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PDFDocument, rgb } from 'pdf-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { rasterizePdf } from './rasterize.js';
import { PdfWorkerPool, pdfWorkers } from './worker-pool.js';

/**
 * The PDF worker pool's limits, with small stand-in workers for the failure modes (a blocked
 * thread, a heap hog, a crash) and the real pdf.js worker for a job over its time limit.
 */

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-pool-'));
const pools: PdfWorkerPool[] = [];
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * A worker that answers `echo` jobs and misbehaves as told by the job's op. The hog piles up
 * many small arrays: Node ends a worker that reaches its heap limit that way, but one failed
 * large allocation (arrays of a million elements, as this hog made before) can abort the whole
 * process instead (nodejs/node#47224), and once took a CI test worker down with it.
 */
const STAND_IN = `
import { parentPort } from 'node:worker_threads';
const hoard = [];
parentPort.on('message', ({ id, op, input }) => {
  if (op === 'block') for (;;);
  if (op === 'hog') for (;;) hoard.push(new Array(10000).fill(Math.random()));
  if (op === 'crash') process.exit(3);
  if (op === 'slow') return setTimeout(() => parentPort.postMessage({ id, ok: true, value: input }), 300);
  parentPort.postMessage({ id, ok: true, value: input });
});
`;
const entry = pathToFileURL(path.join(dir, 'stand-in.mjs'));
fs.writeFileSync(entry, STAND_IN);

function pool(options: Partial<{ size: number; queueLimit: number; maxMemoryMb: number }> = {}) {
  const created = new PdfWorkerPool({ size: 1, queueLimit: 5, maxMemoryMb: 64, entry, ...options });
  pools.push(created);
  return created;
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as AppError,
  );

describe('PdfWorkerPool', () => {
  it('terminates a worker past its time limit with 422, and replaces it', async () => {
    const p = pool();
    const started = Date.now();
    const error = await failure(p.run('block', null, {}, 200, 'Rasterizing'));
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'file_unprocessable', status: 422 });
    expect(error.message).toMatch(/took longer than 200 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await p.run('echo', 'next', {}, 1000, 'x')).toBe('next');
    expect(p.stats()).toMatchObject({ workers: 1, replaced: 1 });
  });

  it('answers 422 when a job exceeds the memory limit, and replaces the worker', async () => {
    const p = pool({ maxMemoryMb: 32 });
    const error = await failure(p.run('hog', null, {}, 30_000, 'Analysing the PDF'));
    expect(error).toMatchObject({ code: 'file_unprocessable' });
    expect(error.message).toMatch(/more than 32 MiB of memory/);
    expect(await p.run('echo', 1, {}, 1000, 'x')).toBe(1);
  });

  it('answers 503 when a worker crashes, and the next job gets a new one', async () => {
    const p = pool();
    const error = await failure(p.run('crash', null, {}, 5000, 'Rasterizing'));
    expect(error).toMatchObject({ code: 'service_unavailable', status: 503 });
    expect(await p.run('echo', 'ok', {}, 1000, 'x')).toBe('ok');
  });

  it('bounds the queue: beyond it 503 with Retry-After', async () => {
    const p = pool({ size: 1, queueLimit: 2 });
    const running = [1, 2, 3].map((n) => p.run('slow', n, {}, 5000, 'x'));
    const error = await failure(p.run('slow', 4, {}, 5000, 'x'));
    expect(error).toMatchObject({ code: 'service_unavailable' });
    expect(Number(error.extras.headers?.['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(await Promise.all(running)).toEqual([1, 2, 3]);
  });
});

describe('rasterizePdf in the pool', () => {
  it('answers 422 for a PDF that takes longer than its time limit; the pool carries on', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 10; i++) {
      const page = doc.addPage([2000, 2000]);
      for (let j = 0; j < 300; j++)
        page.drawCircle({ x: (j * 37) % 2000, y: (j * 53) % 2000, size: 40, color: rgb(0, 0, 1) });
    }
    const pdf = await doc.save();
    const error = await failure(rasterizePdf(pdf, { maxPages: 10, dpi: 150, timeoutMs: 300 }));
    expect(error).toMatchObject({ code: 'file_unprocessable', status: 422 });
    expect(error.message).toMatch(/took longer than 300 ms/);
    const [page] = await rasterizePdf(pdf, { pages: [1], dpi: 72 });
    expect(page).toMatchObject({ page: 1, width: 2000, height: 2000 });
    expect(Buffer.isBuffer(page!.png)).toBe(true);
    expect(pdfWorkers().stats().workers).toBeGreaterThanOrEqual(1);
  });
});
