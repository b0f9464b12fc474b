import { AppError } from '../../http/errors.js';
import { HOUR, MINUTE } from '../../shared/clock.js';
import type { CounterStore } from '../../shared/counters.js';
import { sha256 } from '../../shared/secrets.js';

const WINDOW_MS = 15 * MINUTE;
/** Failures allowed per email (the account) and per IP in a 15-minute window. */
const PER_EMAIL = 5;
const PER_IP = 30;

/**
 * Throttles repeated failures of password and code checks (decisions §3). Counting failures,
 * not attempts, keeps a legitimate user who types correctly unaffected; the key for an
 * unknown email is built the same way as for a known one, so 429s reveal nothing either.
 */
export class FailureThrottle {
  constructor(
    private readonly counters: CounterStore,
    private readonly scope: string,
  ) {}

  private keys(email: string, ip: string) {
    return { email: `${this.scope}:e:${sha256(email)}`, ip: `${this.scope}:ip:${ip}` };
  }

  /** Throws 429 with Retry-After when the email or the IP has failed too often. */
  async check(email: string, ip: string): Promise<void> {
    const k = this.keys(email, ip);
    const [byEmail, byIp] = await Promise.all([
      this.counters.peek(k.email),
      this.counters.peek(k.ip),
    ]);
    const blocked = [
      byEmail.count >= PER_EMAIL ? byEmail : undefined,
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
    await Promise.all([this.counters.hit(k.email, WINDOW_MS), this.counters.hit(k.ip, WINDOW_MS)]);
  }

  async succeed(email: string, ip: string): Promise<void> {
    await this.counters.reset(this.keys(email, ip).email);
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
