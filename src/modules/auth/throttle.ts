import { AppError } from '../../shared/errors.js';
import { HOUR, MINUTE } from '../../shared/clock.js';
import type { CounterStore } from '../../shared/counters.js';
import { sha256 } from '../../shared/secrets.js';

const WINDOW_MS = 15 * MINUTE;
/** Failures allowed per email and client IP, and per client IP alone, in a 15-minute window. */
const PER_EMAIL_AND_IP = 5;
const PER_IP = 30;
/** Blocks of one email and client start at 15 minutes and double up to a day. */
const MAX_BLOCK_MS = 24 * HOUR;

/**
 * Throttles repeated failures of password and code checks (decisions §3). Failures count per
 * email *and* client IP, not per email alone: an email-wide block would let anyone lock the
 * owner out by failing on purpose from elsewhere. Past 5 failures that client is blocked for
 * that email for 15 minutes, each further block twice as long (up to a day) until a success;
 * a client failing across many emails is blocked after 30. Counting failures, not attempts,
 * keeps a user who types correctly unaffected; the keys for an unknown email are built the
 * same way as for a known one, so 429s reveal nothing either.
 */
export class FailureThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly scope: string,
  ) {}

  private keys(email: string, ip: string) {
    const pair = `${sha256(email)}:${ip}`;
    return {
      failures: `${this.scope}:f:${pair}`,
      block: `${this.scope}:b:${pair}`,
      strikes: `${this.scope}:s:${pair}`,
      ip: `${this.scope}:ip:${ip}`,
    };
  }

  /** Throws 429 with Retry-After while this client is blocked for the email, or at all. */
  async check(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    const [block, byIp] = await Promise.all([
      this.counters.peek(k.block),
      this.counters.peek(k.ip),
    ]);
    const blocked = [
      block.count > 0 ? block : undefined,
      byIp.count >= PER_IP ? byIp : undefined,
    ].filter((s) => s !== undefined);
    if (blocked.length === 0) return;
    const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((s) => s.resetMs)) / 1000));
    throw new AppError(
      'rate_limited',
      `Too many failed attempts. Try again in ${retryAfter} seconds.`,
      {
        headers: { 'retry-after': String(retryAfter) },
      },
    );
  }

  async fail(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    const [failures] = await Promise.all([
      this.counters.hit(k.failures, WINDOW_MS),
      this.counters.hit(k.ip, WINDOW_MS),
    ]);
    if (failures.count < PER_EMAIL_AND_IP) return;
    // Strikes remember earlier blocks for a day, so a patient guesser waits ever longer.
    const strikes = await this.counters.hit(k.strikes, MAX_BLOCK_MS);
    const blockMs = Math.min(WINDOW_MS * 2 ** (strikes.count - 1), MAX_BLOCK_MS);
    await this.counters.ensure(k.block, 1, blockMs);
    await this.counters.reset(k.failures);
  }

  /** The right secret from this client: its failures and backoff for the email start over. */
  async succeed(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    await Promise.all([k.failures, k.strikes, k.block].map((key) => this.counters.reset(key)));
  }
}

/** Auth mails per address (per kind) and per client IP (all kinds) in an hour. */
const MAILS_PER_ADDRESS = 3;
const MAILS_PER_IP = 30;

/**
 * Caps the mails that anyone may cause to be sent to an address (registration codes, notices
 * and reset codes): without it, the open endpoints are a free way to flood any mailbox, and
 * each repeat registration would retire the owner's pending code. Every request counts, before
 * the email is looked up, so a 429 comes alike for registered and unknown addresses.
 */
export class MailThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly kind: 'register' | 'reset',
  ) {}

  /** Counts one mail request; 429 with Retry-After when the address or the client is over. */
  async take(email: string, ip: string): Promise<void> {
    const address = `mail:${this.kind}:e:${sha256(email)}`;
    const client = `mail:ip:${ip}`;
    const [byAddress, byIp] = await Promise.all([
      this.counters.peek(address),
      this.counters.peek(client),
    ]);
    const blocked = [
      byAddress.count >= MAILS_PER_ADDRESS ? byAddress : undefined,
      byIp.count >= MAILS_PER_IP ? byIp : undefined,
    ].filter((s) => s !== undefined);
    if (blocked.length > 0) {
      const retryAfter = Math.max(1, Math.ceil(Math.max(...blocked.map((s) => s.resetMs)) / 1000));
      throw new AppError(
        'rate_limited',
        `Too many mails requested for this address or from this client. Try again in ${retryAfter} seconds.`,
        { headers: { 'retry-after': String(retryAfter) } },
      );
    }
    await Promise.all([this.counters.hit(address, HOUR), this.counters.hit(client, HOUR)]);
  }
}
