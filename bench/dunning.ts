/**
 * `npm run bench:dunning`: the dunning figure of issue 14 — a dunning run over BENCH_INVOICES
 * (10,000) overdue FINAL invoices of EUR 119.00, due 30–60 days ago, of one partner with a
 * BILLING e-mail; 3 % of them paid in full by a MARKED payment (skipped). One DRAFT invoice is
 * made through the API (it stays a DRAFT); the invoices are copies of its row, made FINAL,
 * inserted directly (as bench/datev.ts does). Then `POST /v1/dunning/runs`: a dry run (letters
 * proposed), the run (letters made: FINAL DUNNING documents, notices, queued send jobs) and the
 * run repeated the same day (duplicates: 0 expected). Background jobs do not run (JOB_POLL_INTERVAL_MS 0): the
 * letters' PDFs and mails are not part of the figure.
 * Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of DATABASE_URL (a fresh database).
 * In-process (`inject`): it times the run, not HTTP. Prints wall-clock milliseconds; not a test.
 */
import { sql } from 'kysely';
import { addDays } from '../src/shared/dates.js';
import { newId } from '../src/shared/ids.js';
import { billingAddress, inProcessApp, say } from './in-process.js';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 10_000);
/** Paid in full by a MARKED payment: not dunned. */
const PAID = Math.max(1, Math.round(INVOICES * 0.03));
/** Rows per INSERT (within SQLite's and PostgreSQL's bound-parameter limits). */
const CHUNK = 200;

const bench = await inProcessApp('dunning', {
  REMINDER_INTERVAL_MS: '0',
  JOB_POLL_INTERVAL_MS: '0',
});
try {
  const { ctx, user, callJson: call, database: db } = bench;
  const rates = (await call('GET', '/v1/tax-rates?limit=100')).data as {
    id: string;
    category: string;
    rate: number;
  }[];
  const rate19 = rates.find((r) => r.category === 'S' && r.rate === 19)!.id;
  const partner = await call('POST', '/v1/partners', {
    name: 'Müller & Söhne GmbH',
    addresses: [billingAddress('buchhaltung@mueller-soehne.example')],
  });
  const today = new Date().toISOString().slice(0, 10);
  const model = await call('POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    creationDate: addDays(today, -44),
    dueDate: addDays(today, -30),
    status: 'DRAFT',
    partnerId: partner.id,
    lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100, taxRateId: rate19 }],
  });
  const row = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', String(model.id))
    .executeTakeFirstOrThrow();
  if (Number(row.gross_total) !== 11900)
    throw new Error(`model invoice: gross ${row.gross_total}, expected 11900`);

  let started = performance.now();
  const now = new Date().toISOString();
  const ids: string[] = [];
  const number = (i: number) => `RE-B-${String(i + 1).padStart(6, '0')}`;
  await ctx.db.transaction().execute(async (trx) => {
    for (let from = 0; from < INVOICES; from += CHUNK) {
      const values = [];
      for (let i = from; i < Math.min(INVOICES, from + CHUNK); i++) {
        const id = newId('document');
        ids.push(id);
        const due = addDays(today, -(30 + (i % 31)));
        values.push({
          ...row,
          id,
          status: 'FINAL',
          document_number: number(i),
          creation_date: addDays(due, -14),
          due_date: due,
          finalized_at: now,
          version: 2,
          created_at: now,
          updated_at: now,
        });
      }
      await trx.insertInto('documents').values(values).execute();
    }
    // Every 1/PAID-th invoice is paid in full: a few hundred spread over the id order.
    const step = INVOICES / PAID;
    const paid = Array.from({ length: PAID }, (_, k) => Math.floor(k * step));
    for (let from = 0; from < paid.length; from += CHUNK)
      await trx
        .insertInto('payments')
        .values(
          paid.slice(from, from + CHUNK).map((i, k) => ({
            id: newId('payment'),
            account_id: user.accountId,
            direction: 'INCOMING',
            document_id: ids[i]!,
            document_number: number(i),
            contract_id: null,
            contract_name: null,
            partner_id: row.partner_id,
            partner_name: row.partner_name,
            amount: 11900,
            currency: 'EUR',
            payment_date: addDays(today, -(1 + ((from + k) % 20))),
            status: 'MARKED',
            payment_method: null,
            provider_payment_intent_id: null,
            failure_reason: null,
            marked_at: now,
            source: 'MANUAL',
            import_id: null,
            version: 1,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
  });
  // A database that has been in use knows its tables' statistics; freshly bulk-loaded ones have
  // none until autovacuum comes by, and PostgreSQL would plan the run's reads blind.
  if (db === 'PostgreSQL') await sql`analyze`.execute(ctx.db);
  const expected = INVOICES - PAID;
  say(
    `seeded ${INVOICES} FINAL invoices (EUR 119.00, due 30–60 days ago) and ${PAID} MARKED payments settling them in ${Math.round(performance.now() - started)} ms (${db})`,
  );

  const letters = (r: Record<string, unknown>) => (r.letters as unknown[]).length;
  const problems = (r: Record<string, unknown>) =>
    r.problems as { invoiceId: string; code: string; detail: string }[];

  started = performance.now();
  const dry = await call('POST', '/v1/dunning/runs', { dryRun: true });
  say(
    `dunning dry run: ${INVOICES} invoices → ${letters(dry)} letters proposed in ${Math.round(performance.now() - started)} ms`,
  );

  started = performance.now();
  const run = await call('POST', '/v1/dunning/runs', {});
  let ms = performance.now() - started;
  const made = letters(run);
  say(
    `dunning run: ${INVOICES} invoices → ${made} letters made in ${Math.round(ms)} ms (${(ms / Math.max(1, made)).toFixed(2)} ms per letter), ${problems(run).length} problems`,
  );
  for (const p of problems(run).slice(0, 5)) say(`  problem ${p.invoiceId}: ${p.code} ${p.detail}`);

  started = performance.now();
  const again = await call('POST', '/v1/dunning/runs', {});
  ms = performance.now() - started;
  const duplicates = letters(again);
  say(
    `dunning run repeated the same day: ${duplicates} letters in ${Math.round(ms)} ms, ${problems(again).length} problems; duplicates: ${duplicates}`,
  );

  const { rows } = await sql<{ notices: number; letters: number; dunned: number; jobs: number }>`
    select (select count(*) from dunning_notices) as notices,
           (select count(*) from documents where document_type = 'DUNNING') as letters,
           (select count(*) from documents
             where document_type = 'INVOICE' and dunning_level = 1) as dunned,
           (select count(*) from jobs where kind = 'dunning.letter.send') as jobs`.execute(ctx.db);
  const counts = rows[0]!;
  const jobs = db === 'SQLite' ? `, send jobs queued: ${counts.jobs}` : '';
  say(
    `dunning_notices: ${counts.notices}, DUNNING documents: ${counts.letters}, invoices at level 1: ${counts.dunned}${jobs} (letters made: ${made}, expected ${expected})`,
  );
  const wrong = [
    letters(dry) !== expected && `dry run proposed ${letters(dry)}, expected ${expected}`,
    made !== letters(dry) && `run made ${made}, dry run proposed ${letters(dry)}`,
    Number(counts.notices) !== made && `${counts.notices} notices for ${made} letters`,
    Number(counts.letters) !== made && `${counts.letters} DUNNING documents for ${made} letters`,
    duplicates !== 0 && `the repeated run made ${duplicates} letters`,
  ].filter(Boolean);
  if (wrong.length > 0) throw new Error(wrong.join('; '));
} finally {
  await bench.close();
}
