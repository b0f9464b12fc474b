import {
  IMAGE_HEAD_BYTES,
  imageLimitProblem,
  isCheckedImage,
  readImageDimensions,
  type ImageLimits,
} from './image-dimensions.js';

/**
 * What may be stored and how bytes are recognised (decisions §8, §9): an allow-list of
 * content types, each with a check of the bytes themselves, so a file is what it claims to be.
 */

/**
 * The content types a client may upload. MT940/STA bank statements are plain text: declare
 * them as `text/plain` (`application/octet-stream` is refused, it would admit anything).
 */
export const UPLOAD_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/webp',
  'text/csv',
  'application/xml',
  'text/xml',
  'text/plain',
] as const;

export type UploadContentType = (typeof UPLOAD_CONTENT_TYPES)[number];

export const IMAGE_CONTENT_TYPES: readonly string[] = ['image/png', 'image/jpeg', 'image/webp'];

/** How many leading bytes the magic-number checks look at. */
const HEAD_BYTES = 1024;

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Binary formats that must not pass as text even when they happen to contain no NUL byte. */
const BINARY_SIGNATURES: Buffer[] = [
  Buffer.from('%PDF-'),
  PNG,
  JPEG,
  Buffer.from('RIFF'),
  Buffer.from('GIF8'),
  Buffer.from([0x50, 0x4b, 0x03, 0x04]), // ZIP, Office documents
  Buffer.from([0x7f, 0x45, 0x4c, 0x46]), // ELF
  Buffer.from('MZ'),
];

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;
}

function headProblem(contentType: string, head: Buffer): string | undefined {
  switch (contentType) {
    case 'application/pdf':
      // Readers accept the header anywhere in the first 1024 bytes; so do we.
      return head.includes('%PDF-') ? undefined : 'a PDF starts with %PDF-';
    case 'image/png':
      return head.subarray(0, 8).equals(PNG) ? undefined : 'not a PNG image';
    case 'image/jpeg':
      return head.subarray(0, 3).equals(JPEG) ? undefined : 'not a JPEG image';
    case 'image/webp':
      return head.subarray(0, 4).toString('latin1') === 'RIFF' &&
        head.subarray(8, 12).toString('latin1') === 'WEBP'
        ? undefined
        : 'not a WebP image';
    case 'application/xml':
    case 'text/xml': {
      let i = head.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0;
      while (i < head.length && isWhitespace(head[i]!)) i++;
      return head[i] === 0x3c ? undefined : 'XML starts with <';
    }
    case 'text/csv':
    case 'text/plain':
      return BINARY_SIGNATURES.some((sig) => head.subarray(0, sig.length).equals(sig))
        ? 'binary content declared as text'
        : undefined;
    default:
      return `content type ${contentType} is not accepted`;
  }
}

/**
 * Checks a file's bytes against its declared content type as they stream past: the magic
 * number of the head for binary formats, and for CSV and MT940 text no NUL byte anywhere
 * (UTF-8 or any 8-bit encoding passes; binary files nearly always hold a NUL early on),
 * and for images the dimensions their header declares. Keeps at most 1 KiB (images: 1 MiB).
 */
export class ContentCheck {
  private head = Buffer.alloc(0);
  private nul = false;
  private readonly text: boolean;
  private readonly keep: number;

  /** `limits`: the caps an image's declared dimensions must fit (none: not checked). */
  constructor(
    private readonly contentType: string,
    private readonly limits?: ImageLimits,
  ) {
    this.text = contentType === 'text/csv' || contentType === 'text/plain';
    this.keep = isCheckedImage(contentType) ? IMAGE_HEAD_BYTES : HEAD_BYTES;
  }

  update(chunk: Buffer): void {
    if (this.head.length < this.keep)
      this.head = Buffer.concat([this.head, chunk.subarray(0, this.keep - this.head.length)]);
    if (this.text && !this.nul && chunk.includes(0)) this.nul = true;
  }

  /**
   * Why the bytes do not match the declared type; undefined when they do. An image must
   * also declare readable dimensions in its header.
   */
  problem(): string | undefined {
    if (this.nul) return 'binary content (NUL bytes) declared as text';
    const head = headProblem(this.contentType, this.head.subarray(0, HEAD_BYTES));
    if (head !== undefined || !isCheckedImage(this.contentType)) return head;
    const dimensions = readImageDimensions(this.contentType, this.head);
    return typeof dimensions === 'string' ? dimensions : undefined;
  }

  /** Why a well-formed image is too large to accept (over `limits`); undefined when it fits. */
  oversize(): string | undefined {
    if (!this.limits || !isCheckedImage(this.contentType)) return undefined;
    const dimensions = readImageDimensions(this.contentType, this.head);
    return typeof dimensions === 'string' ? undefined : imageLimitProblem(dimensions, this.limits);
  }
}

// Control characters, and bidirectional overrides that make `evil‮fdp.exe` read as `.pdf`.
// eslint-disable-next-line no-control-regex
const UNSAFE_NAME_CHARS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A client file name made safe to keep as metadata: no directories, no control or bidi
 * characters, single spaces, at most 200 characters. Empty when nothing usable is left.
 * Storage keys never come from it.
 */
export function sanitizeFileName(name: string): string {
  const base = name.normalize('NFC').split(/[/\\]/).pop() ?? '';
  return [...base.replace(UNSAFE_NAME_CHARS, '').replace(/\s+/g, ' ').trim()]
    .slice(0, 200)
    .join('')
    .trim()
    .replace(/^\.+$/, '');
}

/**
 * `Content-Disposition: attachment` with an ASCII fallback name and the exact UTF-8 name
 * (RFC 6266, RFC 8187), so the browser saves the file instead of rendering it.
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
