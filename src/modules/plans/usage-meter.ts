import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { CounterStore, Hit } from '../../shared/counters.js';
import { addMonthlyRequests, monthlyRequests } from './plans.repository.js';

/** `YYYY-MM` of a moment, in UTC. */
export function monthOf(now: Date): string {
  return now.toISOString().slice(0, 7);
}

/** Milliseconds until the next month starts (UTC). */
export function msToMonthEnd(now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) - now.getTime();
}

const FLUSH_MS = 5_000;

/** The UTC month a request falls in: its name and where it starts and ends (ms). */
interface Month {
  name: string;
  startMs: number;
  endMs: number;
  /** Per account: its counter's key and its pending total's key this month, made once. */
  keys: Map<string, [counter: string, pending: string]>;
}

function monthAt(ms: number): Month {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  return {
    name: monthOf(date),
    startMs: Date.UTC(year, month, 1),
    endMs: Date.UTC(year, month + 1, 1),
    keys: new Map(),
  };
}

/**
 * Counts requests per account and month. The live count sits in the counter store (memory,
 * or Redis shared by every replica) for a cheap check on every request; the durable count is
 * `usage_monthly`, to which each process adds what it counted every few seconds and when it
 * stops. A counter that is missing (a restart, a flushed Redis) is seeded from the database,
 * so a quota survives restarts; at most the last few seconds of one process can be lost.
 */
export class UsageMeter {
  private readonly pending = new Map<string, number>();
  private readonly seeded = new Set<string>();
  private readonly timer: NodeJS.Timeout;
  /** The month of the last request: every request of a month finds it here, none formats a date. */
  private month: Month = monthAt(0);

  constructor(
    private readonly db: Kysely<DB>,
    private readonly counters: CounterStore,
    private readonly logger: FastifyBaseLogger,
  ) {
    this.timer = setInterval(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  private key(accountId: string, month: string): string {
    return `q:${accountId}:${month}`;
  }

  /** The keys of `accountId` in `month`, as `key` and `counted` make them. */
  private keysOf(accountId: string, month: Month): [counter: string, pending: string] {
    let keys = month.keys.get(accountId);
    if (keys === undefined) {
      if (month.keys.size > 100_000) month.keys.clear();
      keys = [this.key(accountId, month.name), `${accountId}|${month.name}`];
      month.keys.set(accountId, keys);
    }
    return keys;
  }

  private currentMonth(ms: number): Month {
    if (ms < this.month.startMs || ms >= this.month.endMs) this.month = monthAt(ms);
    return this.month;
  }

  private async seed(accountId: string, now: Date): Promise<string> {
    const month = this.currentMonth(now.getTime()).name;
    const key = this.key(accountId, month);
    if (this.seeded.has(key)) return key;
    const stored = await monthlyRequests(this.db, accountId, month);
    await this.counters.ensure(
      key,
      stored + (this.pending.get(`${accountId}|${month}`) ?? 0),
      msToMonthEnd(now),
    );
    if (this.seeded.size > 100_000) this.seeded.clear();
    this.seeded.add(key);
    return key;
  }

  /**
   * The month's counter as a hit, for a caller that counts it together with others in one
   * round trip (the rate limits); call `counted` when the hit was counted.
   */
  async monthHit(accountId: string, now: Date): Promise<Hit> {
    return { key: await this.seed(accountId, now), windowMs: msToMonthEnd(now) };
  }

  /** `monthHit` when the month's counter is already seeded (most requests); no round trip. */
  monthHitNow(accountId: string, now: Date): Hit | undefined {
    const ms = now.getTime();
    const month = this.currentMonth(ms);
    const key = this.keysOf(accountId, month)[0];
    return this.seeded.has(key) ? { key, windowMs: month.endMs - ms } : undefined;
  }

  /** Notes a counted request for the durable monthly total. */
  counted(accountId: string, now: Date): void {
    const pendingKey = this.keysOf(accountId, this.currentMonth(now.getTime()))[1];
    this.pending.set(pendingKey, (this.pending.get(pendingKey) ?? 0) + 1);
  }

  /** The month's count so far, without counting. */
  async used(accountId: string, now: Date): Promise<number> {
    return (await this.counters.peek(await this.seed(accountId, now))).count;
  }

  /** Adds what this process counted to the durable monthly totals. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = [...this.pending];
    this.pending.clear();
    for (const [pendingKey, delta] of batch) {
      const [accountId, month] = pendingKey.split('|') as [string, string];
      try {
        await addMonthlyRequests(this.db, accountId, month, delta);
      } catch (err) {
        // Keep the delta for the next flush rather than lose it.
        this.pending.set(pendingKey, (this.pending.get(pendingKey) ?? 0) + delta);
        this.logger.warn({ err }, 'usage flush failed; will retry');
      }
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
