import type { TestApp, TestUser } from '../../../test/helpers.js';
import { upload } from '../files/files.test-support.js';

/** One statement line for `mt940`: amount in cents, signed (credit positive). */
export interface Line {
  date: string; // YYYY-MM-DD
  cents: number;
  name?: string;
  iban?: string;
  purpose?: string;
  ref?: string;
}

const yymmdd = (iso: string) => iso.slice(2).replace(/-/g, '');
const amount = (cents: number) =>
  `${Math.floor(Math.abs(cents) / 100)},${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/**
 * A German MT940 statement (one `:20:` block) written for the tests: `:61:` with the bank
 * reference after `//`, `:86:` with structured ?-subfields and SEPA keys, opening and closing
 * balances that add up unless `closingCents` says otherwise.
 */
export function mt940(
  lines: Line[],
  opts: { openingCents?: number; closingCents?: number; from?: string; to?: string } = {},
): string {
  const opening = opts.openingCents ?? 100_000;
  const closing = opts.closingCents ?? opening + lines.reduce((s, l) => s + l.cents, 0);
  const first = opts.from ?? lines[0]?.date ?? '2026-03-01';
  const last = opts.to ?? lines[lines.length - 1]?.date ?? first;
  const out = [
    ':20:STARTUMSE',
    ':25:10020030/1234567',
    ':28C:00001/001',
    `:60F:${opening >= 0 ? 'C' : 'D'}${yymmdd(first)}EUR${amount(opening)}`,
  ];
  for (const l of lines) {
    const mark = l.cents >= 0 ? 'C' : 'D';
    out.push(
      `:61:${yymmdd(l.date)}${l.date.slice(5).replace('-', '')}${mark}${amount(l.cents)}NTRFNONREF${l.ref ? `//${l.ref}` : ''}`,
    );
    const purpose = `SVWZ+${l.purpose ?? 'Zahlung'}`;
    const chunks = purpose.match(/.{1,27}/g) ?? [''];
    const sub = chunks.map((c, i) => `?${20 + i}${c}`).join('');
    out.push(
      `:86:${l.cents >= 0 ? '166' : '105'}?00${l.cents >= 0 ? 'GUTSCHRIFT' : 'LASTSCHRIFT'}${sub}?30COBADEFFXXX?31${l.iban ?? 'DE89370400440532013000'}?32${l.name ?? 'Unbekannt'}`,
    );
  }
  out.push(`:62F:${closing >= 0 ? 'C' : 'D'}${yymmdd(last)}EUR${amount(closing)}`, '-');
  return out.join('\r\n') + '\r\n';
}

/** Uploads a statement as a file of `user`'s account: its id and key for the import. */
export async function uploadStatement(
  t: TestApp,
  user: TestUser,
  text: string,
  contentType = 'text/plain',
): Promise<{ fileId: string; key: string }> {
  const { ticket, put } = await upload(
    t,
    user,
    contentType,
    Buffer.from(text, 'latin1'),
    'umsatz.sta',
  );
  if (put.statusCode >= 300) throw new Error(`upload failed: ${put.statusCode} ${put.body}`);
  return { fileId: ticket.fileId, key: ticket.key };
}

/** `n` distinct generated lines from `start`, alternating credits and debits. */
export function generated(n: number, start = '2026-01-01'): Line[] {
  const t0 = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: n }, (_, i) => ({
    date: new Date(t0 + Math.floor(i / 40) * 86_400_000).toISOString().slice(0, 10),
    cents: (i % 2 === 0 ? 1 : -1) * (1000 + (i % 977)),
    name: `Kunde ${i % 50}`,
    purpose: `Rechnung R-${i}`,
    ref: `REF${i}`,
  }));
}
