/**
 * `npm run bench:datev`: the DATEV figure of issue 14 — the export of BENCH_BOOKINGS (10,000)
 * bookings: BENCH_BOOKINGS × 0.4 FINAL invoices with a 19 % and a 7 % line each (two
 * bookings per invoice, each with its own stored PDF) and BENCH_BOOKINGS × 0.2 settled
 * payments. One real invoice is made through the API (rendered, ZUGFeRD PDF); the others are
 * copies of its row and its PDF bytes under new ids and numbers (rendering thousands of PDFs
 * would time Chromium, not the export). Then `GET /v1/exports/datev` for the month,
 * over HTTP on loopback, streamed to a temp file: time, ZIP size, CSV size, rows, PDFs and the
 * peak growth of the process's RSS, JS heap and buffers while streaming. BENCH_ROUNDS (1) repeats the
 * export in the same process; BENCH_CPU_PROFILE=file.cpuprofile writes the CPU profile of the
 * last round's export (`node bench/profile-summary.mjs file.cpuprofile`).
 * Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of DATABASE_URL (a fresh database);
 * on PostgreSQL the tables are ANALYZEd after seeding, as autovacuum would (BENCH_ANALYZE=0
 * leaves them as loaded).
 * Prints wall-clock milliseconds; not a test.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import path from 'node:path';
import { writeLentChunks } from '../src/http/lent-chunks.js';
import { DatevExportService } from '../src/modules/exports/datev-export.service.js';
import { storeGeneratedFile } from '../src/modules/files/index.js';
import { systemActor } from '../src/shared/audit.js';
import { newId } from '../src/shared/ids.js';
import { billingAddress, inProcessApp, say, startCpuProfile } from './in-process.js';

const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 10_000);
const INVOICES = Math.round(BOOKINGS * 0.4);
const PAYMENTS = BOOKINGS - 2 * INVOICES;
const MONTH = '2026-10';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
/** A path: the CPU profile of the last round's export alone (not the seeding or the check). */
const PROFILE = process.env.BENCH_CPU_PROFILE;
/**
 * BENCH_READ_AHEAD="4:8,12:16": after the rounds through the route, each round also exports
 * once per variant (files in flight : MiB held, in turn, on one seeded database), served by
 * the export service made with those bounds on a plain HTTP server of this process. The
 * first export of a process grows its RSS the most: compare variants as first exports.
 */
const VARIANTS = (process.env.BENCH_READ_AHEAD ?? '')
  .split(',')
  .filter(Boolean)
  .map((v) => {
    const [files, mib] = v.split(':').map(Number);
    return { name: v, readAhead: files!, readAheadBytes: mib! * 1024 * 1024 };
  });

/**
 * The client (a child process): streams the answer to OUT, then answers when the request
 * started and the last byte was written (epoch ms, so both processes' clocks agree), the
 * ZIP's size and what it holds.
 */
const CLIENT = `
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { unzipSync } from 'fflate';
const startedAt = performance.timeOrigin + performance.now();
const res = await fetch(process.env.URL, { headers: JSON.parse(process.env.HEADERS) });
if (res.status !== 200 || !res.body) throw new Error('export: ' + res.status);
await pipeline(Readable.fromWeb(res.body), fs.createWriteStream(process.env.OUT));
const doneAt = performance.timeOrigin + performance.now();
const files = unzipSync(new Uint8Array(fs.readFileSync(process.env.OUT)));
const csv = files['EXTF_Buchungsstapel.csv'];
process.stdout.write(JSON.stringify({
  startedAt,
  doneAt,
  zipBytes: fs.statSync(process.env.OUT).size,
  csvBytes: csv.length,
  lines: Buffer.from(csv).toString('latin1').split('\\r\\n').length - 3,
  pdfs: Object.keys(files).filter((f) => f.endsWith('.pdf')).length,
}));
`;

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

  const started = performance.now();
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
  // The statistics autovacuum gathers after a bulk load like this one: without them (a
  // PostgreSQL with autovacuum off, or the export minutes after the load) the planner takes
  // the fresh tables for empty and joins payments to documents in a nested loop over every
  // invoice of the account, seconds per page of payments.
  if (ctx.config.database.kind === 'postgres' && process.env.BENCH_ANALYZE !== '0')
    await sql`ANALYZE documents, payments, files`.execute(ctx.db);
  say(
    `seeded ${INVOICES} invoices (PDF ${(pdf.length / 1024).toFixed(1)} KiB each) and ${PAYMENTS} payments in ${Math.round(performance.now() - started)} ms`,
  );

  // Over real HTTP on loopback, read as a stream by another process and written to a temp
  // file there: the RSS and CPU measured here are the server's alone (inject would buffer the
  // whole answer; a client in this process would add its own buffers and garbage).
  // BENCH_ROUNDS exports the same month again (the first round is the figure of a cold start).
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const zipPath = path.join(dataDir, 'export.zip');
  const download = (url: string) =>
    new Promise<{
      startedAt: number;
      doneAt: number;
      zipBytes: number;
      csvBytes: number;
      lines: number;
      pdfs: number;
    }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT], {
        env: { ...process.env, URL: url, HEADERS: JSON.stringify(headers), OUT: zipPath },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve(JSON.parse(stdout) as never)
          : reject(new Error(`download: exit ${code}`)),
      );
    });
  // The variants' server: the route's answer (same headers) without the app's hooks.
  let variant = VARIANTS[0];
  const plain = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const service = new DatevExportService(ctx, variant);
    service
      .export(user.accountId, {
        from: url.searchParams.get('from')!,
        to: url.searchParams.get('to')!,
      })
      .then((pkg) => {
        res.writeHead(200, { 'content-type': 'application/zip', 'cache-control': 'no-store' });
        return writeLentChunks(res, pkg.chunks, pkg.returned, {
          error: (details) => say(`variant export failed: ${JSON.stringify(details)}`),
          info: () => undefined,
        });
      })
      .catch((err: unknown) => {
        say(`variant export failed: ${String(err)}`);
        res.destroy();
      });
  });
  await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', resolve));
  const plainAddress = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
  const runs = [
    // BENCH_ROUTE=0: the variants alone, the first of them the process's first export.
    ...(process.env.BENCH_ROUTE === '0' ? [] : [{ label: 'route', base: address }]),
    ...VARIANTS.map((v) => ({ label: `read-ahead ${v.name}`, base: plainAddress, v })),
  ];
  for (let round = 1; round <= ROUNDS; round++)
    for (const run of runs) {
      if ('v' in run) variant = run.v;
      const before = process.memoryUsage();
      // Peaks while streaming: RSS, the JS heap in use, and the memory of ArrayBuffers and
      // Buffers (outside the heap: the PDFs as read, until they are freed).
      const peak = { rss: before.rss, heap: before.heapUsed, buffers: before.arrayBuffers };
      const sampler = setInterval(() => {
        const m = process.memoryUsage();
        peak.rss = Math.max(peak.rss, m.rss);
        peak.heap = Math.max(peak.heap, m.heapUsed);
        peak.buffers = Math.max(peak.buffers, m.arrayBuffers);
      }, 20);
      const stopProfile =
        PROFILE && round === ROUNDS && run === runs[0] ? await startCpuProfile() : undefined;
      const cpuBefore = process.cpuUsage();
      const got = await download(`${run.base}/v1/exports/datev?from=${MONTH}-01&to=${MONTH}-31`);
      const ms = got.doneAt - got.startedAt;
      const cpu = process.cpuUsage(cpuBefore);
      clearInterval(sampler);
      await stopProfile?.(PROFILE!);
      const { zipBytes, csvBytes, lines, pdfs } = got;
      const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
      say(
        `${ROUNDS > 1 ? `round ${round}: ` : ''}${runs.length > 1 ? `${run.label}: ` : ''}DATEV export of ${lines} bookings (${pdfs} PDFs): ${Math.round(ms)} ms (CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms), ZIP ${(zipBytes / 1024 / 1024).toFixed(1)} MiB, ` +
          `CSV ${(csvBytes / 1024 / 1024).toFixed(2)} MiB, peak RSS +${mib(peak.rss - before.rss)} MiB, ` +
          `peak heap +${mib(peak.heap - before.heapUsed)} MiB, ` +
          `peak buffers +${mib(peak.buffers - before.arrayBuffers)} MiB while streaming ` +
          `(${ctx.config.database.kind === 'postgres' ? 'PostgreSQL' : 'SQLite'}, HTTP on loopback)`,
      );
      if (lines !== BOOKINGS) throw new Error(`expected ${BOOKINGS} bookings, got ${lines}`);
    }
  plain.close();
} finally {
  await bench.close();
}
