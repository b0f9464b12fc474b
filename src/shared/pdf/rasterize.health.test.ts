import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../../test/helpers.js';
import { rasterizePdf } from './rasterize.js';
import { report as writeReport } from '../../../test/report.js';

/**
 * The measurement: rasterizing a heavy PDF blocked the event loop for 21 s and
 * `/health` stalled 11.6 s. With pdf.js in the worker pool, `/health` of a real listening
 * server answers throughout the rasterization of a heavy PDF.
 */

let t: TestApp;
let base: string;

beforeAll(async () => {
  t = await buildTestApp();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => t.close());

/**
 * 3 pages, the third with a tangle of 60,000 segments: a stall of 2.7 s (10.4 s on a slower
 * VM) if it ran in the event loop. The in-thread `rasterizePdfHere` fails the 1 s bound below
 * (worst `/health` 2,688 ms; 9,695 ms), the worker pool passes it (57 ms; 204 ms). The earlier
 * 200 pages with 15,000-segment tangles stalled the event loop less than 1 s each, so they
 * could not fail this test. The figure in docs/rendering.md: `RASTERIZE_HEALTH_PAGES=200
 * RASTERIZE_HEALTH_EVERY=20 RASTERIZE_HEALTH_SEGMENTS=15000 TEST_REPORTS=stdout`.
 */
const PAGES = Number(process.env.RASTERIZE_HEALTH_PAGES ?? 3);
const TANGLE_EVERY = Number(process.env.RASTERIZE_HEALTH_EVERY ?? 3);
const SEGMENTS = Number(process.env.RASTERIZE_HEALTH_SEGMENTS ?? 60_000);

/**
 * A4 pages with text and 150 filled shapes each; every `TANGLE_EVERY`th page also fills one
 * self-intersecting path of `SEGMENTS` segments — a single canvas operation of a second or
 * more, which pdf.js cannot interrupt (in the event loop it stalls everything for that long).
 */
async function heavyPdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  let tangle = 'M 0 0';
  for (let i = 0; i < SEGMENTS; i++) tangle += ` L ${(i * 7919) % 595} ${(i * 104_729) % 842}`;
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([595, 842]);
    for (let j = 0; j < 150; j++)
      page.drawCircle({
        x: (j * 37) % 595,
        y: (j * 53) % 842,
        size: 20,
        color: rgb((j % 7) / 7, 0.2, 0.6),
      });
    if (i % TANGLE_EVERY === TANGLE_EVERY - 1)
      page.drawSvgPath(`${tangle} Z`, { x: 0, y: 842, color: rgb(0, 0, 1) });
    page.drawText(`Seite ${i + 1}: Rechnung Nr. ${1000 + i}`, { x: 50, y: 780, size: 18, font });
  }
  return doc.save();
}

/** Polls `/health` every 20 ms until told to stop; answers every latency and failure. */
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
let done = false;
const latencies = [];
const failures = [];
parentPort.on('message', () => { done = true; });
(async () => {
  while (!done) {
    const started = performance.now();
    try {
      const res = await fetch(workerData.url);
      await res.arrayBuffer();
      if (res.status !== 200) failures.push(String(res.status));
    } catch (error) {
      failures.push(String(error));
    }
    latencies.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  parentPort.postMessage({ latencies, failures });
})();
`;

describe('rasterizePdf off the event loop', () => {
  it('keeps /health answering while a heavy PDF is rasterized', async () => {
    const pdf = await heavyPdf(PAGES);
    // The client polls from its own thread: in this one, a blocked event loop would delay the
    // requests too and hide the stall it is meant to see.
    const poller = new Worker(POLLER, { eval: true, workerData: { url: `${base}/health` } });
    const report = once(poller, 'message') as Promise<
      [{ latencies: number[]; failures: string[] }]
    >;
    const started = performance.now();
    const pages = await rasterizePdf(pdf, { maxPages: PAGES, dpi: 72, timeoutMs: 300_000 });
    const took = performance.now() - started;
    poller.postMessage('stop');
    const [{ latencies, failures }] = await report;
    await poller.terminate();
    expect(pages).toHaveLength(PAGES);
    const worst = Math.max(...latencies);
    // The figure the issue asks for (docs/rendering.md).
    writeReport(
      `${PAGES}-page rasterize (a tangle of ${SEGMENTS} segments every ${TANGLE_EVERY} pages): ${Math.round(took)} ms; /health answered ${latencies.length} times, worst ${worst.toFixed(1)} ms`,
    );
    expect(failures).toEqual([]);
    expect(latencies.length).toBeGreaterThan(10);
    expect(worst).toBeLessThan(1000);
  }, 300_000);
});
