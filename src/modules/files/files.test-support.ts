import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import type { FileStorage } from './storage.js';

/** Small but genuine-looking samples of every accepted type (only the heads matter). */
export const SAMPLES = {
  pdf: Buffer.from(
    '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< >>\nendobj\ntrailer\n<< >>\n%%EOF\n',
    'latin1',
  ),
  png: Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    Buffer.from('\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0', 'latin1'),
  ]),
  // JFIF APP0, then a baseline SOF0 declaring 1 × 1: the upload check reads the dimensions.
  jpeg: Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01,
    0x00, 0x01, 0x00, 0x00, 0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11,
    0x00, 0xff, 0xd9,
  ]),
  // A lossless VP8L chunk declaring 1 × 1.
  webp: Buffer.concat([
    Buffer.from('RIFF'),
    Buffer.from([18, 0, 0, 0]),
    Buffer.from('WEBPVP8L'),
    Buffer.from([5, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0]),
  ]),
  csv: Buffer.from(
    'Buchungstag;Betrag;Verwendungszweck\n01.03.2025;-1.234,56;Miete März\n',
    'utf8',
  ),
  mt940: Buffer.from(
    ':20:STARTUMSE\r\n:25:10020030/1234567\r\n:28C:00001/001\r\n:60F:C250301EUR1000,00\r\n:62F:C250331EUR1000,00\r\n-\r\n',
    'latin1',
  ),
  xml: Buffer.from(
    '\ufeff  \n<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"/>',
    'utf8',
  ),
};

export interface UploadTicket {
  fileId: string;
  key: string;
  uploadUrl: string;
  method: string;
  headers: Record<string, string>;
  expiresAt: string;
}

export function requestUpload(
  t: TestApp,
  user: TestUser,
  payload: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  return t.request({ method: 'POST', url: '/v1/files/upload-url', token: user.token, payload });
}

/** Path and query of a URL this service issued, for `app.inject`. */
export function localPath(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** PUTs bytes to a local upload URL through `app.inject` (no credentials: the token is all). */
export function putBytes(
  t: TestApp,
  uploadUrl: string,
  bytes: Buffer,
  contentType: string | undefined,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'PUT',
    url: localPath(uploadUrl),
    payload: bytes,
    headers: { ...(contentType ? { 'content-type': contentType } : {}), ...headers },
  });
}

/** upload-url for `bytes` as `contentType`, then the PUT; both answers. */
export async function upload(
  t: TestApp,
  user: TestUser,
  contentType: string,
  bytes: Buffer,
  fileName = 'file.bin',
): Promise<{ ticket: UploadTicket; put: LightMyRequestResponse }> {
  const res = await requestUpload(t, user, { fileName, contentType, size: bytes.length });
  if (res.statusCode !== 201) throw new Error(`upload-url answered ${res.statusCode}: ${res.body}`);
  const ticket = res.json<UploadTicket>();
  return { ticket, put: await putBytes(t, ticket.uploadUrl, bytes, contentType) };
}

/** Replaces one field of a signed token's payload, keeping its MAC (a forgery attempt). */
export function tamper(token: string, change: Record<string, unknown>): string {
  const [payload, mac] = token.split('.') as [string, string];
  const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as object;
  const forged = Buffer.from(JSON.stringify({ ...decoded, ...change })).toString('base64url');
  return `${forged}.${mac}`;
}

export function tokenOf(url: string): string {
  return new URL(url).searchParams.get('token')!;
}

export function withToken(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('token', token);
  return parsed.toString();
}

/**
 * A PNG signature and IHDR chunk declaring `width × height`, and nothing else: an image bomb
 * as the upload check sees it (it reads the header and never decodes pixels).
 */
export function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'latin1');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 6, 0, 0, 0], 16); // 8 bits per channel, RGBA
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), ihdr]);
}

/**
 * `storage.read` of `key` (holding `bytes`) whole, into a caller's buffer that fits (answered
 * as a view of it), and into one too small (answered as a buffer of its own, the caller's left
 * as it was).
 */
export async function expectWholeReads(storage: FileStorage, key: string, bytes: Buffer) {
  expect((await storage.read(key)).equals(bytes)).toBe(true);
  const roomy = Buffer.alloc(bytes.length + 100, 0xaa);
  const into = await storage.read(key, roomy);
  expect(into.equals(bytes)).toBe(true);
  expect(into.buffer).toBe(roomy.buffer);
  expect(into.byteOffset).toBe(roomy.byteOffset);
  expect(roomy.subarray(bytes.length).every((b) => b === 0xaa)).toBe(true);
  const small = Buffer.alloc(bytes.length - 1, 0xaa);
  const own = await storage.read(key, small);
  expect(own.equals(bytes)).toBe(true);
  expect(own.buffer).not.toBe(small.buffer);
  expect(small.every((b) => b === 0xaa)).toBe(true);
}
