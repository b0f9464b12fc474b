/**
 * `npm run bench:recurring`: the recurring-invoice figure of issue 14 — a month of
 * BENCH_CONTRACTS (1,000) contracts with monthly billing plans billed by one run
 * (`POST /v1/contracts/billing-runs`), then the run forced again: time, invoices made,
 * duplicates (0 expected). BENCH_FINAL=1 makes the plans `autoFinalize` (numbered FINAL
 * invoices with their PDFs rendered). Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of
 * DATABASE_URL (a fresh database). In-process (`inject`): it times the run, not HTTP.
 * Prints wall-clock milliseconds; not a test.
 */
import { sql } from 'kysely';
import { billingAddress, inProcessApp, say } from './in-process.js';

const CONTRACTS = Number(process.env.BENCH_CONTRACTS ?? 1000);
const FINAL = process.env.BENCH_FINAL === '1';

const bench = await inProcessApp('recurring', { REMINDER_INTERVAL_MS: '0' });
try {
  const { app, callJson: call } = bench;
  const partner = await call('POST', '/v1/partners', {
    name: 'Kunde GmbH',
    type: 'CUSTOMER',
    addresses: [billingAddress()],
  });
  const today = new Date().toISOString().slice(0, 10);
  const first = `${today.slice(0, 7)}-01`;
  let started = performance.now();
  for (let i = 0; i < CONTRACTS; i++)
    await call('POST', '/v1/contracts', {
      name: `Wartungsvertrag ${i}`,
      partnerId: partner.id,
      partnerName: 'x',
      startDate: first,
      totalValue: 1200,
      currency: 'EUR',
      status: 'ACTIVE',
      billing: {
        interval: 'MONTHLY',
        nextInvoiceDate: first,
        autoFinalize: FINAL,
        lineItems: [
          { description: 'Wartung', quantity: 1, unitPrice: 80 + (i % 40) },
          { description: 'Anfahrt', quantity: 2, unitPrice: 15 },
        ],
      },
    });
  say(
    `${CONTRACTS} contracts with monthly plans made in ${Math.round(performance.now() - started)} ms`,
  );

  started = performance.now();
  const run = await call('POST', '/v1/contracts/billing-runs', {});
  const ms = performance.now() - started;
  const invoices = (run.invoices as unknown[]).length;
  say(
    `billing run (${app.ctx.config.database.kind}, ${FINAL ? 'FINAL with PDFs' : 'DRAFT'}): ${invoices} invoices in ${Math.round(ms)} ms (${(ms / Math.max(1, invoices)).toFixed(1)} ms per invoice), ${(run.problems as unknown[]).length} problems`,
  );
  if (FINAL) {
    // The render job makes the PDFs after the run (the worker may have begun during it).
    started = performance.now();
    let files = 0;
    while (files < invoices && performance.now() - started < 30 * 60_000) {
      await app.ctx.jobs.drain();
      const { rows } = await sql<{ n: number }>`
        select count(*) as n from documents
        where contract_id is not null and file_id is not null`.execute(app.ctx.db);
      files = Number(rows[0]!.n);
      if (files < invoices) await new Promise((r) => setTimeout(r, 200));
    }
    say(
      `all PDFs (ZUGFeRD) stored ${Math.round(performance.now() - started)} ms after the run: ${files} files`,
    );
  }
  started = performance.now();
  const again = await call('POST', '/v1/contracts/billing-runs', {});
  say(
    `forced re-run: ${(again.invoices as unknown[]).length} invoices in ${Math.round(performance.now() - started)} ms`,
  );
  const { rows } = await sql<{ documents: number; periods: number }>`
    select (select count(*) from documents where contract_id is not null) as documents,
           (select count(*) from contract_invoices) as periods`.execute(app.ctx.db);
  const counts = rows[0]!;
  say(
    `documents linked to contracts: ${counts.documents}, billed periods: ${counts.periods}, duplicates: ${Number(counts.documents) - CONTRACTS}`,
  );
} finally {
  await bench.close();
}
