import type { Redis } from 'ioredis';

export interface CounterState {
  count: number;
  /** Milliseconds until the window ends. */
  resetMs: number;
}

/**
 * Fixed-window counters: login throttling now, rate limits and quotas later. In memory for a
 * single process; in Redis when `REDIS_URL` is set, so every replica sees the same counts.
 */
export interface CounterStore {
  /** Adds one to `key` in a window of `windowMs` and answers the new state. */
  hit(key: string, windowMs: number): Promise<CounterState>;
  peek(key: string): Promise<CounterState>;
  reset(key: string): Promise<void>;
  /** Starts `key` at `count` for `windowMs` unless it already exists (seeding from durable storage). */
  ensure(key: string, count: number, windowMs: number): Promise<void>;
}

export class MemoryCounterStore implements CounterStore {
  private readonly counters = new Map<string, { count: number; resetAt: number }>();
  constructor(private readonly now: () => number = Date.now) {}

  private live(key: string) {
    const entry = this.counters.get(key);
    if (entry && entry.resetAt <= this.now()) {
      this.counters.delete(key);
      return undefined;
    }
    return entry;
  }

  hit(key: string, windowMs: number): Promise<CounterState> {
    let entry = this.live(key);
    if (!entry) {
      entry = { count: 0, resetAt: this.now() + windowMs };
      this.counters.set(key, entry);
      if (this.counters.size > 100_000) this.sweep();
    }
    entry.count += 1;
    return Promise.resolve({ count: entry.count, resetMs: entry.resetAt - this.now() });
  }

  peek(key: string): Promise<CounterState> {
    const entry = this.live(key);
    return Promise.resolve(
      entry
        ? { count: entry.count, resetMs: entry.resetAt - this.now() }
        : { count: 0, resetMs: 0 },
    );
  }

  reset(key: string): Promise<void> {
    this.counters.delete(key);
    return Promise.resolve();
  }

  ensure(key: string, count: number, windowMs: number): Promise<void> {
    if (!this.live(key)) this.counters.set(key, { count, resetAt: this.now() + windowMs });
    return Promise.resolve();
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.counters) if (entry.resetAt <= now) this.counters.delete(key);
  }
}

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'kontor:ctr:',
  ) {}

  async hit(key: string, windowMs: number): Promise<CounterState> {
    const k = this.prefix + key;
    // INCR and set the expiry only when the key is new, atomically.
    const result = (await this.redis.eval(
      "local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end return {c, redis.call('PTTL', KEYS[1])}",
      1,
      k,
      String(windowMs),
    )) as [number, number];
    return { count: result[0], resetMs: Math.max(0, result[1]) };
  }

  async peek(key: string): Promise<CounterState> {
    const k = this.prefix + key;
    const [count, ttl] = await Promise.all([this.redis.get(k), this.redis.pttl(k)]);
    return { count: count === null ? 0 : Number(count), resetMs: Math.max(0, ttl) };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }

  async ensure(key: string, count: number, windowMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, String(count), 'PX', windowMs, 'NX');
  }
}
