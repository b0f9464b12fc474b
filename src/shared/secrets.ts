import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hash,
  randomBytes,
  randomInt,
  timingSafeEqual,
} from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` characters of base62 from the CSPRNG (32 characters ≈ 190 bits). */
export function randomBase62(length: number): string {
  const bytes = randomBytes(length * 2);
  let out = '';
  for (let i = 0; out.length < length && i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 248) out += BASE62[b % 62]!; // 248 = 4 × 62: no modulo bias
  }
  return out.length === length ? out : randomBase62(length);
}

/**
 * A bearer secret with a recognisable prefix (`kpat_…`, `kat_…`, `krt_…`, `kak_…`), so a
 * leaked secret can be spotted by secret scanners and in support tickets.
 */
export function newSecret(prefix: string): { secret: string; hash: string; display: string } {
  const secret = `${prefix}_${randomBase62(40)}`;
  return { secret, hash: sha256(secret), display: secret.slice(0, prefix.length + 7) };
}

/** Hex SHA-256. Enough for high-entropy secrets; codes and passwords use keyed or slow hashes. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex'); // one-shot: no Hash object per call (hot: every request)
}

export function hmac(key: string, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** Constant-time comparison of two hex or text strings. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** A 6-digit numeric code, uniformly distributed. */
export function sixDigitCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** A 256-bit key for one purpose, derived from the app secret. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return createHash('sha256').update(`${purpose}\0${secret}`).digest();
}

/** AES-256-GCM: `iv.tag.ciphertext` in base64url. */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url')).join('.');
}

/** Opens what `seal` produced; throws when it was altered or sealed with another key. */
export function unseal(key: Buffer, sealed: string): string {
  const [iv, tag, data] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !data) throw new Error('malformed sealed value');
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(data), decipher.final()]).toString('utf8');
}
