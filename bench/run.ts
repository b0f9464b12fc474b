/**
 * `npm run bench`: request throughput of Kontor next to a bare `node:http` server measured in
 * the same run on the same machine, so the figures read as a ratio rather than as absolute
 * numbers that depend on the hardware.
 *
 * Kontor runs in-process on embedded SQLite with 10 000 partners, rate limits and quotas on (a
 * plan too large to refuse the load) and request logging on (written to /dev/null, so building
 * and writing the log lines is measured but the terminal is not flooded). autocannon runs in a worker thread so the load generator does not
 * share the server's event loop. Each target runs `BENCH_SECONDS` (default 5) with 50
 * connections, after a short warm-up.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { searchText } from '../src/http/pagination.js';
import { DEFAULT_PLANS } from '../src/modules/plans/plans.catalogue.js';
import { newId } from '../src/shared/ids.js';
import { seedUser } from '../test/helpers.js';

const SECONDS = parsePositive(process.env.BENCH_SECONDS, 5);
const WARMUP_SECONDS = Math.min(1, SECONDS);
const CONNECTIONS = 50;
const PARTNERS = 10_000;
const BATCH = 500;

function parsePositive(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`BENCH_SECONDS must be a positive number, got "${raw}"`);
  return value;
}

function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
  /** A CommonJS file exporting autocannon's `setupRequest`, loaded in the worker thread. */
  setupRequest?: string;
}

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function measure(target: Target, seconds: number): Promise<Row> {
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: seconds,
    workers: 1,
    requests: [
      {
        method: target.method ?? 'GET',
        headers: {
          ...target.headers,
          ...(target.body ? { 'content-type': 'application/json' } : {}),
        },
        ...(target.body ? { body: target.body } : {}),
        ...(target.setupRequest ? { setupRequest: target.setupRequest } : {}),
      },
    ],
  });
  return {
    name: target.name,
    rps: result.requests.mean,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

async function run(target: Target): Promise<Row> {
  await measure(target, WARMUP_SECONDS);
  return measure(target, SECONDS);
}

/** A bare `node:http` server answering `{"status":"ok"}`: the ceiling of this machine. */
async function startBare(): Promise<{ url: string; close: () => Promise<void> }> {
  const body = JSON.stringify({ status: 'ok' });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

const NAMES = ['Müller', 'Schäfer', 'Weiß', 'Becker', 'Hoffmann', 'Köhler', 'Zimmermann', 'Braun'];
const FORMS = ['GmbH', 'AG', 'KG', 'e.K.', 'GmbH & Co. KG'];
const TAGS = ['supplier', 'office', 'it', 'logistics', 'consulting', 'key-account'];

/**
 * `count` partners shaped as `PartnersService.create` writes them (search name, JSON columns,
 * tag rows), inserted in batches in one transaction. No audit events: the bench seeds data,
 * it does not replay history.
 */
async function seedPartners(app: App, accountId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const now = new Date().toISOString();
  await app.ctx.db.transaction().execute(async (trx) => {
    for (let offset = 0; offset < count; offset += BATCH) {
      const partners = [];
      const tags = [];
      for (let i = offset; i < Math.min(count, offset + BATCH); i++) {
        const id = newId('partner');
        const name = `${NAMES[i % NAMES.length]!} ${i} ${FORMS[i % FORMS.length]!}`;
        const partnerTags = [TAGS[i % TAGS.length]!, TAGS[(i * 7 + 3) % TAGS.length]!].filter(
          (tag, index, all) => all.indexOf(tag) === index,
        );
        ids.push(id);
        partners.push({
          id,
          account_id: accountId,
          name,
          search_name: searchText(name),
          type: i % 3 === 0 ? 'VENDOR' : 'CUSTOMER',
          description: i % 2 === 0 ? `Seeded partner number ${i}.` : null,
          website: i % 4 === 0 ? `https://partner-${i}.example` : null,
          logo_file_id: null,
          addresses: JSON.stringify([
            {
              type: 'BILLING',
              street: `Hauptstraße ${(i % 200) + 1}`,
              postalCode: String(10_000 + (i % 89_999)),
              city: 'Berlin',
              country: 'DE',
            },
          ]),
          tags: JSON.stringify(partnerTags),
          version: 1,
          created_at: now,
          updated_at: now,
        });
        for (const tag of partnerTags) tags.push({ account_id: accountId, partner_id: id, tag });
      }
      await trx.insertInto('partners').values(partners).execute();
      await trx.insertInto('partner_tags').values(tags).execute();
    }
  });
  return ids;
}

/** A `setupRequest` module that sends each request to a random partner of `ids`. */
function writeRandomIdSetup(dir: string, ids: string[]): string {
  const file = path.join(dir, 'random-partner.cjs');
  fs.writeFileSync(
    file,
    `const ids = ${JSON.stringify(ids)};\n` +
      'module.exports = (request) => ({ ...request, path: `/v1/partners/${ids[Math.floor(Math.random() * ids.length)]}` });\n',
  );
  return file;
}

function printTable(rows: Row[]): void {
  const bare = rows[0]!.rps;
  const header = ['target', 'req/s', 'p50 ms', 'p99 ms', 'vs bare', 'non-2xx', 'errors'];
  const lines = rows.map((r) => [
    r.name,
    r.rps.toFixed(0),
    r.p50.toFixed(1),
    r.p99.toFixed(1),
    `${((r.rps / bare) * 100).toFixed(1)} %`,
    String(r.non2xx),
    String(r.errors),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  say(format(header));
  say(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const line of lines) say(format(line));
}

async function main(): Promise<void> {
  const started = Date.now();
  say(
    `Kontor bench: ${SECONDS} s per target (+${WARMUP_SECONDS} s warm-up), ${CONNECTIONS} connections, ` +
      `Node ${process.version}, ${os.cpus().length} CPU(s)`,
  );
  const rows: Row[] = [];

  const bare = await startBare();
  try {
    rows.push(await run({ name: 'bare node:http', url: `${bare.url}/` }));
  } finally {
    await bare.close();
  }

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-'));
  let app: App | undefined;
  try {
    // Rate limits and quotas stay on (their counting is part of every request); the bench
    // account's plan, from an operator catalogue, is large enough never to refuse the load.
    const plansFile = path.join(dataDir, 'plans.json');
    fs.writeFileSync(
      plansFile,
      JSON.stringify(
        DEFAULT_PLANS.map((p) => ({
          ...p,
          requestsPerMinute: 10_000_000,
          requestsPerMonth: 1_000_000_000,
        })),
      ),
    );
    const config = loadConfig({
      DATA_DIR: dataDir,
      DATABASE_URL: `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
      PLANS_FILE: plansFile,
      LOG_LEVEL: 'info',
    });
    // The production logger (redaction, serializers), one line per request, into /dev/null.
    app = await buildApp(config, {
      logStream: fs.createWriteStream('/dev/null'),
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { key } = await createApiKey(app.ctx.db, 'bench');
    const { accountId, token } = await seedUser(app.ctx.db);
    const seedStart = Date.now();
    const ids = await seedPartners(app, accountId, PARTNERS);
    say(`seeded ${ids.length} partners in ${Date.now() - seedStart} ms (SQLite in ${dataDir})`);
    const headers = { 'x-api-key': key, authorization: `Bearer ${token}` };

    rows.push(
      await run({
        name: 'GET /v1/partners/{id}',
        url: `${address}/v1/partners/${ids[0]!}`,
        headers,
        setupRequest: writeRandomIdSetup(dataDir, ids),
      }),
    );
    rows.push(
      await run({
        name: 'GET /v1/partners?limit=25',
        url: `${address}/v1/partners?limit=25`,
        headers,
      }),
    );
    rows.push(
      await run({
        name: 'POST /v1/partners',
        url: `${address}/v1/partners`,
        method: 'POST',
        headers,
        body: JSON.stringify({ name: 'Bench Müller GmbH', type: 'VENDOR', tags: ['bench'] }),
      }),
    );
  } finally {
    await app?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  say();
  printTable(rows);
  say();
  const failed = rows.filter((r) => r.non2xx > 0 || r.errors > 0);
  for (const r of failed)
    say(
      `WARNING: ${r.name}: ${r.non2xx} non-2xx responses, ${r.errors} errors; figures are not valid`,
    );
  say(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

await main();
