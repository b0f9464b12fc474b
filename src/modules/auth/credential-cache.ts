import type { Redis } from 'ioredis';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Principal } from '../../http/types.js';

/** What a revocation or role change invalidates. */
export type Invalidation =
  | { type: 'token'; id: string }
  | { type: 'session'; id: string }
  | { type: 'user'; id: string }
  | { type: 'apiKey'; id: string }
  | { type: 'all' };

interface Entry<T> {
  value: T;
  cachedAt: number;
}

const CHANNEL = 'kontor:revocations';
const MAX_ENTRIES = 50_000;

/**
 * Caches credential lookups (hash → principal or API key) so an authenticated read costs no
 * query, while keeping revocation immediate:
 * - writes in this process invalidate right after their transaction commits;
 * - with `REDIS_URL`, invalidations are published and every replica applies them;
 * - embedded, SQLite's `data_version` reveals writes by another process (the CLI), and the
 *   whole cache is dropped when it moves;
 * - a generation counter stops a lookup that raced a revocation from caching stale state;
 * - entries live at most `ttlMs` as a last safety net.
 */
export class CredentialCache {
  private readonly principals = new Map<string, Entry<Principal>>();
  private readonly apiKeys = new Map<string, Entry<string>>();
  private generation = 0;
  private lastExternal: number | undefined;
  private subscriber: Redis | undefined;

  constructor(
    private readonly opts: {
      ttlMs: number;
      now: () => number;
      externalChangeCounter?: () => number;
      publisher?: Redis;
      logger?: Logger;
    },
  ) {}

  /** Subscribes to other replicas' invalidations (Redis only). */
  async listen(subscriber: Redis): Promise<void> {
    this.subscriber = subscriber;
    subscriber.on('message', (_channel: string, message: string) => {
      try {
        this.apply(JSON.parse(message) as Invalidation);
      } catch (err) {
        this.opts.logger?.warn({ err }, 'ignored malformed revocation message');
      }
    });
    await subscriber.subscribe(CHANNEL);
  }

  /** Current generation; pass it back to `put*` so a raced lookup is not cached. */
  begin(): number {
    this.checkExternal();
    return this.generation;
  }

  getPrincipal(hash: string): Principal | undefined {
    return this.fresh(this.principals, hash);
  }

  putPrincipal(hash: string, principal: Principal, generation: number): void {
    if (generation === this.generation) this.store(this.principals, hash, principal);
  }

  getApiKey(hash: string): string | undefined {
    return this.fresh(this.apiKeys, hash);
  }

  putApiKey(hash: string, id: string, generation: number): void {
    if (generation === this.generation) this.store(this.apiKeys, hash, id);
  }

  /** Applies locally and broadcasts; call after the revoking transaction committed. */
  async invalidate(inv: Invalidation): Promise<void> {
    this.apply(inv);
    if (this.opts.publisher) {
      try {
        await this.opts.publisher.publish(CHANNEL, JSON.stringify(inv));
      } catch (err) {
        this.opts.logger?.error({ err }, 'could not broadcast a revocation');
      }
    }
  }

  close(): void {
    this.subscriber?.disconnect();
  }

  private apply(inv: Invalidation): void {
    this.generation += 1;
    switch (inv.type) {
      case 'all':
        this.principals.clear();
        this.apiKeys.clear();
        return;
      case 'apiKey':
        for (const [k, e] of this.apiKeys) if (e.value === inv.id) this.apiKeys.delete(k);
        return;
      case 'token':
      case 'session':
      case 'user': {
        const field =
          inv.type === 'token' ? 'tokenId' : inv.type === 'session' ? 'sessionId' : 'userId';
        for (const [k, e] of this.principals)
          if (e.value[field] === inv.id) this.principals.delete(k);
        return;
      }
    }
  }

  private checkExternal(): void {
    const counter = this.opts.externalChangeCounter?.();
    if (counter === undefined) return;
    if (this.lastExternal !== undefined && counter !== this.lastExternal)
      this.apply({ type: 'all' });
    this.lastExternal = counter;
  }

  private fresh<T>(map: Map<string, Entry<T>>, key: string): T | undefined {
    const entry = map.get(key);
    if (!entry) return undefined;
    if (this.opts.now() - entry.cachedAt > this.opts.ttlMs) {
      map.delete(key);
      return undefined;
    }
    return entry.value;
  }

  private store<T>(map: Map<string, Entry<T>>, key: string, value: T): void {
    if (map.size >= MAX_ENTRIES) {
      const oldest = map.keys().next().value;
      if (oldest !== undefined) map.delete(oldest);
    }
    map.set(key, { value, cachedAt: this.opts.now() });
  }
}
