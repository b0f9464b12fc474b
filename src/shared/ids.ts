import { randomBytes } from 'node:crypto';

/**
 * Type-prefixed, time-ordered ids in the TypeID style: `ptr_01jd8x…` (decisions §2).
 * The 26-character suffix is a ULID (48-bit millisecond time + 80 random bits) in lower-case
 * Crockford base32, monotonic within a process, so sorting ids sorts by creation time and
 * keyset pagination can page by id alone.
 */
export const ID_PREFIXES = {
  account: 'acc',
  user: 'usr',
  partner: 'ptr',
  apiToken: 'tok',
  session: 'ses',
  apiKey: 'key',
  auditEvent: 'evt',
  authCode: 'cod',
  taxRate: 'txr',
  product: 'prd',
  contract: 'ctr',
  note: 'not',
  newsletterSubscription: 'nls',
  file: 'fil',
  documentTemplate: 'tpl',
  document: 'doc',
  budgetCategory: 'bgc',
  budgetEntry: 'bge',
  payment: 'pay',
  bankImport: 'imp',
  job: 'job',
  webhookEndpoint: 'whe',
  webhookDelivery: 'msg',
  setupLink: 'stl',
  customerLink: 'cul',
  sepaMandate: 'mdt',
  sepaMandateAmendment: 'mda',
  sepaRun: 'sep',
  sepaRunItem: 'spi',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

let lastTime = 0;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(time: number): string {
  let out = '';
  let t = time;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32]! + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits → 16 base32 characters.
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31]!;
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

function incrementRandom(bytes: Uint8Array): Uint8Array {
  const next = new Uint8Array(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i]! < 255) {
      next[i]! += 1;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

/** A new ULID suffix; strictly increasing within this process. */
export function ulid(now: number = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = incrementRandom(lastRandom);
  } else {
    lastTime = now;
    lastRandom = new Uint8Array(randomBytes(10));
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
}

/** A new id of the given kind, e.g. `newId('partner')` → `ptr_01jd…`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/** JSON-schema pattern that ids of `kind` match. */
export function idPattern(kind: IdKind): string {
  return `^${ID_PREFIXES[kind]}_[0-9a-hjkmnp-tv-z]{26}$`;
}
