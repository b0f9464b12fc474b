/**
 * `npm run bench:lists`: the lists the web app lives on, at one account's size — by default
 * 20,000 partners and 100,000 invoices over the last 14 months. Seeds the account through the
 * API (the built app from dist/, driven in-process with `inject`: every row and its audit event
 * as the API writes them), then starts `node dist/server.js` on that data (SQLite in a temp
 * DATA_DIR, and/or a fresh PostgreSQL database with Redis), pinned to one core, and measures
 * each list with `wrk` (1 thread, 10 connections) on the other core: req/s, p50 and p99.
 * `--explain` prints each list's statements with their plans (EXPLAIN QUERY PLAN on SQLite,
 * EXPLAIN ANALYZE on PostgreSQL) before the server starts. `--keep` keeps the seeded data and
 * prints a `--reuse` line, so a later run (after a rebuild: migrations run on start) measures
 * the same data without seeding again. See docs/benchmarks.md, "The lists at 100,000 invoices".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CompiledQuery, sql, type Kysely } from 'kysely';
import {
  caller,
  freePort,
  loadDist,
  pgArgs,
  registerAccount,
  runWrk,
  say,
  serverProbe,
  sh,
  sleep,
  stopChild,
  type Call,
  type KontorApp,
  type WrkResult as Result,
} from './common.js';
import { parallel } from './seed-resources.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');

const { values: opt } = parseArgs({
  options: {
    invoices: { type: 'string', default: '100000' },
    partners: { type: 'string', default: '20000' },
    targets: { type: 'string', default: 'sqlite,pg' },
    lists: { type: 'string' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '10' },
    parallel: { type: 'string', default: '16' },
    explain: { type: 'boolean', default: false },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'server-cpu': { type: 'string', default: '1' },
    'load-cpu': { type: 'string', default: '0' },
    keep: { type: 'boolean', default: false },
    reuse: { type: 'string' },
    'node-args': { type: 'string', default: '' },
    probe: { type: 'string' },
  },
});

const INVOICES = Number(opt.invoices);
const PARTNERS = Number(opt.partners);
const TARGETS = opt.targets.split(',');
const SECONDS = Number(opt.seconds);
const WARMUP = Number(opt.warmup);
const CONNECTIONS = Number(opt.connections);
const PARALLEL = Number(opt.parallel);
for (const t of TARGETS)
  if (t !== 'sqlite' && t !== 'pg') throw new Error(`unknown target ${t} (sqlite, pg)`);
if (!(Number.isInteger(INVOICES) && INVOICES >= 10 && Number.isInteger(PARTNERS) && PARTNERS >= 1))
  throw new Error('--invoices ≥ 10 and --partners ≥ 1');

/** The lists as the web app asks for them: invoice tabs, a partner's invoices, the cockpit. */
const LISTS: Record<string, { path: string; byPartner?: boolean }> = {
  all: { path: '/v1/documents?documentType=INVOICE&limit=50' },
  open: { path: '/v1/documents?documentType=INVOICE&limit=50&open=true' },
  overdue: { path: '/v1/documents?documentType=INVOICE&limit=50&overdue=true' },
  paid: {
    path: '/v1/documents?documentType=INVOICE&limit=50&paymentStatus=PAID&cancelled=false',
  },
  unpaid: {
    path: '/v1/documents?documentType=INVOICE&limit=50&paymentStatus=UNPAID&paymentStatus=PARTIAL',
  },
  partner: { path: '/v1/documents?documentType=INVOICE&limit=25&partnerId=', byPartner: true },
  stats: { path: '/v1/dashboard/stats' },
  timeseries: { path: '/v1/dashboard/timeseries?interval=month' },
};
const LIST_NAMES = (opt.lists ?? Object.keys(LISTS).join(',')).split(',');
for (const l of LIST_NAMES) if (!LISTS[l]) throw new Error(`unknown list ${l}`);

// ---------------------------------------------------------------------------------------------
// Processes

const children: ChildProcess[] = [];

// ---------------------------------------------------------------------------------------------
// The account's data

/** Deterministic pseudo-random fraction for invoice `i` and a salt. */
function frac(i: number, salt: number): number {
  const h = crypto.createHash('sha1').update(`${i}:${salt}`).digest();
  return h.readUInt32BE(0) / 0x1_0000_0000;
}

const isoDay = (d: Date) => d.toISOString().slice(0, 10);
function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return isoDay(d);
}

const TODAY = isoDay(new Date());
/** 14 months back. */
const SPAN_DAYS = 425;
const NAMES = ['Müller', 'Schäfer', 'Weiß', 'Becker', 'Hoffmann', 'Köhler', 'Zimmermann', 'Braun'];
const FORMS = ['GmbH', 'AG', 'KG', 'e.K.', 'GmbH & Co. KG'];

function partnerBody(i: number) {
  return {
    name: `${NAMES[i % NAMES.length]!} ${i} ${FORMS[i % FORMS.length]!}`,
    type: 'CUSTOMER',
    addresses: [
      {
        type: 'BILLING',
        street: `Hauptstraße ${(i % 200) + 1}`,
        postalCode: String(10_000 + (i % 89_999)),
        city: 'Berlin',
        country: 'DE',
      },
    ],
    tags: [i % 5 === 0 ? 'key-account' : 'customer'],
  };
}

/**
 * What invoice `i` becomes. Dated evenly over the last 14 months (oldest first), due 14 days
 * later. 2 % stay DRAFT; of the FINAL ones 3 % are cancelled (Storno) and 1 % partly credited;
 * an invoice due over 30 days ago is paid in full with 90 % chance, half paid with 4 %, else
 * unpaid (overdue); a younger one is paid with 45 %, half paid with 10 %. Partners are skewed:
 * a fifth of the partners get about half of the invoices.
 */
export function invoicePlan(i: number) {
  const date = addDays(TODAY, -SPAN_DAYS + Math.floor((i * SPAN_DAYS) / INVOICES));
  const due = addDays(date, 14);
  const r = frac(i, 1);
  const kind =
    r < 0.02 ? 'draft' : r < 0.05 ? 'cancelled' : r < 0.06 ? 'credited' : ('final' as const);
  const old = due < addDays(TODAY, -30);
  const p = frac(i, 2);
  const paid = old ? (p < 0.9 ? 1 : p < 0.94 ? 0.5 : 0) : p < 0.45 ? 1 : p < 0.55 ? 0.5 : 0;
  const hot = frac(i, 3) < 0.5;
  const partner = Math.floor(frac(i, 4) * (hot ? Math.max(1, PARTNERS / 5) : PARTNERS));
  const paidOn = addDays(date, 3 + Math.floor(frac(i, 6) * 25));
  return {
    date,
    due,
    kind,
    paid: kind === 'final' || kind === 'credited' ? paid : 0,
    paidOn: paidOn > TODAY ? TODAY : paidOn,
    partner,
  };
}

/** Kontor's environment: production, background jobs off, limits it cannot reach. */
function kontorEnv(dataDir: string, apiKey: string, databaseUrl?: string): Record<string, string> {
  const plansFile = path.join(dataDir, 'plans.json');
  fs.writeFileSync(
    plansFile,
    JSON.stringify([
      {
        id: 'FREE',
        name: 'Bench',
        seats: 100,
        requestsPerMinute: 100_000_000,
        requestsPerMonth: 2_000_000_000,
        storageBytes: 100_000_000_000,
        currency: 'EUR',
        monthlyPrice: 0,
      },
    ]),
  );
  return {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEYS: apiKey,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PLANS_FILE: plansFile,
    RATE_LIMITS: 'off',
    REMINDER_INTERVAL_MS: '0',
    // The FINAL invoices' PDFs are not rendered: the lists never read them.
    JOB_POLL_INTERVAL_MS: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REDIS_URL: opt.redis } : {}),
  };
}

/** A bench account (`registerAccount`) with the seller's data. */
async function makeAccount(app: KontorApp, name: string, env: Record<string, string>) {
  const { token, call } = await registerAccount(app, name, env.API_KEYS!, env.DATA_DIR!);
  const company = await call('GET', '/v1/account/company');
  await call('PUT', '/v1/account/company', {
    version: company.version,
    legalName: 'Bench GmbH',
    address: { street: 'Musterstraße 1', postalCode: '10115', city: 'Berlin', country: 'DE' },
    vatId: 'DE123456788',
    taxNumber: '30/123/45678',
    registerCourt: 'Amtsgericht Charlottenburg',
    registerNumber: 'HRB 12345',
    managingDirectors: ['Erika Mustermann'],
    email: 'rechnung@bench.invalid',
    phone: '+49 30 1234567',
    website: null,
    electronicAddress: { scheme: 'EM', value: 'rechnung@bench.invalid' },
    bankAccounts: [
      {
        iban: 'DE02120300000000202051',
        bic: 'BYLADEM1001',
        accountHolder: 'Bench GmbH',
        bankName: 'Deutsche Kreditbank',
      },
    ],
    smallBusiness: false,
    defaultPaymentTermDays: 14,
  });
  return { token, call };
}

/** A line set; the model invoices have it, and so every copy: EUR 95 × 10 + 42.50, 19 % VAT. */
const LINES = [
  { description: 'Beratung', quantity: 10, unitPrice: 95 },
  { description: 'Reisekosten', quantity: 1, unitPrice: 42.5 },
];

type Row = Record<string, unknown>;

/**
 * The model documents and payments, each made through the API: an unpaid FINAL invoice, one
 * paid in full, one paid in half, one cancelled (with its Storno credit note), one partly
 * credited (with its credit note) and a DRAFT. Answers their stored rows.
 */
async function makeModels(app: KontorApp, call: Call, partnerId: string) {
  const date = addDays(TODAY, -40);
  const invoice = async (status = 'FINAL') =>
    String(
      (
        await call('POST', '/v1/documents', {
          documentType: 'INVOICE',
          name: 'Leistungen',
          partnerId,
          creationDate: date,
          deliveryDate: date,
          dueDate: addDays(date, 14),
          status,
          lineItems: LINES,
        })
      ).id,
    );
  const [unpaid, paid, half, cancelled, credited, draft] = [
    await invoice(),
    await invoice(),
    await invoice(),
    await invoice(),
    await invoice(),
    await invoice('DRAFT'),
  ];
  const pay = (documentId: string, amount: number) =>
    call('POST', '/v1/payments', {
      direction: 'INCOMING',
      documentId,
      amount,
      currency: 'EUR',
      paymentDate: addDays(date, 10),
    });
  const gross = Number((await call('GET', `/v1/documents/${unpaid}`)).grossTotal);
  await pay(paid, gross);
  await pay(half, Math.round(gross * 50) / 100);
  const storno = String((await call('POST', `/v1/documents/${cancelled}/cancel`, {})).id);
  const credit = String(
    (
      await call('POST', `/v1/documents/${credited}/credit-notes`, {
        lineItems: [LINES[1]],
      })
    ).id,
  );
  const creditGross = Number((await call('GET', `/v1/documents/${credit}`)).grossTotal);
  await pay(credited, Math.round((gross - creditGross) * 100) / 100);
  const db = app.ctx.db as unknown as Kysely<Record<string, Row>>;
  const doc = async (id: string) =>
    await db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const payment = async (id: string) =>
    await db
      .selectFrom('payments')
      .selectAll()
      .where('document_id', '=', id)
      .executeTakeFirstOrThrow();
  return {
    unpaid: await doc(unpaid),
    paid: await doc(paid),
    paidPayment: await payment(paid),
    half: await doc(half),
    halfPayment: await payment(half),
    cancelled: await doc(cancelled),
    storno: await doc(storno),
    credited: await doc(credited),
    credit: await doc(credit),
    creditedPayment: await payment(credited),
    draft: await doc(draft),
  };
}

/**
 * Copies of the model rows, one set per invoice of `invoicePlan` (dated, numbered, assigned
 * to a partner, paid or not as it says), inserted a few hundred per statement. The copies
 * carry no audit events of their own.
 */
async function copyModels(
  app: KontorApp,
  models: Awaited<ReturnType<typeof makeModels>>,
  partners: { id: string; name: string }[],
  ulid: (now: number) => string,
): Promise<{ documents: number; payments: number }> {
  const db = app.ctx.db as unknown as Kysely<Record<string, Row>>;
  const docs: Row[] = [];
  const payments: Row[] = [];
  let credits = 0;
  // Documents before the payments that refer to them.
  const flush = async (force = false) => {
    if (!force && docs.length < 200 && payments.length < 200) return;
    if (docs.length > 0) await db.insertInto('documents').values(docs.splice(0)).execute();
    if (payments.length > 0) await db.insertInto('payments').values(payments.splice(0)).execute();
  };
  let documents = 0;
  let paymentCount = 0;
  for (let i = 0; i < INVOICES; i++) {
    const plan = invoicePlan(i);
    const at = new Date(`${plan.date}T09:00:00Z`).getTime() + (i % 1000);
    const stamp = new Date(at).toISOString();
    const partner = partners[plan.partner]!;
    const id = `doc_${ulid(at)}`;
    const model =
      plan.kind === 'draft'
        ? models.draft
        : plan.kind === 'cancelled'
          ? models.cancelled
          : plan.kind === 'credited'
            ? models.credited
            : plan.paid === 1
              ? models.paid
              : plan.paid === 0.5
                ? models.half
                : models.unpaid;
    const final = plan.kind !== 'draft';
    const overdue = final && plan.paid < 1 && plan.kind !== 'cancelled' && plan.due < TODAY;
    const row: Row = {
      ...model,
      id,
      partner_id: partner.id,
      partner_name: partner.name,
      document_number: final ? `RE-B-${String(i + 1).padStart(6, '0')}` : null,
      creation_date: plan.date,
      delivery_date: plan.date,
      due_date: plan.due,
      finalized_at: final ? stamp : null,
      paid_at: plan.paid === 1 && plan.kind === 'final' ? `${plan.paidOn}T12:00:00.000Z` : null,
      overdue_at: overdue ? addDays(plan.due, 1) : null,
      created_at: stamp,
      updated_at: stamp,
    };
    if (plan.kind === 'credited' && plan.paid < 1) row.paid_at = null;
    if (plan.kind === 'cancelled' || plan.kind === 'credited') {
      const note = plan.kind === 'cancelled' ? models.storno : models.credit;
      const noteId = `doc_${ulid(at + 1)}`;
      credits++;
      docs.push({
        ...note,
        id: noteId,
        partner_id: partner.id,
        partner_name: partner.name,
        document_number: `GS-B-${String(credits).padStart(6, '0')}`,
        creation_date: plan.paidOn,
        preceding_document_id: id,
        finalized_at: stamp,
        created_at: stamp,
        updated_at: stamp,
      });
      if (plan.kind === 'cancelled') row.cancelled_by_document_id = noteId;
    }
    docs.push(row);
    documents++;
    const paymentModel =
      plan.kind === 'credited'
        ? plan.paid === 1
          ? models.creditedPayment
          : plan.paid === 0.5
            ? models.halfPayment
            : undefined
        : plan.kind === 'final'
          ? plan.paid === 1
            ? models.paidPayment
            : plan.paid === 0.5
              ? models.halfPayment
              : undefined
          : undefined;
    if (paymentModel) {
      payments.push({
        ...paymentModel,
        id: `pay_${ulid(at + 2)}`,
        document_id: id,
        document_number: row.document_number,
        partner_id: partner.id,
        partner_name: partner.name,
        payment_date: plan.paidOn,
        marked_at: `${plan.paidOn}T12:00:00.000Z`,
        created_at: stamp,
        updated_at: stamp,
      });
      paymentCount++;
    }
    await flush();
  }
  await flush(true);
  return { documents: documents + credits, payments: paymentCount };
}

interface Seeded {
  name: string;
  dataDir: string;
  databaseUrl?: string;
  apiKey: string;
  token: string;
  partnerIds: string[];
  invoices: number;
}

async function seed(name: string, runDir: string, databaseUrl?: string): Promise<Seeded> {
  const dataDir = path.join(runDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const apiKey = `bench-key-${crypto.randomBytes(12).toString('hex')}`;
  const env = kontorEnv(dataDir, apiKey, databaseUrl);
  const dist = await loadDist(ROOT);
  const app = await dist.buildApp(dist.loadConfig({ ...env, PORT: '0' }), {
    logStream: fs.createWriteStream('/dev/null'),
  });
  try {
    const { token, call } = await makeAccount(app, name, env);
    const partnerIds = new Array<string>(PARTNERS);
    const seconds = await parallel(
      PARTNERS,
      `${name} partners`,
      say,
      async (i) => {
        partnerIds[i] = String((await call('POST', '/v1/partners', partnerBody(i))).id);
      },
      PARALLEL,
    );
    say(
      `   ${name}: ${PARTNERS} partners through POST /v1/partners in ${seconds.toFixed(0)} s (${Math.round(PARTNERS / seconds)}/s)`,
    );
    const partners = partnerIds.map((id, i) => ({ id, name: partnerBody(i).name }));
    let started = Date.now();
    const models = await makeModels(app, call, partnerIds[0]!);
    say(
      `   ${name}: model invoices, payments and credit notes through the API in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    started = Date.now();
    const { ulid } = (await import(path.join(ROOT, 'dist', 'shared', 'ids.js'))) as {
      ulid: (now: number) => string;
    };
    const copied = await copyModels(app, models, partners, ulid);
    // What autovacuum does on a production server after a load like this one (this bench's
    // PostgreSQL may run without it): statistics, and the visibility map index-only scans need.
    if (databaseUrl) await sql`vacuum analyze`.execute(app.ctx.db);
    say(
      `   ${name}: ${INVOICES} invoices as copies of the models (${copied.documents} documents with credit notes, ${copied.payments} payments) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    started = Date.now();
    const report = await dist.verifyAuditChain(app.ctx.db);
    say(
      `   ${name}: audit chain ${JSON.stringify(report)} (verified in ${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
    return { name, dataDir, databaseUrl, apiKey, token, partnerIds, invoices: INVOICES };
  } finally {
    await app.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Plans

/**
 * Runs each list once in-process and records the statements it sends (the executor's
 * `executeQuery`), then prints each statement that reads documents or payments with its plan:
 * EXPLAIN QUERY PLAN and the median of 20 runs on SQLite, EXPLAIN (ANALYZE, BUFFERS) on
 * PostgreSQL.
 */
async function explain(s: Seeded, lists: string[]): Promise<void> {
  const dist = await loadDist(ROOT);
  const env = kontorEnv(s.dataDir, s.apiKey, s.databaseUrl);
  const app = await dist.buildApp(dist.loadConfig({ ...env, PORT: '0' }), {
    logStream: fs.createWriteStream('/dev/null'),
  });
  const pg = s.databaseUrl !== undefined;
  try {
    const db = app.ctx.db;
    const executor = db.getExecutor() as object;
    const proto = Object.getPrototypeOf(executor) as {
      executeQuery: (q: CompiledQuery, id: unknown) => Promise<unknown>;
    };
    const original = proto.executeQuery;
    let recorded: CompiledQuery[] | undefined;
    proto.executeQuery = function (this: unknown, q: CompiledQuery, id: unknown) {
      recorded?.push(q);
      return original.call(this, q, id);
    };
    const call = caller(app, s.name, s.apiKey, s.token);
    try {
      for (const name of lists) {
        const url = LISTS[name]!.byPartner
          ? `${LISTS[name]!.path}${s.partnerIds[0]}`
          : LISTS[name]!.path;
        await call('GET', url);
        recorded = [];
        await call('GET', url);
        const mine = recorded.filter(
          (q) =>
            /^\s*(select|with)/i.test(q.sql) &&
            /"(documents|payments)"|documents |payments /.test(q.sql),
        );
        recorded = undefined;
        say(`\n## ${name}: GET ${url} (${s.name})`);
        for (const q of mine) {
          say(`\n${q.sql.replace(/\s+/g, ' ')}`);
          say(`  parameters: ${JSON.stringify(q.parameters).slice(0, 300)}`);
          if (pg) {
            const r = await db.executeQuery<Record<string, string>>(
              CompiledQuery.raw(`explain (analyze, buffers) ${q.sql}`, [...q.parameters]),
            );
            for (const row of r.rows) say(`  ${Object.values(row)[0]}`);
          } else {
            const r = await db.executeQuery<{ id: number; parent: number; detail: string }>(
              CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]),
            );
            const depth = new Map<number, number>();
            for (const row of r.rows) {
              const d = (depth.get(row.parent) ?? -1) + 1;
              depth.set(row.id, d);
              say(`  ${'  '.repeat(d)}${row.detail}`);
            }
            const times: number[] = [];
            for (let k = 0; k < 20; k++) {
              const t0 = performance.now();
              await db.executeQuery(q);
              times.push(performance.now() - t0);
            }
            times.sort((a, b) => a - b);
            say(`  median of 20 runs: ${times[10]!.toFixed(2)} ms`);
          }
        }
      }
    } finally {
      proto.executeQuery = original;
    }
  } finally {
    await app.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Measuring

async function serve(s: Seeded, runDir: string) {
  const port = await freePort();
  const env = { ...kontorEnv(s.dataDir, s.apiKey, s.databaseUrl), PORT: String(port) };
  const out = fs.openSync(path.join(runDir, `${s.name}-server.log`), 'a');
  const probe = serverProbe(opt, s.name);
  const child = spawn(
    'taskset',
    [
      '-c',
      opt['server-cpu'],
      process.execPath,
      ...probe.args,
      path.join(ROOT, 'dist', 'server.js'),
    ],
    {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        ...env,
        ...probe.env,
      },
      stdio: ['ignore', out, out],
    },
  );
  fs.closeSync(out);
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${s.name}: the server exited while starting`);
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`${s.name}: no answer within 60 s`);
    await sleep(100);
  }
  return { child, base };
}

async function measure(s: Seeded, runDir: string): Promise<Map<string, Result>> {
  const { child, base } = await serve(s, runDir);
  const idsFile = path.join(runDir, `${s.name}-partners.txt`);
  fs.writeFileSync(idsFile, `${s.partnerIds.join('\n')}\n`);
  const results = new Map<string, Result>();
  try {
    for (const name of LIST_NAMES) {
      const list = LISTS[name]!;
      const env: Record<string, string> = {
        API_KEY: s.apiKey,
        AUTH: `Bearer ${s.token}`,
        ...(list.byPartner
          ? { MODE: 'getid', PREFIX: list.path, IDS_FILE: idsFile }
          : { MODE: 'get' }),
      };
      const url = list.byPartner ? `${base}/` : `${base}${list.path}`;
      if (WARMUP > 0)
        await runWrk({ url, env, seconds: WARMUP, cpu: opt['load-cpu'], connections: CONNECTIONS });
      const r = await runWrk({
        url,
        env,
        seconds: SECONDS,
        cpu: opt['load-cpu'],
        connections: CONNECTIONS,
      });
      results.set(name, r);
      say(
        `  ${s.name.padEnd(7)} ${name.padEnd(11)} ${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${r.p50.toFixed(1).padStart(6)} ms  p99 ${r.p99.toFixed(1).padStart(6)} ms${r.bad ? `  ${r.bad} bad of ${r.requests}` : ''}`,
      );
    }
  } finally {
    await stopChild(child);
  }
  return results;
}

// ---------------------------------------------------------------------------------------------
// Run

const stamp = new Date()
  .toISOString()
  .replace(/[-:.TZ]/g, '')
  .slice(0, 14);
const runDir = opt.reuse
  ? path.resolve(opt.reuse)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-lists-'));
const databases: string[] = [];

async function cleanup(): Promise<void> {
  await Promise.all(children.map(stopChild));
  if (opt.keep || opt.reuse) return;
  for (const db of databases)
    try {
      sh('dropdb', [...pgArgs(opt.pg), '--if-exists', '--force', db]);
    } catch (err) {
      say(`!! could not drop ${db}: ${(err as Error).message}`);
    }
  fs.rmSync(runDir, { recursive: true, force: true });
}
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => void cleanup().finally(() => process.exit(130)));

async function prepare(target: string): Promise<Seeded> {
  const manifest = path.join(runDir, `${target}.json`);
  if (opt.reuse) {
    if (!fs.existsSync(manifest)) throw new Error(`--reuse: ${manifest} missing`);
    const s = JSON.parse(fs.readFileSync(manifest, 'utf8')) as Seeded;
    await migrated(s);
    return s;
  }
  let url: string | undefined;
  if (target === 'pg') {
    const db = `kontor_lists_${stamp}`;
    sh('createdb', [...pgArgs(opt.pg), db]);
    databases.push(db);
    const u = new URL(opt.pg);
    u.pathname = `/${db}`;
    url = u.toString();
  }
  say(`${target}: seeding ${PARTNERS} partners and ${INVOICES} invoices through the API`);
  const s = await seed(target, runDir, url);
  fs.writeFileSync(manifest, JSON.stringify(s));
  return s;
}

async function main(): Promise<void> {
  sh('taskset', ['-cp', opt['load-cpu'], String(process.pid)]);
  say(
    `node ${process.version}, ${os.cpus().length} CPUs, server on CPU ${opt['server-cpu']}, wrk on CPU ${opt['load-cpu']}, ` +
      `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per list; ${fs.readFileSync('/proc/loadavg', 'utf8').trim()} (loadavg)`,
  );
  const all = new Map<string, Map<string, Result>>();
  for (const target of TARGETS) {
    const s = await prepare(target);
    if (opt.explain) await explain(s, LIST_NAMES);
    say(`${target}: measuring (loadavg ${fs.readFileSync('/proc/loadavg', 'utf8').trim()})`);
    all.set(target, await measure(s, runDir));
  }
  say(
    '\n| list | request | ' + TARGETS.map((t) => `${t} req/s | p50 ms | p99 ms`).join(' | ') + ' |',
  );
  say('|---|---|' + TARGETS.map(() => '---|---|---|').join(''));
  for (const name of LIST_NAMES) {
    const cells = TARGETS.map((t) => {
      const r = all.get(t)?.get(name);
      return r ? `${Math.round(r.rps)} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)}` : '– | – | –';
    });
    say(
      `| ${name} | \`GET ${LISTS[name]!.path}${LISTS[name]!.byPartner ? '…' : ''}\` | ${cells.join(' | ')} |`,
    );
  }
  if (opt.keep && !opt.reuse)
    say(
      `\nkept ${runDir} (databases: ${databases.join(', ') || '–'}); measure again with --reuse ${runDir} --targets ${TARGETS.join(',')}`,
    );
}

try {
  await main();
} finally {
  await cleanup();
}

/**
 * Kept data after a rebuild: the migrations run now, and on PostgreSQL what autovacuum does on
 * a production server after a migration that rewrote rows (statistics, and the visibility map
 * index-only scans need), as after seeding.
 */
async function migrated(s: Seeded): Promise<void> {
  const dist = await loadDist(ROOT);
  const env = kontorEnv(s.dataDir, s.apiKey, s.databaseUrl);
  const app = await dist.buildApp(dist.loadConfig({ ...env, PORT: '0' }), {
    logStream: fs.createWriteStream('/dev/null'),
  });
  try {
    if (s.databaseUrl !== undefined) await sql`vacuum analyze`.execute(app.ctx.db);
  } finally {
    await app.close();
  }
}
