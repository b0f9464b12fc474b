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
/** One counter of a `hitMany`. */
export interface Hit {
  key: string;
  windowMs: number;
  /** The count past which this hit is over its limit (see `onlyIfUnder`). */
  limit?: number;
  /** Counted only when no earlier hit of the same call went past its `limit`. */
  onlyIfUnder?: boolean;
}

export interface CounterStore {
  /** Adds one to `key` in a window of `windowMs` and answers the new state. */
  hit(key: string, windowMs: number): Promise<CounterState>;
  /**
   * Several hits in one round trip, in order (a request's rate limits and quota); a hit left
   * out by its `onlyIfUnder` answers undefined.
   */
  hitMany(hits: Hit[]): Promise<(CounterState | undefined)[]>;
  /** `hitMany` answered at once, for a store that needs no round trip (memory). */
  hitManyNow?(hits: Hit[]): (CounterState | undefined)[];
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
    return Promise.resolve(this.hitNow(key, windowMs));
  }

  private hitNow(key: string, windowMs: number): CounterState {
    let entry = this.live(key);
    if (!entry) {
      entry = { count: 0, resetAt: this.now() + windowMs };
      this.counters.set(key, entry);
      if (this.counters.size > 100_000) this.sweep();
    }
    entry.count += 1;
    return { count: entry.count, resetMs: entry.resetAt - this.now() };
  }

  hitManyNow(hits: Hit[]): (CounterState | undefined)[] {
    let over = false;
    const out: (CounterState | undefined)[] = [];
    for (const h of hits) {
      if (h.onlyIfUnder && over) {
        out.push(undefined);
        continue;
      }
      const state = this.hitNow(h.key, h.windowMs);
      if (h.limit !== undefined && state.count > h.limit) over = true;
      out.push(state);
    }
    return out;
  }

  hitMany(hits: Hit[]): Promise<(CounterState | undefined)[]> {
    return Promise.resolve(this.hitManyNow(hits));
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

/**
 * Counts each key (KEYS) with its window, limit and gate (ARGV, three per key): INCR, and the
 * expiry set only when the key is new, atomically; a gated key is skipped once an earlier one
 * went past its limit. Answers count and remaining ms per key, -1 -1 for a skipped one.
 */
const HITS_SCRIPT = `
local over = false
local out = {}
for i, key in ipairs(KEYS) do
  local window = ARGV[3 * i - 2]
  local limit = tonumber(ARGV[3 * i - 1])
  if ARGV[3 * i] == '1' and over then
    out[2 * i - 1] = -1
    out[2 * i] = -1
  else
    local c = redis.call('INCR', key)
    if c == 1 then redis.call('PEXPIRE', key, window) end
    out[2 * i - 1] = c
    out[2 * i] = redis.call('PTTL', key)
    if limit >= 0 and c > limit then over = true end
  end
end
return out`;

type HitsCommand = (...args: (string | number)[]) => Promise<number[]>;

export class RedisCounterStore implements CounterStore {
  private readonly hits: HitsCommand;

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'kontor:ctr:',
  ) {
    // A defined command is sent by its SHA (EVALSHA) after the first call, not as a script.
    if (!('kontorHits' in redis)) redis.defineCommand('kontorHits', { lua: HITS_SCRIPT });
    this.hits = (redis as unknown as { kontorHits: HitsCommand }).kontorHits.bind(redis);
  }

  async hit(key: string, windowMs: number): Promise<CounterState> {
    return (await this.hitMany([{ key, windowMs }]))[0]!;
  }

  async hitMany(hits: Hit[]): Promise<(CounterState | undefined)[]> {
    const result = await this.hits(
      hits.length,
      ...hits.map((h) => this.prefix + h.key),
      ...hits.flatMap((h) => [
        String(h.windowMs),
        String(h.limit ?? -1),
        h.onlyIfUnder ? '1' : '0',
      ]),
    );
    return hits.map((_, i) =>
      result[2 * i]! < 0
        ? undefined
        : { count: result[2 * i]!, resetMs: Math.max(0, result[2 * i + 1]!) },
    );
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
