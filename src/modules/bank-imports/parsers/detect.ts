import { AppError } from '../../../shared/errors.js';
import { CAMT_MAX_VERSION, CAMT_MIN_VERSION, camtMessageKind, camtNamespace } from './camt.js';
import type { StatementFormat } from './types.js';

/**
 * Tells a statement's format from its content alone (decisions §11: never from the name or
 * the declared media type). Only the first 64 KiB are looked at. Anything that is not an
 * MT940, camt.052/053/054 or a delimited text file is refused with 422
 * `file_unprocessable` and a reason naming what the file is.
 */

/** Smaller than the smallest possible statement (an MT940 needs :20:, :25:, :28C:, :60F:, :62F:). */
const MIN_BYTES = 16;
const HEAD_BYTES = 64 * 1024;

function refuse(reason: string): AppError {
  return new AppError('file_unprocessable', reason);
}

const startsWith = (bytes: Buffer, signature: number[], offset = 0) =>
  signature.every((byte, i) => bytes[offset + i] === byte);

const ARCHIVE_HINT = 'extract it and upload the statement files one by one';

/** Well-known binary signatures → what the file is, and what to do instead. */
function binaryKind(bytes: Buffer): { what: string; hint?: string } | undefined {
  const is = (signature: number[], offset = 0) => startsWith(bytes, signature, offset);
  if (is([0x25, 0x50, 0x44, 0x46, 0x2d])) return { what: 'a PDF document' };
  if (is([0x89, 0x50, 0x4e, 0x47])) return { what: 'a PNG image' };
  if (is([0xff, 0xd8, 0xff])) return { what: 'a JPEG image' };
  if (is([0x47, 0x49, 0x46, 0x38])) return { what: 'a GIF image' };
  if (is([0x52, 0x49, 0x46, 0x46]) && is([0x57, 0x45, 0x42, 0x50], 8))
    return { what: 'a WebP image' };
  if (is([0x49, 0x49, 0x2a, 0x00]) || is([0x4d, 0x4d, 0x00, 0x2a])) return { what: 'a TIFF image' };
  if (is([0x42, 0x4d])) return { what: 'a BMP image' };
  // Archives are refused rather than unpacked: one statement file per import keeps the
  // attack surface (zip bombs, nested archives, path tricks) out of the import.
  if (is([0x50, 0x4b, 0x03, 0x04]) || is([0x50, 0x4b, 0x05, 0x06]))
    return { what: 'a ZIP archive (or an Office document)', hint: ARCHIVE_HINT };
  if (is([0x1f, 0x8b])) return { what: 'a gzip archive', hint: ARCHIVE_HINT };
  if (is([0x37, 0x7a, 0xbc, 0xaf])) return { what: 'a 7-Zip archive', hint: ARCHIVE_HINT };
  if (is([0x52, 0x61, 0x72, 0x21])) return { what: 'a RAR archive', hint: ARCHIVE_HINT };
  if (is([0xd0, 0xcf, 0x11, 0xe0]))
    return {
      what: 'a legacy Office document (e.g. .xls)',
      hint: 'export the statement as MT940, CAMT or CSV',
    };
  return undefined;
}

/** The head of the file as text for sniffing: BOMs honoured, otherwise read as Latin-1. */
function headText(bytes: Buffer): string {
  const head = bytes.subarray(0, HEAD_BYTES);
  if (startsWith(head, [0xef, 0xbb, 0xbf])) return head.subarray(3).toString('utf8');
  if (startsWith(head, [0xff, 0xfe])) return head.subarray(2).toString('utf16le');
  if (startsWith(head, [0xfe, 0xff])) {
    const swapped = Buffer.from(head.subarray(2, 2 + ((head.length - 2) & ~1)));
    return swapped.swap16().toString('utf16le');
  }
  return head.toString('latin1');
}

function detectXml(head: string): StatementFormat {
  const withoutProlog = head.replace(/<\?[\s\S]*?\?>|<!--[\s\S]*?-->/g, '');
  if (/<!DOCTYPE|<!ENTITY/i.test(withoutProlog))
    throw refuse('The XML contains a DOCTYPE or entity declaration, which is not accepted.');
  const namespace = /\bxmlns(?::[\w.-]+)?\s*=\s*["']([^"']*camt\.\d{3}\.001\.\d{2}[^"']*)["']/.exec(
    withoutProlog,
  )?.[1];
  const declared = namespace === undefined ? undefined : camtNamespace(namespace);
  // The message element, wherever it sits: `Document/BkToCstmrStmt`, or inside an envelope.
  const message =
    /<(?:[\w.-]+:)?(BkToCstmrStmt|BkToCstmrAcctRpt|BkToCstmrDbtCdtNtfctn)(?:V\d{2})?[\s/>]/.exec(
      withoutProlog,
    )?.[1];
  const kind = message === undefined ? undefined : camtMessageKind(message);
  if (kind === undefined) {
    if (declared !== undefined)
      throw refuse(
        `The file is a camt.${declared.message} message, not a bank statement; camt.052, camt.053 and camt.054 are read.`,
      );
    const other = /urn:iso:std:iso:20022:tech:xsd:([a-z]{4}\.\d{3}\.\d{3}\.\d{2})/.exec(
      withoutProlog,
    )?.[1];
    if (other !== undefined)
      throw refuse(
        `The file is an ISO 20022 ${other} message, not a bank statement; camt.052, camt.053 and camt.054 are read.`,
      );
    const root = /<(?:[\w.-]+:)?([A-Za-z_][\w.-]*)/.exec(withoutProlog)?.[1] ?? 'none';
    throw refuse(
      `The XML (document element <${root}>) is not a bank statement; camt.052, camt.053 and camt.054 are read.`,
    );
  }
  if (
    declared !== undefined &&
    (declared.version < CAMT_MIN_VERSION || declared.version > CAMT_MAX_VERSION)
  ) {
    throw refuse(
      `${kind.label}.001.${String(declared.version).padStart(2, '0')} is not supported; versions 001.01 to 001.10 are read.`,
    );
  }
  return kind.format;
}

const SWIFT_TAG = /^[ \t]*:(20|21|25P?|28C?|60[FM]|61|62[FM]|64|65|86):/m;

function detectSwift(head: string): StatementFormat | undefined {
  const mt942 =
    /\{2:[IO]942/.test(head) ||
    /^[ \t]*:34F:/m.test(head) ||
    (/^[ \t]*:(13D|90[DC]):/m.test(head) && !/^[ \t]*:60[FM]:/m.test(head));
  if (mt942)
    throw refuse(
      'The file is an MT942 interim transaction report, not a statement; upload the MT940 end-of-day statement instead.',
    );
  if (/\{2:[IO](9\d\d)/.test(head) && !/\{2:[IO]940/.test(head)) {
    const type = /\{2:[IO](9\d\d)/.exec(head)![1];
    throw refuse(`The file is a SWIFT MT${type} message, not an MT940 statement.`);
  }
  return SWIFT_TAG.test(head) ? 'MT940' : undefined;
}

/**
 * NUL bytes, or more than 2 % control characters, mean binary data. A few control characters
 * are normal: SWIFT envelopes use SOH/ETX (0x01/0x03), old DOS exports end in Ctrl-Z (0x1a).
 */
function isBinary(head: string): boolean {
  let control = 0;
  for (let i = 0; i < head.length; i++) {
    const code = head.charCodeAt(i);
    if (code === 0) return true;
    if (code < 32 && code !== 9 && code !== 10 && code !== 13) control++;
  }
  return control > head.length / 50;
}

/** A text of at least two lines whose first lines are split by `;`, `,` or tabs. */
function looksDelimited(head: string): boolean {
  const lines = head
    .split(/\r\n|\n|\r/)
    .slice(0, 60)
    .filter((line) => line.trim() !== '');
  if (lines.length < 2) return false;
  const fields = (line: string, separator: string) =>
    line.replace(/"[^"]*"/g, '""').split(separator).length;
  return [';', '\t', ','].some(
    (separator) => lines.filter((line) => fields(line, separator) >= 3).length >= 2,
  );
}

/**
 * The statement format of a file, from its bytes. Throws `file_unprocessable` for anything
 * else: empty or tiny files, PDFs, images, archives, JSON, MT942 interim reports, XML that is
 * not camt.052/053/054 (or a version outside 001.01–001.10), binary data.
 */
export function detectFormat(bytes: Buffer): StatementFormat {
  if (bytes.length === 0) throw refuse('The file is empty.');
  const binary = binaryKind(bytes);
  if (binary !== undefined)
    throw refuse(
      `The file is ${binary.what}, not a bank statement${binary.hint ? `; ${binary.hint}` : ''}.`,
    );
  const head = headText(bytes);
  const trimmed = head.trim();
  if (trimmed === '' && bytes.length <= HEAD_BYTES)
    throw refuse('The file contains nothing but whitespace.');
  if (Buffer.byteLength(trimmed) < MIN_BYTES && bytes.length <= HEAD_BYTES)
    throw refuse(
      `The file has only ${bytes.length} bytes; that is too small to be a bank statement.`,
    );
  if (isBinary(head))
    throw refuse('The file is binary data, not a bank statement (MT940, CAMT or CSV).');

  if (trimmed.startsWith('<')) return detectXml(trimmed);
  const swift = detectSwift(head);
  if (swift !== undefined) return swift;
  if (/^[{[]/.test(trimmed)) {
    try {
      JSON.parse(bytes.toString('utf8'));
      throw refuse('The file is JSON, not a bank statement (MT940, CAMT or CSV).');
    } catch (error) {
      if (error instanceof AppError) throw error;
    }
  }
  if (looksDelimited(head)) return 'CSV';
  throw refuse(
    'The file is not a recognised bank statement: expected MT940, camt.052/053/054 XML or a CSV export.',
  );
}
