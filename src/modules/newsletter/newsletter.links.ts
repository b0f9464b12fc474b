import { createHmac } from 'node:crypto';
import { DAY } from '../../shared/clock.js';
import { deriveKey, safeEqual } from '../../shared/secrets.js';

export type LinkPurpose = 'confirm' | 'unsubscribe';

/** How long a mailed link works: a confirmation is answered soon or not at all. */
export const LINK_VALIDITY_MS: Record<LinkPurpose, number> = {
  confirm: 7 * DAY,
  unsubscribe: 90 * DAY,
};

interface LinkPayload {
  /** Subscription id. */
  s: string;
  p: LinkPurpose;
  /** Expiry, unix seconds. */
  e: number;
}

const SEGMENT = /^[A-Za-z0-9_-]{1,400}$/;
const SUBSCRIPTION_ID = /^nls_[0-9a-z]{26}$/;

function sign(key: Buffer, encodedPayload: string): string {
  return createHmac('sha256', key).update(encodedPayload).digest('base64url');
}

/**
 * Signed, expiring links for newsletter mails: `base64url(payload).base64url(HMAC-SHA256)`.
 * The MAC covers the encoded payload text, so any change to it, even one that decodes to the
 * same bytes, fails; the key is derived for this purpose only, so no other signed value of
 * the app can be replayed as a link.
 */
export class LinkSigner {
  private readonly key: Buffer;
  constructor(appSecret: string) {
    this.key = deriveKey(appSecret, 'newsletter-links');
  }

  issue(subscriptionId: string, purpose: LinkPurpose, now: Date): string {
    const payload: LinkPayload = {
      s: subscriptionId,
      p: purpose,
      e: Math.floor((now.getTime() + LINK_VALIDITY_MS[purpose]) / 1000),
    };
    const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${encoded}.${sign(this.key, encoded)}`;
  }

  /** The subscription id of a genuine, unexpired token for `purpose`; otherwise undefined. */
  verify(token: string | undefined, purpose: LinkPurpose, now: Date): string | undefined {
    if (token === undefined) return undefined;
    const parts = token.split('.');
    if (parts.length !== 2) return undefined;
    const [encoded, mac] = parts as [string, string];
    if (!SEGMENT.test(encoded) || !SEGMENT.test(mac)) return undefined;
    if (!safeEqual(mac, sign(this.key, encoded))) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof payload !== 'object' || payload === null) return undefined;
    const { s, p, e } = payload as Partial<Record<keyof LinkPayload, unknown>>;
    if (typeof s !== 'string' || !SUBSCRIPTION_ID.test(s)) return undefined;
    if (p !== purpose) return undefined;
    if (typeof e !== 'number' || !Number.isInteger(e) || e * 1000 <= now.getTime())
      return undefined;
    return s;
  }
}
