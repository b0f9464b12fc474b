import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../test/helpers.js';
import { ManualClock, MINUTE } from './clock.js';
import { DbJobQueue } from './jobs.js';

let t: TestApp;
let clock: ManualClock;
beforeAll(async () => {
  clock = new ManualClock(new Date('2026-05-01T10:00:00Z'));
  t = await buildTestApp({ clock, env: { JOB_POLL_INTERVAL_MS: '0' } });
});
afterAll(() => t.close());

const queue = (pollMs = 0) =>
  new DbJobQueue({ db: t.app.ctx.db, clock, logger: t.app.log, pollMs, leaseMs: MINUTE });

describe('job queue', () => {
  it('runs each job exactly once with two workers on one database', async () => {
    const a = queue();
    const b = queue();
    const runs: string[] = [];
    const kind = `count-${Date.now()}`;
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
    const rows = await t.app.ctx.db
      .selectFrom('jobs')
      .select('status')
      .where('kind', '=', kind)
      .execute();
    expect(rows.every((r) => r.status === 'DONE')).toBe(true);
  });

  it('a job enqueued in a transaction that rolls back never runs', async () => {
    const q = queue();
    const kind = `rollback-${Date.now()}`;
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

  it('retries with backoff, then marks the job FAILED and calls the failure hook once', async () => {
    const q = queue();
    const kind = `flaky-${Date.now()}`;
    let attempts = 0;
    const failures: string[] = [];
    q.register(kind, {
      run: () => {
        attempts++;
        return Promise.reject(new Error(`boom ${attempts}`));
      },
      failed: (_payload, error) => Promise.resolve(void failures.push(error)),
    });
    const id = await q.enqueue(t.app.ctx.db, kind, {});
    await q.drain();
    expect(attempts).toBe(1); // the retry waits for its backoff
    for (let i = 0; i < 3; i++) {
      clock.advance(MINUTE);
      await q.drain();
    }
    expect(attempts).toBe(3);
    expect(failures).toEqual(['boom 3']);
    const row = await t.app.ctx.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'FAILED', attempts: 3, last_error: 'boom 3' });
  });

  it('holds a job enqueued with runAt until that time', async () => {
    const q = queue();
    const kind = `later-${Date.now()}`;
    let ran = 0;
    q.register(kind, { run: () => Promise.resolve(void ran++) });
    await q.enqueue(t.app.ctx.db, kind, {}, undefined, {
      runAt: new Date(clock.now().getTime() + 5 * MINUTE),
    });
    await q.drain();
    expect(ran).toBe(0);
    clock.advance(4 * MINUTE);
    await q.drain();
    expect(ran).toBe(0);
    clock.advance(MINUTE);
    await q.drain();
    expect(ran).toBe(1);
  });

  it('takes over a job whose worker died once its lease ran out', async () => {
    const q = queue();
    const kind = `orphan-${Date.now()}`;
    let ran = 0;
    q.register(kind, { run: () => Promise.resolve(void ran++) });
    const id = await q.enqueue(t.app.ctx.db, kind, {});
    // A worker claimed it and died: RUNNING with a lease.
    await t.app.ctx.db
      .updateTable('jobs')
      .set({
        status: 'RUNNING',
        attempts: 1,
        locked_until: new Date(clock.now().getTime() + MINUTE).toISOString(),
      })
      .where('id', '=', id)
      .execute();
    await q.drain();
    expect(ran).toBe(0);
    clock.advance(2 * MINUTE);
    await q.drain();
    expect(ran).toBe(1);
  });
});
