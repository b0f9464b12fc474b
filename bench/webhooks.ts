/**
 * `npx tsx bench/webhooks.ts`: outbound webhook delivery latency to a local receiver (issue 14).
 * Creates BENCH_EVENTS partners (default 200) through the API, each emitting `partner.created`
 * to one endpoint on a node:http server on 127.0.0.1, with the job worker polling as in
 * production (kicked after each commit): first alone (each event received before the next
 * change), then as a burst (changes as fast as the API takes them). Prints p50/p99/max of
 *   - end to end: the event's timestamp (taken in the write's transaction) → the receiver has
 *     the whole request (commit, job claim, target check, signing, connect, send);
 *   - attempt: the HTTP exchange alone, as the delivery records it (`lastLatencyMs`).
 * Embedded SQLite by default; set DATABASE_URL=postgres://… for PostgreSQL (pg-boss). Not a test.
 */
import fs from 'node:fs';
import { createApiKey } from '../src/modules/api-keys/api-keys.service.js';
import { seedUser } from '../test/helpers.js';
import { latencyReceiver, summary, webhookBenchApp } from './webhook-bench.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200);

const say = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const endToEnd: number[] = [];
  const { receiver, port } = await latencyReceiver((ms) => endToEnd.push(ms));

  const { app, dataDir } = await webhookBenchApp('kontor-bench-webhooks-');
  try {
    const { key } = await createApiKey(app.ctx.db, 'bench');
    const user = await seedUser(app.ctx.db);
    const headers = { 'x-api-key': key, authorization: `Bearer ${user.token}` };
    const made = await app.inject({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      headers,
      payload: { url: `http://127.0.0.1:${port}/hook`, eventTypes: ['partner.created'] },
    });
    const endpointId = made.json<{ id: string }>().id;

    const create = async (i: number) => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/partners',
        headers,
        payload: { name: `Bench Partner ${i}` },
      });
      if (res.statusCode !== 201) throw new Error(`partner ${i}: ${res.statusCode} ${res.body}`);
    };
    const received = async (n: number) => {
      const deadline = Date.now() + 60_000;
      while (endToEnd.length < n && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 1));
    };

    // Alone: each event is received before the next change, so no delivery waits for another.
    let started = Date.now();
    for (let i = 0; i < EVENTS; i++) {
      await create(i);
      await received(i + 1);
    }
    const alone = endToEnd.splice(0);
    const aloneWall = Date.now() - started;

    // Burst: the changes one after another as fast as the API takes them; deliveries queue.
    started = Date.now();
    for (let i = 0; i < EVENTS; i++) await create(EVENTS + i);
    await received(EVENTS);
    const wall = Date.now() - started;

    // The receiver may have a request whose outcome the job is still recording.
    const query = () =>
      app.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['status', 'attempts', 'last_latency_ms', 'last_error', 'last_status_code'])
        .where('endpoint_id', '=', endpointId)
        .execute();
    let rows = await query();
    for (let i = 0; i < 100 && rows.some((r) => r.status === 'PENDING'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows = await query();
    }
    const attempts = rows.map((r) => r.last_latency_ms ?? 0);
    const ok = rows.filter((r) => r.status === 'SUCCEEDED' && r.attempts === 1).length;
    for (const r of rows.filter((x) => x.attempts !== 1))
      say(`  not at the first attempt: ${JSON.stringify(r)}`);
    say(
      `webhooks (${app.ctx.config.database.kind}): 2 × ${EVENTS} events, ` +
        `${alone.length + endToEnd.length} received, ${ok} succeeded at the first attempt`,
    );
    say(`  alone, end to end (event → received): ${summary(alone)} (${aloneWall} ms wall)`);
    say(`  burst, end to end (event → received): ${summary(endToEnd)} (${wall} ms wall)`);
    say(`  attempt (HTTP exchange, all):          ${summary(attempts)}`);
  } finally {
    await app.close();
    receiver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
