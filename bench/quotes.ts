/**
 * `npm run bench:quotes`: converting a FINAL quote of BENCH_QUOTE_LINES (100) lines into a
 * DRAFT invoice with `POST /v1/documents/{id}/convert`, BENCH_CONVERSIONS (50) times: median
 * and p99 ms. One quote is made FINAL through the API first (its PDF rendered once; not part
 * of the figure); each conversion reads the quote, prices the lines anew, checks the invoice
 * layout against the draft's data, inserts it with its audit event and answers it.
 * Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of DATABASE_URL (a fresh database).
 * In-process (`inject`): it times the conversion, not HTTP. Prints wall-clock ms; not a test.
 */
import { billingAddress, inProcessApp, say } from './in-process.js';

const LINES = Number(process.env.BENCH_QUOTE_LINES ?? 100);
const CONVERSIONS = Number(process.env.BENCH_CONVERSIONS ?? 50);

/** The value below which `p` of the sorted samples fall (nearest rank). */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

const bench = await inProcessApp('quotes', {
  REMINDER_INTERVAL_MS: '0',
  JOB_POLL_INTERVAL_MS: '0',
});
try {
  const { callJson: call, database } = bench;
  const partner = await call('POST', '/v1/partners', {
    name: 'Müller & Söhne GmbH',
    addresses: [billingAddress('einkauf@mueller-soehne.example')],
  });
  const today = new Date().toISOString().slice(0, 10);
  const quote = await call('POST', '/v1/documents', {
    documentType: 'QUOTE',
    name: 'Angebot',
    creationDate: today,
    status: 'FINAL',
    partnerId: partner.id,
    lineItems: Array.from({ length: LINES }, (_, i) => ({
      description: `Position ${i + 1}`,
      quantity: 1 + (i % 5),
      unitPrice: 10 + i,
    })),
  });
  const times: number[] = [];
  for (let i = 0; i < CONVERSIONS; i++) {
    const started = performance.now();
    const invoice = await call('POST', `/v1/documents/${String(quote.id)}/convert`, {
      documentType: 'INVOICE',
    });
    times.push(performance.now() - started);
    if ((invoice.lineItems as unknown[]).length !== LINES)
      throw new Error(`converted invoice has ${(invoice.lineItems as unknown[]).length} lines`);
  }
  times.sort((a, b) => a - b);
  say(
    `quotes (${database}): convert a quote of ${LINES} lines into an invoice, ${CONVERSIONS}×: ` +
      `median ${percentile(times, 0.5).toFixed(1)} ms, p99 ${percentile(times, 0.99).toFixed(1)} ms`,
  );
} finally {
  await bench.close();
}
