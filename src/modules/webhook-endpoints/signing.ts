import { createHmac, randomBytes } from 'node:crypto';
import { deriveKey, seal, unseal } from '../../shared/secrets.js';

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
 * base64 of 32 random bytes; a message is signed as HMAC-SHA256 over `id.timestamp.body` with
 * the decoded bytes, sent as `v1,<base64>` in `webhook-signature` (several, space-separated,
 * while a rotated secret is still honoured). Signed with node:crypto; the tests verify with the
 * `standardwebhooks` package.
 */

const PREFIX = 'whsec_';

export function newSigningSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256>` of `id.timestamp.body` under `secret`. */
export function signature(secret: string, id: string, timestampSeconds: number, body: string) {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`);
  return `v1,${mac.digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt, signed with each of `secrets`. */
export function signedHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signature(s, id, timestampSeconds, body)).join(' '),
  };
}

/** Seals and opens endpoint secrets with a key derived from the app secret for this purpose. */
export class SecretBox {
  private readonly key: Buffer;
  constructor(appSecret: string) {
    this.key = deriveKey(appSecret, 'webhook-endpoint-secret');
  }
  seal(secret: string): string {
    return seal(this.key, secret);
  }
  open(sealed: string): string {
    return unseal(this.key, sealed);
  }
}
