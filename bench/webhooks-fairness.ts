/**
 * `npx tsx bench/webhooks-fairness.ts`: one account's webhook latency while another account's
 * endpoints never answer (docs/webhooks.md, "Fairness"). Account Y has one endpoint on a
 * node:http receiver on 127.0.0.1; account X (BUSINESS plan) has BENCH_DEAD endpoints (default
 * 20) on 127.0.0.1 servers that accept the connection and never answer. Y creates
 * BENCH_EVENTS partners (default 100), one every BENCH_GAP_MS (default 100 ms), each
 * `partner.created` to its endpoint; the first phase alone, the second while X creates
 * BENCH_BURST partners (default 5, so 100 deliveries to dead endpoints) every second. Prints
 * p50/p99/max of Y's event → received (the event's timestamp, taken in the write's
 * transaction, to the receiver having the whole request), per phase, and how many attempts X
 * got through. The worker polls every second and is kicked after each commit, two job slots
 * per process, WEBHOOK_TIMEOUT_MS 3000 (BENCH_TIMEOUT_MS). Embedded SQLite by default; set
 * DATABASE_URL=postgres://… for PostgreSQL (pg-boss; use a database of its own: X's backlog
 * stays in it). Not a test.
 */
import fs from 'node:fs';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { DeadReceivers } from '../test/dead-receivers.js';
import { seedUser } from '../test/helpers.js';
import { latencyReceiver, summary, webhookBenchApp } from './webhook-bench.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 100);
const GAP_MS = Number(process.env.BENCH_GAP_MS ?? 100);
const DEAD = Number(process.env.BENCH_DEAD ?? 20);
const BURST = Number(process.env.BENCH_BURST ?? 5);
const TIMEOUT_MS = process.env.BENCH_TIMEOUT_MS ?? '3000';

const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const latencies: number[] = [];
  const { receiver, port } = await latencyReceiver((ms) => latencies.push(ms));
  const dead = new DeadReceivers();
  const deadUrls = await dead.start(DEAD);

  const { app, dataDir } = await webhookBenchApp('kontor-bench-fairness-', {
    WEBHOOK_TIMEOUT_MS: TIMEOUT_MS,
  });
  let noisy = true;
  try {
    const { key } = await createApiKey(app.ctx.db, 'bench');
    const as = async () => {
      const user = await seedUser(app.ctx.db);
      return { 'x-api-key': key, authorization: `Bearer ${user.token}` };
    };
    const quiet = await as();
    const loud = await as();
    type Headers = Record<string, string>;
    const call = async (headers: Headers, url: string, payload: object, method = 'POST') => {
      const res = await app.inject({ method: method as 'POST', url, headers, payload });
      if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    };
    await call(loud, '/v1/plans', { planId: 'BUSINESS' }, 'PATCH');
    const endpoint = (headers: Headers, url: string) =>
      call(headers, '/v1/webhook-endpoints', { url, eventTypes: ['partner.created'] });
    await endpoint(quiet, `http://127.0.0.1:${port}/hook`);
    for (const url of deadUrls) await endpoint(loud, url);

    let n = 0;
    const quietPhase = async () => {
      for (let i = 0; i < EVENTS; i++) {
        const want = latencies.length + 1;
        await call(quiet, '/v1/partners', { name: `Quiet ${n++}` });
        const deadline = Date.now() + 120_000;
        while (latencies.length < want && Date.now() < deadline) await sleep(1);
        await sleep(GAP_MS);
      }
      return latencies.splice(0);
    };

    const alone = await quietPhase();
    const loudLoop = (async () => {
      let m = 0;
      while (noisy) {
        for (let i = 0; i < BURST; i++) await call(loud, '/v1/partners', { name: `Loud ${m++}` });
        await sleep(1000);
      }
    })();
    await sleep(1000);
    const before = dead.accepted;
    const withNoise = await quietPhase();
    noisy = false;
    await loudLoop;

    say(
      `webhooks fairness (${app.ctx.config.database.kind}): ${EVENTS} events of Y alone, then ` +
        `${EVENTS} while X (${DEAD} endpoints that never answer) creates ${BURST} partners a second`,
    );
    say(`  Y alone:          ${summary(alone)}`);
    say(`  Y beside X:       ${summary(withNoise)}`);
    say(
      `  X meanwhile: ${dead.accepted - before} attempts sent to its dead endpoints ` +
        `(WEBHOOK_TIMEOUT_MS ${TIMEOUT_MS}, WEBHOOK_ACCOUNT_CONCURRENCY ${app.ctx.config.webhookAccountConcurrency})`,
    );
  } finally {
    noisy = false;
    await app.close();
    receiver.close();
    await dead.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
