import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { MemoryCounterStore, RedisCounterStore, type CounterStore } from './counters.js';

const redisUrl = process.env.REDIS_URL;
const redis = redisUrl ? new Redis(redisUrl) : undefined;
afterAll(() => redis?.disconnect());

const stores: [string, () => CounterStore][] = [['memory', () => new MemoryCounterStore()]];
if (redis) stores.push(['redis', () => new RedisCounterStore(redis, `kontor:test:${Date.now()}:`)]);

describe.each(stores)('%s counters', (_name, make) => {
  it('counts several keys in one call, and skips a gated key once an earlier one is over', async () => {
    const store = make();
    const hits = [
      { key: 'm1', windowMs: 60_000, limit: 2 },
      { key: 'm2', windowMs: 60_000, limit: 5 },
      { key: 'month', windowMs: 120_000, onlyIfUnder: true },
    ];
    const first = await store.hitMany(hits);
    expect(first.map((s) => s?.count)).toEqual([1, 1, 1]);
    expect(first[2]!.resetMs).toBeGreaterThan(60_000);
    await store.hitMany(hits);
    // m1 goes past its limit: m2 still counts, the gated month does not.
    expect((await store.hitMany(hits)).map((s) => s?.count)).toEqual([3, 3, undefined]);
    expect((await store.peek('month')).count).toBe(2);
  });

  it('counts hits in a window, peeks without counting, and resets', async () => {
    const store = make();
    expect(await store.peek('a')).toEqual({ count: 0, resetMs: 0 });
    const first = await store.hit('a', 60_000);
    expect(first.count).toBe(1);
    expect(first.resetMs).toBeGreaterThan(59_000);
    await store.hit('a', 60_000);
    expect((await store.peek('a')).count).toBe(2);
    await store.reset('a');
    expect((await store.peek('a')).count).toBe(0);
  });

  it('counts concurrent hits exactly', async () => {
    const store = make();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.hit('burst', 60_000)));
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 50 }, (_, i) => i + 1),
    );
  });

  it('starts a new window when the old one ends', async () => {
    const store = make();
    await store.hit('short', 50);
    await new Promise((r) => setTimeout(r, 80));
    expect((await store.hit('short', 50)).count).toBe(1);
  });
});

it.runIf(redis)('shares counts between two stores on one Redis (two replicas)', async () => {
  const prefix = `kontor:test:shared:${Date.now()}:`;
  const a = new RedisCounterStore(redis!, prefix);
  const b = new RedisCounterStore(redis!, prefix);
  await a.hit('k', 60_000);
  await b.hit('k', 60_000);
  expect((await a.peek('k')).count).toBe(2);
});
