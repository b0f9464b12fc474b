import iconv from 'iconv-lite';
import { unzipSync } from 'fflate';
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../../test/helpers.js';

/** Helpers shared by the DATEV export tests (not part of the build). */

export type Body = Record<string, unknown>;

export async function call<T = Body>(
  t: TestApp,
  user: TestUser,
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  payload?: Body,
  expected = method === 'POST' ? 201 : 200,
): Promise<T> {
  const res = await t.request({ method, url, token: user.token, ...(payload ? { payload } : {}) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(expected);
  return res.json<T>();
}

export interface Rate {
  id: string;
  name: string;
  rate: number;
  category: string;
}

export async function ratesOf(t: TestApp, user: TestUser): Promise<Rate[]> {
  return (await call<{ data: Rate[] }>(t, user, 'GET', '/v1/tax-rates?limit=100')).data;
}

export function rateId(rates: Rate[], category: string, percent: number): string {
  const found = rates.find((r) => r.category === category && r.rate === percent);
  if (!found) throw new Error(`no ${category} ${percent} % rate`);
  return found.id;
}

export const billing = (extra: Body = {}) => ({
  type: 'BILLING',
  street: 'Hafenstraße 5',
  postalCode: '20095',
  city: 'Hamburg',
  country: 'DE',
  email: 'ap@kunde.example',
  ...extra,
});

/** One parsed CSV line: fields split on `;` outside quotes, quotes kept. */
export function fields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of line) {
    if (ch === '"') quoted = !quoted;
    if (ch === ';' && !quoted) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/** A quoted DATEV text field's value (`"a ""b"""` → `a "b"`). */
export const unquote = (field: string) => field.replace(/^"|"$/g, '').replace(/""/g, '"');

export interface Package {
  files: Record<string, Uint8Array>;
  csvBytes: Buffer;
  lines: string[];
  header: string[];
  columns: string[];
  rows: string[][];
}

/** Unzips an export answer and splits its CSV (decoded as Windows-1252). */
export function unpack(zip: Buffer): Package {
  const files = unzipSync(new Uint8Array(zip));
  const csvBytes = Buffer.from(files['EXTF_Buchungsstapel.csv']!);
  const text = iconv.decode(csvBytes, 'win1252');
  expect(text.endsWith('\r\n')).toBe(true);
  const lines = text.slice(0, -2).split('\r\n');
  return {
    files,
    csvBytes,
    lines,
    header: fields(lines[0]!),
    columns: lines[1]!.split(';'),
    rows: lines.slice(2).map(fields),
  };
}

/** Minor units of a DATEV amount (`1234,56`). */
export function minorOf(amount: string): number {
  expect(amount).toMatch(/^\d+,\d{2}$/);
  const [whole, cents] = amount.split(',');
  return Number(whole) * 100 + Number(cents);
}

/**
 * Balance per account in minor units, debit positive: a line debits `Konto` and credits
 * `Gegenkonto` with `S`, the other way round with `H`.
 */
export function balances(pkg: Package): Map<string, number> {
  const at = (name: string) => pkg.columns.indexOf(name);
  const out = new Map<string, number>();
  const add = (account: string, minor: number) => out.set(account, (out.get(account) ?? 0) + minor);
  for (const row of pkg.rows) {
    const minor = minorOf(row[at('Umsatz (ohne Soll/Haben-Kz)')]!);
    const debit = unquote(row[at('Soll/Haben-Kennzeichen')]!) === 'S';
    add(row[at('Konto')]!, debit ? minor : -minor);
    add(row[at('Gegenkonto (ohne BU-Schlüssel)')]!, debit ? -minor : minor);
  }
  return out;
}

/**
 * Each entry's compression method as the ZIP's central directory records it (0 stored,
 * 8 deflated), in the archive's order: read from the bytes, not through an unzip library.
 */
export function zipMethods(zip: Buffer): { name: string; method: number }[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  expect(end).toBeGreaterThan(0);
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  const out: { name: string; method: number }[] = [];
  for (let i = 0; i < count; i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    out.push({
      method: zip.readUInt16LE(at + 10),
      name: zip.toString('utf8', at + 46, at + 46 + nameLength),
    });
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

/** A stream's bytes. */
export async function bytesOf(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}
