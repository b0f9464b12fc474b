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
  /**
   * `hitMany` answered at once when the store needs no round trip for it (memory always;
   * Redis while it holds leases for every hit), else undefined and nothing is counted.
   */
  hitManyNow?(hits: Hit[]): (CounterState | undefined)[] | undefined;
  peek(key: string): Promise<CounterState>;
  reset(key: string): Promise<void>;
  /** Starts `key` at `count` for `windowMs` unless it already exists (seeding from durable storage). */
  ensure(key: string, count: number, windowMs: number): Promise<void>;
  /** Gives back what the store holds ahead of use (Redis leases); before the connection closes. */
  close?(): Promise<void>;
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
 * Counts each key (KEYS) with its window, limit, gate and lease size (ARGV, four per key):
 * INCRBY, and the expiry set only when the key is new, atomically; a gated key is skipped once
 * an earlier one went past its limit. A lease larger than one is cut to what is left under the
 * limit (never below one), so leases never take a key past its limit; a lease of zero leaves
 * the key alone (the caller counts it from a lease it holds). Answers count, remaining ms and
 * the lease taken per key: -1 -1 0 for a skipped one, 0 0 0 for one left alone.
 */
const HITS_SCRIPT = `
local over = false
local out = {}
for i, key in ipairs(KEYS) do
  local window = ARGV[4 * i - 3]
  local limit = tonumber(ARGV[4 * i - 2])
  local take = tonumber(ARGV[4 * i])
  if ARGV[4 * i - 1] == '1' and over then
    out[3 * i - 2] = -1
    out[3 * i - 1] = -1
    out[3 * i] = 0
  elseif take == 0 then
    out[3 * i - 2] = 0
    out[3 * i - 1] = 0
    out[3 * i] = 0
  else
    if limit >= 0 and take > 1 then
      local current = tonumber(redis.call('GET', key) or '0')
      take = math.max(1, math.min(take, limit - current))
    end
    local c = redis.call('INCRBY', key, take)
    if c == take then redis.call('PEXPIRE', key, window) end
    out[3 * i - 2] = c
    out[3 * i - 1] = redis.call('PTTL', key)
    out[3 * i] = take
    if limit >= 0 and c - take + 1 > limit then over = true end
  end
end
return out`;

/** Gives back what is left of a lease (ARGV: the count), only while its window lives. */
const RELEASE_SCRIPT = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
if c >= n and redis.call('PTTL', KEYS[1]) > 0 then redis.call('DECRBY', KEYS[1], n) end
return 0`;

type HitsCommand = (...args: (string | number)[]) => Promise<number[]>;

/** The most a lease takes at once, and the share of what is left under a limit it may take. */
const MAX_LEASE = 64;
const LEASE_SHARE = 32;

/**
 * Counts this process took from Redis ahead of use, per key: ranges of counts (`[next, end]`)
 * in one window, for a limit. Taken only for hits that carry a limit (the rate limits and the
 * monthly quota), never for counters whose callers judge them on their own (login throttling).
 */
interface Lease {
  ranges: [number, number][];
  resetAt: number;
  limit: number;
  /** The key's count in Redis when last seen: sizes the next lease. */
  seen: number;
}

/**
 * Redis counters shared by every replica. A request's rate limits and quota (`hitMany` with
 * limits) are counted from leases: a process takes up to 1/32 of what is left under a limit
 * (at most 64 counts) in one round trip and hands those counts out locally, so under load most
 * requests count without a round trip (`hitManyNow`), and near a limit leases shrink to one
 * count, which is exact. A lease never takes a key past its limit, so the replicas together
 * never let more requests through than the limit; what a replica leased and has not used yet
 * is counted already, so another replica may refuse a little early (by at most its outstanding
 * leases), and leftovers are given back when the app closes.
 */
export class RedisCounterStore implements CounterStore {
  private readonly hits: HitsCommand;
  private readonly releaseCommand: (key: string, count: number) => Promise<number>;
  private readonly leases = new Map<string, Lease>();
  /** Lease refills under way, by their keys: a burst waits for one instead of sending many. */
  private readonly refills = new Map<string, Promise<unknown>>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'kontor:ctr:',
    private readonly now: () => number = Date.now,
  ) {
    // A defined command is sent by its SHA (EVALSHA) after the first call, not as a script.
    if (!('kontorHits' in redis)) {
      redis.defineCommand('kontorHits', { lua: HITS_SCRIPT });
      redis.defineCommand('kontorRelease', { lua: RELEASE_SCRIPT, numberOfKeys: 1 });
    }
    const commands = redis as unknown as {
      kontorHits: HitsCommand;
      kontorRelease: (key: string, count: number) => Promise<number>;
    };
    this.hits = commands.kontorHits.bind(redis);
    this.releaseCommand = commands.kontorRelease.bind(redis);
  }

  async hit(key: string, windowMs: number): Promise<CounterState> {
    return (await this.hitMany([{ key, windowMs }]))[0]!;
  }

  /** The key's lease when it has a count left in a live window for this limit. */
  private usable(h: Hit, now: number): Lease | undefined {
    const lease = this.leases.get(h.key);
    return lease && lease.ranges.length > 0 && lease.resetAt > now && lease.limit === h.limit
      ? lease
      : undefined;
  }

  private static take(lease: Lease, now: number): CounterState {
    const range = lease.ranges[0]!;
    const count = range[0]++;
    if (range[0] > range[1]) lease.ranges.shift();
    return { count, resetMs: lease.resetAt - now };
  }

  /** Every hit counted from leases, or undefined (nothing counted) when one has none left. */
  hitManyNow(hits: Hit[]): (CounterState | undefined)[] | undefined {
    const now = this.now();
    const leases: Lease[] = [];
    for (const h of hits) {
      const lease = this.usable(h, now);
      if (!lease) return undefined;
      leases.push(lease);
    }
    // Counts from leases are never past their limits, so no gate closes.
    return leases.map((lease) => RedisCounterStore.take(lease, now));
  }

  async hitMany(hits: Hit[]): Promise<(CounterState | undefined)[]> {
    const flight = hits.map((h) => h.key).join('\n');
    for (;;) {
      const served = this.hitManyNow(hits);
      if (served) return served;
      const running = this.refills.get(flight);
      if (!running) break;
      await running.catch(() => undefined);
    }
    const refill = this.refill(hits);
    this.refills.set(flight, refill);
    try {
      return await refill;
    } finally {
      if (this.refills.get(flight) === refill) this.refills.delete(flight);
    }
  }

  /** How much to take for a hit that has no usable lease: one unless its limit leaves room. */
  private leaseSize(h: Hit): number {
    if (h.limit === undefined) return 1;
    const lease = this.leases.get(h.key);
    if (!lease || lease.resetAt <= this.now() || lease.limit !== h.limit) return 1;
    return Math.max(1, Math.min(MAX_LEASE, Math.floor((h.limit - lease.seen) / LEASE_SHARE)));
  }

  /** One round trip: new leases where a hit has none, counts from held leases for the rest. */
  private async refill(hits: Hit[]): Promise<(CounterState | undefined)[]> {
    const sent = this.now();
    // A hit with a lease left takes its count now (before the round trip, so no other
    // request takes it meanwhile) and leaves its key alone in Redis.
    const held = hits.map((h) => {
      const lease = this.usable(h, sent);
      return lease && RedisCounterStore.take(lease, sent);
    });
    const sizes = hits.map((h, i) => (held[i] ? 0 : this.leaseSize(h)));
    const result = await this.hits(
      hits.length,
      ...hits.map((h) => this.prefix + h.key),
      ...hits.flatMap((h, i) => [
        String(h.windowMs),
        String(h.limit ?? -1),
        h.onlyIfUnder ? '1' : '0',
        String(sizes[i]),
      ]),
    );
    const now = this.now();
    return hits.map((h, i) => {
      const [count, ttl, taken] = [result[3 * i]!, result[3 * i + 1]!, result[3 * i + 2]!];
      if (count < 0) return undefined;
      if (held[i]) return held[i];
      const first = count - taken + 1;
      const resetMs = Math.max(0, ttl);
      if (h.limit !== undefined) this.keep(h, first + 1, count, now + resetMs);
      return { count: first, resetMs };
    });
  }

  /** Keeps the rest of a lease (`next`…`end`) for later hits of the key. */
  private keep(h: Hit, next: number, end: number, resetAt: number): void {
    let lease = this.leases.get(h.key);
    // A lease of another window or limit is dropped: its counts no longer match the key.
    if (!lease || lease.limit !== h.limit || Math.abs(lease.resetAt - resetAt) > 1_000) {
      if (this.leases.size > 100_000) this.sweep();
      lease = { ranges: [], resetAt, limit: h.limit!, seen: end };
      this.leases.set(h.key, lease);
    }
    lease.seen = Math.max(lease.seen, end);
    if (next <= end) lease.ranges.push([next, end]);
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, lease] of this.leases) if (lease.resetAt <= now) this.leases.delete(key);
  }

  /** Gives back the counts leased and not used (when the app closes). */
  async close(): Promise<void> {
    const left = [...this.leases.keys()].flatMap((key) => {
      const n = this.unused(key);
      return n > 0 ? [[key, n] as const] : [];
    });
    this.leases.clear();
    await Promise.all(left.map(([key, n]) => this.releaseCommand(this.prefix + key, n)));
  }

  /** Counts this process leased for `key` and has not used (in a live window). */
  private unused(key: string): number {
    const lease = this.leases.get(key);
    if (!lease || lease.resetAt <= this.now()) return 0;
    return lease.ranges.reduce((sum, [next, end]) => sum + end - next + 1, 0);
  }

  /** The count without this process's unused leases (other replicas' are in it). */
  async peek(key: string): Promise<CounterState> {
    const k = this.prefix + key;
    const [count, ttl] = await Promise.all([this.redis.get(k), this.redis.pttl(k)]);
    if (count === null) return { count: 0, resetMs: Math.max(0, ttl) };
    return { count: Math.max(0, Number(count) - this.unused(key)), resetMs: Math.max(0, ttl) };
  }

  async reset(key: string): Promise<void> {
    this.leases.delete(key);
    await this.redis.del(this.prefix + key);
  }

  async ensure(key: string, count: number, windowMs: number): Promise<void> {
    await this.redis.set(this.prefix + key, String(count), 'PX', windowMs, 'NX');
  }
}
