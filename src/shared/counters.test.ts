import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

describe.runIf(redis)('redis leases (rate limits counted ahead of use)', () => {
  const prefix = () => `kontor:test:lease:${Date.now()}:${Math.random()}:`;
  const limited = (limit: number) => [{ key: 'k', windowMs: 60_000, limit }];

  it('hands out every count once, in order, mostly without a round trip, and gives back the rest', async () => {
    const p = prefix();
    const store = new RedisCounterStore(redis!, p);
    expect(store.hitManyNow(limited(10_000))).toBeUndefined();
    const counts: number[] = [];
    for (let i = 0; i < 200; i++) {
      const now = store.hitManyNow(limited(10_000));
      counts.push((now ?? (await store.hitMany(limited(10_000))))[0]!.count);
    }
    expect(counts).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // Leased ahead: Redis holds more than was used, and fewer round trips than hits were made.
    const leased = Number(await redis!.get(`${p}k`));
    expect(leased).toBeGreaterThan(200);
    expect(leased).toBeLessThanOrEqual(200 + 64);
    // A peek leaves out what this process leased and did not use.
    expect((await store.peek('k')).count).toBe(200);
    await store.close();
    expect(Number(await redis!.get(`${p}k`))).toBe(200);
    expect((await store.peek('k')).count).toBe(200);
  });

  it('never lets two replicas together past the limit, and refuses at most one lease early', async () => {
    const p = prefix();
    const a = new RedisCounterStore(redis!, p);
    const b = new RedisCounterStore(redis!, p);
    const limit = 300;
    let admitted = 0;
    const seen = new Set<number>();
    for (let i = 0; i < 400; i++) {
      const store = i % 3 ? a : b;
      const [state] = store.hitManyNow(limited(limit)) ?? (await store.hitMany(limited(limit)));
      if (state!.count <= limit) {
        admitted += 1;
        expect(seen.has(state!.count)).toBe(false);
        seen.add(state!.count);
      }
    }
    expect(admitted).toBeLessThanOrEqual(limit);
    // What one replica leased and did not use is all that may be refused early.
    expect(admitted).toBeGreaterThanOrEqual(limit - 2 * Math.floor(limit / 32));
  });

  it('counts concurrent hits exactly once each (a burst shares one lease refill)', async () => {
    const p = prefix();
    const store = new RedisCounterStore(redis!, p);
    await store.hitMany(limited(100_000)); // learns the count: the next lease is large
    const send = vi.spyOn(redis!, 'sendCommand');
    const evals = () => send.mock.calls.filter(([c]) => c.name === 'evalsha').length;
    const results = await Promise.all(
      Array.from({ length: 50 }, () => store.hitMany(limited(100_000))),
    );
    const counts = results.map((r) => r[0]!.count).sort((x, y) => x - y);
    expect(counts).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
    expect(evals()).toBeGreaterThan(0);
    expect(evals()).toBeLessThan(5);
    send.mockRestore();
    await store.close();
    expect((await store.peek('k')).count).toBe(51);
  });

  it('takes no lease for a hit without a limit, nor past a small limit', async () => {
    const p = prefix();
    const store = new RedisCounterStore(redis!, p);
    for (let i = 0; i < 5; i++) await store.hitMany([{ key: 'free', windowMs: 60_000 }]);
    expect(Number(await redis!.get(`${p}free`))).toBe(5);
    const states = [];
    for (let i = 0; i < 8; i++) states.push((await store.hitMany(limited(6)))[0]!.count);
    expect(states).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(Number(await redis!.get(`${p}k`))).toBe(8);
  });
});
