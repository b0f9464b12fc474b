/**
 * `npx tsx bench/facturx.ts`: time to turn one Chromium-rendered invoice PDF into a
 * Factur-X/ZUGFeRD hybrid with `embedFacturX` (CEN's EN 16931 CII example 1 as the XML).
 * Renders the PDF once, warms up with BENCH_WARMUP (20) runs, then times BENCH_RUNS (200)
 * and prints median and p99 in wall-clock milliseconds. Not a test.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { embedFacturX } from '../src/shared/einvoice/facturx-pdf.js';
import { quietLogger } from '../src/shared/pdf/pdf.test-support.js';
import { PdfRenderer } from '../src/shared/pdf/renderer.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 20);
const XML = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../shared/validation/einvoice/examples/valid/en16931-cii-invoice.xml',
);

/** The value below which `p` of the sorted samples fall (nearest rank). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const renderer = new PdfRenderer(loadConfig({}), quietLogger);
const lines = Array.from(
  { length: 6 },
  (_, i) => `<tr><td>Position ${i + 1}</td><td>3</td><td>100,00 €</td></tr>`,
).join('');
const { pdf } = await renderer.render({
  contentHtml: `<h1>Rechnung 12115118</h1><table>${lines}</table>`,
  headerHtml: '<b>Muster GmbH</b>',
  footerHtml: 'Bankverbindung DE02 1203 0000 0000 2020 51',
  headerVisibility: 'ALL_PAGES',
  footerVisibility: 'ALL_PAGES',
  title: 'Rechnung 12115118',
});
await renderer.close();

const xml = readFileSync(XML, 'utf8');
const meta = { title: 'Rechnung 12115118', author: 'Muster GmbH', createdAt: new Date() };
let size = 0;
for (let i = 0; i < WARMUP; i++) await embedFacturX(pdf, xml, meta);
const samples: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const started = performance.now();
  size = (await embedFacturX(pdf, xml, meta)).length;
  samples.push(performance.now() - started);
}
samples.sort((a, b) => a - b);
process.stdout.write(
  `embedFacturX: input ${pdf.length} B + XML ${Buffer.byteLength(xml)} B → ${size} B; ` +
    `${RUNS} warm runs: median ${percentile(samples, 0.5).toFixed(2)} ms, ` +
    `p99 ${percentile(samples, 0.99).toFixed(2)} ms\n`,
);
