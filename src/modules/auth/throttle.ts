import { AppError } from '../../http/errors.js';
import { MINUTE } from '../../shared/clock.js';
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
