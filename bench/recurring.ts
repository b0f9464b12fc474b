/**
 * `npm run bench:recurring`: the recurring-invoice figure of issue 14 — a month of
 * BENCH_CONTRACTS (1,000) contracts with monthly billing plans billed by one run
 * (`POST /v1/contracts/billing-runs`), then the run forced again: time, invoices made,
 * duplicates (0 expected). BENCH_FINAL=1 makes the plans `autoFinalize` (numbered FINAL
 * invoices with their PDFs rendered). Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of
 * DATABASE_URL (a fresh database). In-process (`inject`): it times the run, not HTTP.
 * Prints wall-clock milliseconds; not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { seedUser } from '../test/helpers.js';

const CONTRACTS = Number(process.env.BENCH_CONTRACTS ?? 1000);
const FINAL = process.env.BENCH_FINAL === '1';
const say = (line: string) => process.stdout.write(`${line}\n`);
const API_KEY = 'bench-recurring-key-0123456789';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-recurring-'));
const app = await buildApp(
  loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMITS: 'off',
    API_KEYS: API_KEY,
    REMINDER_INTERVAL_MS: '0',
  }),
);
try {
  const user = await seedUser(app.ctx.db);
  const headers = { authorization: `Bearer ${user.token}`, 'x-api-key': API_KEY };
  const call = async (method: 'POST' | 'GET', url: string, payload?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers,
      ...(payload ? { payload: payload } : {}),
    });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json<Record<string, unknown>>();
  };
  const partner = await call('POST', '/v1/partners', {
    name: 'Kunde GmbH',
    type: 'CUSTOMER',
    addresses: [
      {
        type: 'BILLING',
        street: 'Rathausmarkt 1',
        postalCode: '20095',
        city: 'Hamburg',
        country: 'DE',
      },
    ],
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
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
