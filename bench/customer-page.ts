/**
 * `npm run bench:customer-page`: the customer's page (docs/customer-page.md) under load —
 * `GET /c/{token}` of one FINAL invoice (token lookup, document read with its payments, the
 * view recorded, the HTML rendered) at BENCH_CONNECTIONS (50) connections for BENCH_SECONDS
 * (10) after a 2-second warm-up, driven by `wrk` (1 thread, `--latency`) against the app
 * listening on 127.0.0.1. Embedded SQLite on a temp DATA_DIR, or the PostgreSQL of
 * DATABASE_URL. Rate limits off (the page's per-IP limit would refuse one client's load).
 * Prints requests per second and the latency percentiles; the goal is p99 < 50 ms on SQLite.
 * Not a test.
 */
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { billingAddress, inProcessApp, say } from './in-process.js';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const GOAL_P99_MS = 50;

/** wrk's latency in milliseconds (`812.00us`, `3.21ms`, `1.02s`). */
function ms(text: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text.trim());
  if (!m) throw new Error(`unreadable latency ${text}`);
  const value = Number(m[1]);
  return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
}

/** Runs wrk as a child process (the app serves in this one, so never a synchronous spawn). */
function wrk(url: string, seconds: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--latency', url]);
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', (e) =>
      reject(new Error(`wrk is needed (apt-get install wrk): ${e.message}`)),
    );
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`wrk failed (${code}): ${err}`)),
    );
  });
}

const bench = await inProcessApp('customer-page', { JOB_POLL_INTERVAL_MS: '0' });
try {
  const { app, callJson: call, database } = bench;
  const partner = await call('POST', '/v1/partners', {
    name: 'Kunde GmbH',
    addresses: [billingAddress('ap@kunde.example')],
  });
  const today = new Date().toISOString().slice(0, 10);
  const doc = await call('POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Beratung',
    partnerId: partner.id,
    creationDate: today,
    deliveryDate: today,
    status: 'FINAL',
    lineItems: Array.from({ length: 10 }, (_, i) => ({
      description: `Leistung ${i + 1}`,
      quantity: i + 1,
      unitPrice: 100,
    })),
  });
  const link = await call('POST', `/v1/documents/${String(doc.id)}/customer-links`, {});
  const path = new URL(String(link.url)).pathname;
  await app.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}${path}`;
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  // The same load on `GET /health` first: what this machine gives any route right now.
  for (const [name, target] of [
    ['GET /health (reference)', `${base}/health`],
    ['GET /c/{token}', url],
  ] as const) {
    await wrk(target, 2);
    const out = await wrk(target, SECONDS);
    if (process.env.BENCH_DEBUG) say(out);
    const rps = /Requests\/sec:\s+([\d.]+)/.exec(out)?.[1];
    const percentiles = Object.fromEntries(
      [...out.matchAll(/^\s+(50|75|90|99)%\s+(\S+)/gm)].map((m) => [m[1]!, ms(m[2]!)]),
    );
    const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? '0';
    const p99 = percentiles['99'] ?? Number.NaN;
    say(
      `${name} on ${database}, ${CONNECTIONS} connections, ${SECONDS} s: ${rps} req/s, ` +
        `p50 ${percentiles['50']} ms, p90 ${percentiles['90']} ms, p99 ${p99} ms` +
        (target === url
          ? ` (goal < ${GOAL_P99_MS} ms: ${p99 < GOAL_P99_MS ? 'met' : 'NOT met'})`
          : '') +
        `, non-2xx ${non2xx}`,
    );
  }
} finally {
  await bench.close();
}
