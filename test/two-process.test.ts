import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/database.js';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { DEFAULT_PLANS } from '../src/modules/plans/plans.catalogue.js';
import { seedUser, type TestUser } from './helpers.js';
import { report } from './report.js';

/**
 * Two real Kontor processes on one database, driven concurrently, so races are real races:
 * - production mode (issue 12): one PostgreSQL database (created for this test) and one Redis,
 *   with DATABASE_URL on PostgreSQL and REDIS_URL set;
 * - embedded mode on a SQLite run (no DATABASE_URL): one SQLite file shared by two processes
 *   (what the CLI beside a running server does), where one process's transaction waits for the
 *   other's write lock. Rate limits are per process there (in-memory counters), so that case
 *   runs in production mode only.
 */

const baseUrl = process.env.DATABASE_URL;
const redisUrl = process.env.REDIS_URL;
const mode = baseUrl?.startsWith('postgres')
  ? redisUrl
    ? ('postgres' as const)
    : undefined
  : ('sqlite' as const);
const enabled = mode !== undefined;
const title =
  mode === 'sqlite'
    ? 'two Kontor processes on one SQLite file'
    : 'two Kontor processes on one PostgreSQL and one Redis';

interface Proc {
  child: ChildProcess;
  url: string;
  output: () => string;
}

let dbUrl = '';
let dbName = '';
let dataDir = '';
let procs: Proc[] = [];
const both = (): [Proc, Proc] => [procs[0]!, procs[1]!];
/** The servers' error log lines (a 500 says no more than its request id): for failure messages. */
const serverErrors = () =>
  procs
    .flatMap((p) => p.output().split('\n'))
    .filter((line) => line.includes('"level":50'))
    .join('\n');
let database: Database;
let apiKey = '';

function start(env: Record<string, string>): Promise<Proc> {
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) {
        clearInterval(timer);
        resolve({ child, url, output: () => out });
      }
    }, 20);
    child.on('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
}

async function call(
  p: Proc,
  method: string,
  url: string,
  token: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${p.url}${url}`, {
    method,
    headers: {
      'x-api-key': apiKey,
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** The account's render jobs: finished, in one attempt, for which document. */
async function renderJobs(
  accountId: string,
): Promise<{ done: boolean; once: boolean; id: string }[]> {
  if (mode === 'postgres') {
    const { rows } = await sql<{ state: string; retry_count: number; id: string }>`
      SELECT state, retry_count, data->>'documentId' AS id FROM pgboss.job
      WHERE name = 'kontor_document_render' AND data->>'__accountId' = ${accountId}`.execute(
      database.db,
    );
    return rows.map((r) => ({
      done: r.state === 'completed',
      once: r.retry_count === 0,
      id: r.id,
    }));
  }
  const rows = await database.db
    .selectFrom('jobs')
    .select(['status', 'attempts', 'payload'])
    .where('kind', '=', 'document.render')
    .where('account_id', '=', accountId)
    .execute();
  return rows.map((r) => ({
    done: r.status === 'DONE',
    once: r.attempts === 1,
    id: (JSON.parse(r.payload) as { documentId: string }).documentId,
  }));
}

async function userOnPlan(planId: string): Promise<TestUser> {
  const u = await seedUser(database.db);
  await database.db
    .updateTable('accounts')
    .set({ plan_id: planId })
    .where('id', '=', u.accountId)
    .execute();
  return u;
}

beforeAll(async () => {
  if (!enabled) return;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-2p-'));
  if (mode === 'postgres') {
    dbName = `kontor_2p_${Date.now()}_${process.pid}`;
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${dbName}`);
    await admin.end();
    const u = new URL(baseUrl!);
    u.pathname = `/${dbName}`;
    dbUrl = u.toString();
  } else dbUrl = `sqlite:${path.join(dataDir, 'kontor.sqlite')}`;
  // Tight per-minute limits on STARTER, a tight monthly quota on BUSINESS; FREE is roomy.
  const plansFile = path.join(dataDir, 'plans.json');
  fs.writeFileSync(
    plansFile,
    JSON.stringify(
      DEFAULT_PLANS.map((p) => ({
        ...p,
        requestsPerMinute: p.id === 'STARTER' ? 6 : 100_000,
        requestsPerMonth: p.id === 'BUSINESS' ? 6 : 10_000_000,
      })),
    ),
  );
  const env = {
    DATABASE_URL: dbUrl,
    REDIS_URL: redisUrl ?? '',
    DATA_DIR: dataDir,
    PLANS_FILE: plansFile,
    APP_SECRET: 'two-process-test-secret-0123456789abcdef',
    JOB_POLL_INTERVAL_MS: '100',
    REMINDER_INTERVAL_MS: '0',
  };
  // Both start at once: the migrations (and pg-boss's schema) must be applied exactly once.
  procs = await Promise.all([start(env), start(env)]);
  database = openDatabase(loadConfig({ DATABASE_URL: dbUrl }));
  apiKey = (await createApiKey(database.db, 'two-process')).key;
}, 120_000);

afterAll(async () => {
  if (!enabled) return;
  await Promise.all(
    procs.map(
      (p) =>
        new Promise<void>((resolve) => {
          if (p.child.exitCode !== null) return resolve();
          p.child.on('exit', () => resolve());
          p.child.kill('SIGTERM');
        }),
    ),
  );
  await database?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  if (mode !== 'postgres') return;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
}, 60_000);

describe.runIf(enabled)(title, () => {
  it('numbers invoices finalized through both without gaps, and renders each once', async () => {
    const [a, b] = both();
    const user = await seedUser(database.db);
    const partner = await call(a, 'POST', '/v1/partners', user.token, {
      name: 'Schulz KG',
      type: 'CUSTOMER',
      addresses: [
        {
          type: 'BILLING',
          street: 'Hafenstraße 5',
          postalCode: '20457',
          city: 'Hamburg',
          country: 'DE',
          email: 'rechnung@schulz.example',
        },
      ],
    });
    expect(partner.status, JSON.stringify(partner.body)).toBe(201);
    const N = 12;
    const drafts = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        call(i % 2 ? b : a, 'POST', '/v1/documents', user.token, {
          documentType: 'INVOICE',
          name: `Beratung ${i}`,
          creationDate: '2026-03-15',
          deliveryDate: '2026-03-15',
          partnerId: partner.body.id,
          lineItems: [
            { description: 'Beratung', quantity: 1, unitPrice: 100 + i, unitCode: 'HUR' },
          ],
        }),
      ),
    );
    for (const d of drafts)
      expect(d.status, `${JSON.stringify(d.body)}\n${serverErrors()}`).toBe(201);
    const started = performance.now();
    const finals = await Promise.all(
      drafts.map((d, i) =>
        call(i % 2 ? a : b, 'PUT', `/v1/documents/${String(d.body.id)}`, user.token, {
          version: d.body.version,
          status: 'FINAL',
        }),
      ),
    );
    const elapsed = performance.now() - started;
    for (const f of finals)
      expect(f.status, `${JSON.stringify(f.body)}\n${serverErrors()}`).toBe(200);
    const numbers = finals.map((f) => String(f.body.documentNumber)).sort();
    expect(numbers).toEqual(
      Array.from({ length: N }, (_, i) => `2026-${String(i + 1).padStart(4, '0')}`),
    );

    // Every render job ran exactly once, on one of the two processes (pg-boss's table, or the
    // embedded queue's).
    const deadline = Date.now() + 60_000;
    let rows: { done: boolean; once: boolean; id: string }[] = [];
    while (Date.now() < deadline) {
      rows = await renderJobs(user.accountId);
      if (rows.length === N && rows.every((r) => r.done)) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(rows).toHaveLength(N);
    expect(new Set(rows.map((r) => r.id)).size).toBe(N);
    expect(rows.every((r) => r.done && r.once)).toBe(true);
    report(
      `two processes: ${N} invoices finalized concurrently in ${elapsed.toFixed(0)} ms, numbers 2026-0001…${numbers[N - 1]}, ${rows.length} render jobs, each once\n`,
    );
  }, 120_000);

  it('replays an idempotency key on the other process', async () => {
    const [a, b] = both();
    const user = await seedUser(database.db);
    const headers = { 'idempotency-key': `idem-${Date.now()}` };
    const body = { name: 'Idempotent GmbH', type: 'VENDOR' };
    const first = await call(a, 'POST', '/v1/partners', user.token, body, headers);
    const second = await call(b, 'POST', '/v1/partners', user.token, body, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.id).toBe(first.body.id);
    const count = await database.db
      .selectFrom('partners')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', user.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
  });

  it.runIf(mode === 'postgres')(
    'shares per-minute rate limits and monthly quotas across both processes',
    async () => {
      const [a, b] = both();
      for (const plan of ['STARTER', 'BUSINESS']) {
        const user = await userOnPlan(plan);
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++)
          statuses.push((await call(i % 2 ? b : a, 'GET', '/v1/partners', user.token)).status);
        expect(
          statuses.filter((s) => s === 200),
          `${plan}: ${statuses.join(',')}`,
        ).toHaveLength(6);
        expect(statuses.slice(6)).toEqual([429, 429, 429, 429]);
      }
    },
  );

  it('a token revoked on one process stops working on the other within a second', async () => {
    const [a, b] = both();
    const admin = await seedUser(database.db);
    const victim = await seedUser(database.db, { accountId: admin.accountId, role: 'user' });
    // Both processes have the token cached.
    expect((await call(a, 'GET', '/v1/partners', victim.token)).status).toBe(200);
    expect((await call(b, 'GET', '/v1/partners', victim.token)).status).toBe(200);
    const revoked = await call(a, 'DELETE', `/v1/api-tokens/${victim.tokenId}`, victim.token);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(204);
    const t0 = performance.now();
    let status = 200;
    while (performance.now() - t0 < 1000) {
      status = (await call(b, 'GET', '/v1/partners', victim.token)).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const latency = performance.now() - t0;
    expect(status).toBe(401);
    expect((await call(a, 'GET', '/v1/partners', victim.token)).status).toBe(401);
    report(`two processes: revocation reached the other process in ${latency.toFixed(0)} ms\n`);
  });
});

describe.skipIf(enabled)('two Kontor processes', () => {
  it.skip('on PostgreSQL, needs REDIS_URL as well as DATABASE_URL', () => undefined);
});
