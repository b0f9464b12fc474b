import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { PgBossJobQueue } from './pgboss-jobs.js';

const url = process.env.DATABASE_URL;
const onPostgres = !!url?.startsWith('postgres');

let t: TestApp;
const queues: PgBossJobQueue[] = [];
beforeAll(async () => {
  if (onPostgres) t = await buildTestApp();
});
afterAll(async () => {
  await Promise.all(queues.map((q) => q.close()));
  if (onPostgres) await t.close();
});

const queue = (o: { maxAttempts?: number; retryDelaySeconds?: number } = {}) => {
  const q = new PgBossJobQueue({ connectionString: url!, logger: t.app.log, pollMs: 0, ...o });
  queues.push(q);
  return q;
};
const unique = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}`;

describe.runIf(onPostgres)('pg-boss job queue (PostgreSQL)', () => {
  it('runs each job exactly once with two workers', async () => {
    const a = queue();
    const b = queue();
    const kind = unique('count');
    const runs: string[] = [];
    for (const q of [a, b])
      q.register(kind, {
        run: async (payload) => {
          runs.push(String(payload.n));
          await new Promise((r) => setTimeout(r, 5));
        },
      });
    await t.app.ctx.db.transaction().execute(async (trx) => {
      for (let n = 0; n < 20; n++) await a.enqueue(trx, kind, { n });
    });
    await Promise.all([a.drain(), b.drain()]);
    expect(runs.sort()).toEqual(Array.from({ length: 20 }, (_, n) => String(n)).sort());
  });

  it('creates the queues of new kinds from two processes at once without failing either', async () => {
    // pg-boss creates a queue with its partition in one call; two replicas creating the same
    // queues at once can deadlock in PostgreSQL, and the one chosen to give way retries.
    const a = queue();
    const b = queue();
    const kinds = Array.from({ length: 8 }, (_, i) => unique(`fresh${i}`));
    const sizes = await Promise.all(kinds.flatMap((k) => [a.deadLetters(k), b.deadLetters(k)]));
    expect(sizes).toEqual(kinds.flatMap(() => [0, 0]));
  });

  it('a job enqueued in a transaction that rolls back never runs', async () => {
    const q = queue();
    const kind = unique('rollback');
    let ran = 0;
    q.register(kind, { run: () => Promise.resolve(void ran++) });
    await expect(
      t.app.ctx.db.transaction().execute(async (trx) => {
        await q.enqueue(trx, kind, {});
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    await q.drain();
    expect(ran).toBe(0);
  });

  it('holds a job enqueued with runAt until that time', async () => {
    const q = queue();
    const kind = unique('later');
    let ran = 0;
    q.register(kind, { run: () => Promise.resolve(void ran++) });
    await t.app.ctx.db
      .transaction()
      .execute((trx) =>
        q.enqueue(trx, kind, {}, undefined, { runAt: new Date(Date.now() + 1500) }),
      );
    await q.drain();
    expect(ran).toBe(0);
    await new Promise((r) => setTimeout(r, 2000));
    await q.drain();
    expect(ran).toBe(1);
  });

  it('retries with backoff, then dead-letters the job and calls the failure hook once', async () => {
    const q = queue({ maxAttempts: 2, retryDelaySeconds: 1 });
    const kind = unique('flaky');
    const attempts: number[] = [];
    const failures: string[] = [];
    q.register(kind, {
      run: (_payload, job) => {
        attempts.push(job.attempt);
        return Promise.reject(new Error(`boom ${job.attempt}`));
      },
      failed: (payload, error) =>
        Promise.resolve(void failures.push(`${String(payload.x)}:${error}`)),
    });
    await t.app.ctx.db.transaction().execute((trx) => q.enqueue(trx, kind, { x: 7 }, 'acc_1'));
    await q.drain();
    // The retry waits for its backoff: not due yet.
    expect(attempts).toEqual([1]);
    expect(failures).toEqual([]);
    await new Promise((r) => setTimeout(r, 2500));
    await q.drain();
    expect(attempts).toEqual([1, 2]);
    expect(failures).toEqual(['7:boom 2']);
    expect(await q.deadLetters(kind)).toBe(1);
  });
});

describe.skipIf(onPostgres)('pg-boss job queue', () => {
  it.skip('runs only with DATABASE_URL=postgres://…', () => undefined);
});
