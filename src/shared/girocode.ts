import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { ibanProblem, normalizeIban } from './iban.js';

/**
 * GiroCode / EPC QR code (EPC069-12, "Quick Response Code: guidelines to enable data capture
 * for the initiation of a SEPA credit transfer", data format version 002): a banking app
 * scans it and pre-fills a SEPA credit transfer.
 */

/** What a GiroCode carries. */
export interface GiroCodeInput {
  /** BIC of the beneficiary's bank, 8 or 11 characters; optional in version 002. */
  bic?: string;
  /** Beneficiary name, at most 70 characters. */
  name: string;
  iban: string;
  /** Amount in cents: 1 (0.01) to 99,999,999,999 (999,999,999.99). */
  amountMinor: number;
  /** Only EUR: the EPC code initiates SEPA credit transfers, which are in euro. */
  currency: string;
  /** Unstructured remittance information, e.g. the invoice number; at most 140 characters. */
  reference: string;
}

/** Largest payload: what a version 13 QR code holds in byte mode at error correction M. */
export const GIROCODE_MAX_BYTES = 331;
const MAX_AMOUNT_MINOR = 99_999_999_999;

/** Length in characters (code points), as the EPC limits count them. */
const chars = (text: string) => [...text].length;

function textField(label: string, value: string, max: number, required: boolean): string {
  // A line break would shift every following field of the line-based format.
  if (/[\r\n]/.test(value)) throw new RangeError(`GiroCode ${label} must not contain line breaks`);
  const text = value.trim();
  if (required && text === '') throw new RangeError(`GiroCode ${label} is required`);
  if (chars(text) > max)
    throw new RangeError(`GiroCode ${label} has ${chars(text)} characters; at most ${max}`);
  return text;
}

/**
 * The EPC069-12 version 002 payload: service tag `BCD`, version `002`, character set `1`
 * (UTF-8), identification `SCT`, BIC (may be empty), name, IBAN, amount (`EUR12.34`),
 * purpose (empty), structured reference (empty), unstructured remittance = `reference`;
 * lines joined by `\n`, trailing empty fields left out as the standard asks. Throws a
 * RangeError for input outside the standard (currency, amount range, lengths, IBAN, BIC,
 * more than 331 bytes).
 */
export function giroCodePayload(input: GiroCodeInput): string {
  if (input.currency !== 'EUR')
    throw new RangeError(`GiroCode amounts must be in EUR, not ${input.currency}`);
  if (
    !Number.isSafeInteger(input.amountMinor) ||
    input.amountMinor < 1 ||
    input.amountMinor > MAX_AMOUNT_MINOR
  )
    throw new RangeError('GiroCode amount must be from EUR 0.01 to EUR 999999999.99');
  const bic = (input.bic ?? '').replace(/\s+/g, '').toUpperCase();
  if (bic !== '' && !/^[A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?$/.test(bic))
    throw new RangeError('GiroCode BIC must have 8 or 11 characters');
  const iban = normalizeIban(input.iban);
  const problem = ibanProblem(iban);
  if (problem !== undefined) throw new RangeError(`GiroCode IBAN ${problem}`);
  const euros = Math.floor(input.amountMinor / 100);
  const cents = String(input.amountMinor % 100).padStart(2, '0');
  const lines = [
    'BCD',
    '002',
    '1',
    'SCT',
    bic,
    textField('name', input.name, 70, true),
    iban,
    `EUR${euros}.${cents}`,
    '',
    '',
    textField('reference', input.reference, 140, false),
  ];
  while (lines.at(-1) === '') lines.pop();
  const payload = lines.join('\n');
  const bytes = Buffer.byteLength(payload, 'utf8');
  if (bytes > GIROCODE_MAX_BYTES)
    throw new RangeError(`GiroCode payload has ${bytes} bytes; at most ${GIROCODE_MAX_BYTES}`);
  return payload;
}

/**
 * A PNG data URI of the QR code for a payload from `giroCodePayload`: error correction M as
 * EPC069-12 requires, one byte-mode segment of the UTF-8 bytes (so the QR version stays at
 * most 13), the standard four-module quiet zone, 8 px per module for print.
 */
export function giroCodeDataUri(payload: string): Promise<string> {
  // A promise (rejected with the RangeError) as callers have awaited it.
  return new Promise((resolve) => {
    const bytes = Buffer.from(payload, 'utf8');
    if (bytes.length > GIROCODE_MAX_BYTES)
      throw new RangeError(
        `GiroCode payload has ${bytes.length} bytes; at most ${GIROCODE_MAX_BYTES}`,
      );
    resolve(qrPngDataUri(bytes));
  });
}

/**
 * A PNG data URI of the QR code of a URL (the customer's page printed on a PDF): the same
 * generator and print settings as the GiroCode, error correction M, byte mode.
 */
export function urlQrDataUri(url: string): Promise<string> {
  return new Promise((resolve) => resolve(qrPngDataUri(Buffer.from(url, 'utf8'))));
}

/** Modules of quiet zone around a printed QR code, and pixels per module. */
const QR_MARGIN = 4;
const QR_SCALE = 8;

/**
 * The PNG data URI of the QR code of `bytes` (one byte-mode segment, error correction M): black
 * modules on white, QR_MARGIN modules of quiet zone, QR_SCALE px per module. The pixels are
 * those `qrcode`'s own PNG renderer draws; written here as a 1-bit grayscale PNG (one filter
 * byte and a bit per pixel per row, deflated natively), which takes a fraction of the CPU time
 * of an RGBA image with every PNG filter tried per row.
 */
function qrPngDataUri(bytes: Buffer): string {
  const { modules } = QRCode.create([{ data: bytes, mode: 'byte' }], {
    errorCorrectionLevel: 'M',
  });
  const side = (modules.size + 2 * QR_MARGIN) * QR_SCALE;
  const rowBytes = 1 + Math.ceil(side / 8);
  const raw = Buffer.alloc(rowBytes * side, 0);
  for (let y = 0; y < side; y++) {
    const my = Math.floor(y / QR_SCALE) - QR_MARGIN;
    const row = raw.subarray(y * rowBytes, (y + 1) * rowBytes);
    // Filter type 0; then 1 = white, 0 = black, most significant bit first.
    row.fill(0xff, 1);
    row[0] = 0;
    if (my < 0 || my >= modules.size) continue;
    for (let mx = 0; mx < modules.size; mx++) {
      if (!modules.get(my, mx)) continue;
      const x0 = (mx + QR_MARGIN) * QR_SCALE;
      for (let x = x0; x < x0 + QR_SCALE; x++) row[1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr.set([1, 0, 0, 0, 0], 8); // bit depth 1, grayscale, deflate, filter 0, no interlace
  const png = Buffer.concat([
    PNG_SIGNATURE,
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}
