import pg from 'pg';
import OldBoss from 'pg-boss-10';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { PgBossJobQueue } from './pgboss-jobs.js';
import { oldSchemaName } from './pgboss-upgrade.js';

const url = process.env.DATABASE_URL;
const onPostgres = !!url?.startsWith('postgres');
const suffix = `${Date.now()}_${Math.random().toString(36).slice(2, 6)}`;
const schema = `pgboss_up_${suffix}`;
const kind = `up-${suffix}`;
/** The queue name Kontor gave this kind under pg-boss 10, and gives it now. */
const queue = `kontor_${kind}`;

let t: TestApp;
const sql = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
};

beforeAll(async () => {
  if (onPostgres) t = await buildTestApp();
});
afterAll(async () => {
  if (!onPostgres) return;
  await sql(`drop schema if exists "${schema}" cascade`);
  await sql(`drop schema if exists "${oldSchemaName(schema)}" cascade`);
  await t.close();
});

/**
 * A database as Kontor with pg-boss 10 left it: a queue made as it made them (retries with
 * backoff, a dead-letter queue), jobs due, one due in an hour, one waiting for its retry, one
 * a worker had taken when it stopped, one finished, one payload dead-lettered.
 */
async function writeWithPgBoss10(): Promise<{ future: string; finished: string }> {
  const boss = new OldBoss({
    connectionString: url!,
    schema,
    supervise: false,
    schedule: false,
  });
  await boss.start();
  await boss.createQueue(`${queue}__dead`, { name: `${queue}__dead` });
  await boss.createQueue(queue, {
    name: queue,
    retryLimit: 2,
    retryDelay: 1,
    retryBackoff: true,
    expireInSeconds: 300,
    deadLetter: `${queue}__dead`,
  });
  // Taken one at a time, in the order sent: the first fails once, the second stays active.
  await boss.send(queue, { n: 'retried' });
  const [toRetry] = await boss.fetch(queue);
  await boss.fail(queue, toRetry!.id, { message: 'first attempt failed' });
  await boss.send(queue, { n: 'active' });
  const [active] = await boss.fetch(queue);
  expect(active!.data).toEqual({ n: 'active' });
  const finished = (await boss.send(queue, { n: 'finished' }))!;
  const [done] = await boss.fetch(queue);
  expect(done!.id).toBe(finished);
  await boss.complete(queue, finished);
  for (let n = 0; n < 5; n++) await boss.send(queue, { n: String(n) });
  const future = (await boss.send(queue, { n: 'future' }, { startAfter: 3600 }))!;
  await boss.send(`${queue}__dead`, { n: 'dead' });
  await boss.stop({ graceful: false, wait: true, close: true });
  return { future, finished };
}

describe.runIf(onPostgres)('moving from pg-boss 10 to 12 (PostgreSQL)', () => {
  it('runs every pending job of a pg-boss 10 database once, with two replicas starting at once', async () => {
    const { future, finished } = await writeWithPgBoss10();
    const runs: string[] = [];
    const replicas = [0, 1].map(
      () => new PgBossJobQueue({ connectionString: url!, logger: t.app.log, pollMs: 0, schema }),
    );
    try {
      for (const q of replicas)
        q.register(kind, {
          run: (payload) => Promise.resolve(void runs.push(String(payload.n))),
        });
      // The retried job is due a second or two after its failure (backoff): drain until it ran.
      const expected = ['0', '1', '2', '3', '4', 'active', 'retried'];
      for (let i = 0; i < 100 && runs.length < expected.length; i++) {
        await Promise.all(replicas.map((q) => q.drain()));
        if (runs.length < expected.length) await new Promise((r) => setTimeout(r, 100));
      }
      await Promise.all(replicas.map((q) => q.drain()));
      expect(runs.sort()).toEqual(expected.sort());
      expect(await replicas[0]!.deadLetters(kind)).toBe(1);

      // The job due in an hour waits in the new schema, still due then, under its old id.
      const [waiting] = await sql<{ due_in: number }>(
        `select extract(epoch from start_after - now())::int as due_in
         from "${schema}".job where id = $1 and state = 'created'`,
        [future],
      );
      expect(waiting!.due_in).toBeGreaterThan(3000);
      // The old schema keeps the finished job and nothing left to run.
      const old = await sql<{ id: string; state: string }>(
        `select id, state::text as state from "${oldSchemaName(schema)}".job`,
      );
      expect(old).toEqual([{ id: finished, state: 'completed' }]);
    } finally {
      await Promise.all(replicas.map((q) => q.close()));
    }

    // A later start finds nothing more to move, and runs nothing again.
    const again = new PgBossJobQueue({
      connectionString: url!,
      logger: t.app.log,
      pollMs: 0,
      schema,
    });
    try {
      let reruns = 0;
      again.register(kind, { run: () => Promise.resolve(void reruns++) });
      await again.drain();
      expect(reruns).toBe(0);
    } finally {
      await again.close();
    }
  });
});
