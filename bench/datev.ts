/**
 * `npm run bench:datev`: the DATEV figure of issue 14 — the export of BENCH_BOOKINGS (10,000)
 * bookings: BENCH_BOOKINGS × 0.4 FINAL invoices with a 19 % and a 7 % line each (two
 * bookings per invoice, each with its own stored PDF) and BENCH_BOOKINGS × 0.2 settled
 * payments. One real invoice is made through the API (rendered, ZUGFeRD PDF); the others are
 * copies of its row and its PDF bytes under new ids and numbers (rendering thousands of PDFs
 * would time Chromium, not the export). Then `GET /v1/exports/datev` for the month,
 * over HTTP on loopback, streamed to a temp file: time, ZIP size, CSV size, rows, PDFs and the
 * peak growth of the process's RSS while streaming.
 * Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of DATABASE_URL (a fresh database).
 * Prints wall-clock milliseconds; not a test.
 */
import fs from 'node:fs';
import path from 'node:path';
import { unzipSync } from 'fflate';
import { storeGeneratedFile } from '../src/modules/files/index.js';
import { systemActor } from '../src/shared/audit.js';
import { newId } from '../src/shared/ids.js';
import { billingAddress, inProcessApp, say } from './in-process.js';

const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 10_000);
const INVOICES = Math.round(BOOKINGS * 0.4);
const PAYMENTS = BOOKINGS - 2 * INVOICES;
const MONTH = '2026-10';

const bench = await inProcessApp('datev', { JOB_POLL_INTERVAL_MS: '0' });
try {
  const { app, ctx, user, headers, dataDir, call } = bench;
  const rates = (await call('GET', '/v1/tax-rates?limit=100')).json<{
    data: { id: string; category: string; rate: number }[];
  }>().data;
  const rate = (p: number) => rates.find((r) => r.category === 'S' && r.rate === p)!.id;
  const partner = (
    await call('POST', '/v1/partners', {
      name: 'Müller & Söhne GmbH',
      addresses: [billingAddress()],
    })
  ).json<{ id: string }>();
  const model = (
    await call('POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung',
      creationDate: `${MONTH}-01`,
      deliveryDate: `${MONTH}-01`,
      status: 'FINAL',
      partnerId: partner.id,
      lineItems: [
        { description: 'Beratung', quantity: 3, unitPrice: 120, taxRateId: rate(19) },
        { description: 'Fachbuch', quantity: 1, unitPrice: 39.9, taxRateId: rate(7) },
      ],
    })
  ).json<{ id: string; fileId: string }>();
  const row = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', model.id)
    .executeTakeFirstOrThrow();
  const fileRow = await ctx.db
    .selectFrom('files')
    .selectAll()
    .where('id', '=', model.fileId)
    .executeTakeFirstOrThrow();
  const chunks: Buffer[] = [];
  for await (const chunk of await ctx.storage.open(fileRow.key)) chunks.push(chunk as Buffer);
  const pdf = Buffer.concat(chunks);

  let started = performance.now();
  const actor = systemActor(user.accountId);
  const ids: string[] = [model.id];
  for (let i = 1; i < INVOICES; i++) {
    const file = await storeGeneratedFile(ctx, actor, {
      fileName: `B-${i}.pdf`,
      contentType: 'application/pdf',
      bytes: pdf,
      enforceLimit: false,
    });
    const id = newId('document');
    ids.push(id);
    await ctx.db
      .insertInto('documents')
      .values({
        ...row,
        id,
        document_number: `B-2026-${String(i).padStart(5, '0')}`,
        creation_date: `${MONTH}-${String(1 + (i % 28)).padStart(2, '0')}`,
        file_id: file.id,
      })
      .execute();
  }
  for (let i = 0; i < PAYMENTS; i++)
    await call('POST', '/v1/payments', {
      direction: 'INCOMING',
      amount: Number(row.gross_total) / 100,
      currency: 'EUR',
      paymentDate: `${MONTH}-${String(1 + (i % 28)).padStart(2, '0')}`,
      status: 'MARKED',
      documentId: ids[i % ids.length],
    });
  await call('PUT', '/v1/exports/datev/settings', { consultantNumber: 29098, clientNumber: 55003 });
  say(
    `seeded ${INVOICES} invoices (PDF ${(pdf.length / 1024).toFixed(1)} KiB each) and ${PAYMENTS} payments in ${Math.round(performance.now() - started)} ms`,
  );

  // Over real HTTP on loopback, read as a stream and written to a temp file, so the
  // server's memory shows what streaming holds (inject would buffer the whole answer).
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const rssBefore = process.memoryUsage().rss;
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 20);
  started = performance.now();
  const res = await fetch(`${address}/v1/exports/datev?from=${MONTH}-01&to=${MONTH}-31`, {
    headers,
  });
  if (res.status !== 200 || !res.body) throw new Error(`export: ${res.status}`);
  const zipPath = path.join(dataDir, 'export.zip');
  const out = fs.createWriteStream(zipPath);
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
    if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
  await new Promise<void>((r) => out.end(() => r()));
  const ms = performance.now() - started;
  clearInterval(sampler);
  const zipBytes = fs.statSync(zipPath).size;
  const files = unzipSync(new Uint8Array(fs.readFileSync(zipPath)));
  const csv = files['EXTF_Buchungsstapel.csv']!;
  const lines = Buffer.from(csv).toString('latin1').split('\r\n').length - 3;
  const pdfs = Object.keys(files).filter((f) => f.endsWith('.pdf')).length;
  say(
    `DATEV export of ${lines} bookings (${pdfs} PDFs): ${Math.round(ms)} ms, ZIP ${(zipBytes / 1024 / 1024).toFixed(1)} MiB, ` +
      `CSV ${(csv.length / 1024 / 1024).toFixed(2)} MiB, peak RSS +${Math.round((rssPeak - rssBefore) / 1024 / 1024)} MiB while streaming ` +
      `(${ctx.config.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'}, HTTP on loopback)`,
  );
  if (lines !== BOOKINGS) throw new Error(`expected ${BOOKINGS} bookings, got ${lines}`);
} finally {
  await bench.close();
}
