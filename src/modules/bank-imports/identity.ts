import { createHash } from 'node:crypto';
import { foldForMatch } from '../budgets/index.js';
import type { ParsedEntry } from './parsers/types.js';

/**
 * Duplicate identity of a statement line (decisions §11): the bank's own reference when the
 * file has one (with the booking date and amount, because CAMT batches share their entry's
 * reference), else a hash of booking date, amount, counterparty IBAN and the normalised
 * purpose. An occurrence index is appended, so two identical lines in one file are both kept,
 * and the same two lines in an overlapping later statement match them one to one.
 */
export function lineKey(entry: ParsedEntry): string {
  const base = entry.bankReference
    ? ['ref', entry.bankReference.trim()]
    : [
        'hash',
        (entry.counterpartyIban ?? '').replace(/\s+/g, '').toUpperCase(),
        foldForMatch(entry.purpose),
      ];
  return createHash('sha256')
    .update([...base, entry.bookingDate, String(entry.amountMinor), entry.currency].join('\u0000'))
    .digest('base64url')
    .slice(0, 32);
}

/** Identities of a file's lines in order: key + `#` + how often the key came before. */
export function identities(entries: ParsedEntry[]): string[] {
  const seen = new Map<string, number>();
  return entries.map((entry) => {
    const key = lineKey(entry);
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return `${key}#${n}`;
  });
}
