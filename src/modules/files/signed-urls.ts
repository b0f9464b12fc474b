import { createHmac } from 'node:crypto';
import { deriveKey, safeEqual } from '../../shared/secrets.js';

/** What an upload URL allows: exactly these bytes for exactly this file, until `expiresAt`. */
export interface UploadGrant {
  fileId: string;
  accountId: string;
  key: string;
  contentType: string;
  size: number;
  expiresAt: Date;
}

/** What a download URL allows: reading this file until `expiresAt`. */
export interface DownloadGrant {
  fileId: string;
  accountId: string;
  key: string;
  expiresAt: Date;
}

type Purpose = 'upload' | 'download';

interface Payload {
  /** Purpose. */
  p: Purpose;
  f: string;
  a: string;
  k: string;
  /** Content type and size: upload only. */
  t?: string;
  s?: number;
  /** Expiry, unix seconds. */
  e: number;
}

const SEGMENT = /^[A-Za-z0-9_-]{1,1000}$/;
const FILE_ID = /^fil_[0-9a-z]{26}$/;
const ACCOUNT_ID = /^acc_[0-9a-z]{26}$/;

/**
 * Signed, expiring tokens for the embedded storage's own upload and download routes:
 * `base64url(JSON payload).base64url(HMAC-SHA256(payload))`, carried in the `token` query
 * parameter (the access log keeps paths only, so tokens never reach it). The MAC covers the
 * encoded payload; each purpose has its own key derived from the app secret, so a download
 * token cannot be replayed as an upload token, nor any other signed value of the app as either.
 */
export class FileUrlSigner {
  private readonly keys: Record<Purpose, Buffer>;

  constructor(appSecret: string) {
    this.keys = {
      upload: deriveKey(appSecret, 'files-upload-url'),
      download: deriveKey(appSecret, 'files-download-url'),
    };
  }

  private sign(purpose: Purpose, payload: Payload): string {
    const encoded = Buffer.from(JSON.stringify(payload)).toString('base64url');
    return `${encoded}.${createHmac('sha256', this.keys[purpose]).update(encoded).digest('base64url')}`;
  }

  private open(purpose: Purpose, token: string, now: Date): Payload | undefined {
    const parts = token.split('.');
    if (parts.length !== 2) return undefined;
    const [encoded, mac] = parts as [string, string];
    if (!SEGMENT.test(encoded) || !SEGMENT.test(mac)) return undefined;
    const expected = createHmac('sha256', this.keys[purpose]).update(encoded).digest('base64url');
    if (!safeEqual(mac, expected)) return undefined;
    let payload: unknown;
    try {
      payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (typeof payload !== 'object' || payload === null) return undefined;
    const p = payload as Partial<Record<keyof Payload, unknown>>;
    if (p.p !== purpose) return undefined;
    if (typeof p.f !== 'string' || !FILE_ID.test(p.f)) return undefined;
    if (typeof p.a !== 'string' || !ACCOUNT_ID.test(p.a)) return undefined;
    if (typeof p.k !== 'string' || p.k !== `${p.a}/${p.f}`) return undefined;
    if (typeof p.e !== 'number' || !Number.isInteger(p.e) || p.e * 1000 <= now.getTime())
      return undefined;
    return payload as Payload;
  }

  upload(grant: UploadGrant): string {
    return this.sign('upload', {
      p: 'upload',
      f: grant.fileId,
      a: grant.accountId,
      k: grant.key,
      t: grant.contentType,
      s: grant.size,
      e: Math.floor(grant.expiresAt.getTime() / 1000),
    });
  }

  download(grant: DownloadGrant): string {
    return this.sign('download', {
      p: 'download',
      f: grant.fileId,
      a: grant.accountId,
      k: grant.key,
      e: Math.floor(grant.expiresAt.getTime() / 1000),
    });
  }

  /** The grant of a genuine, unexpired upload token; otherwise undefined. */
  verifyUpload(token: string, now: Date): UploadGrant | undefined {
    const p = this.open('upload', token, now);
    if (!p || typeof p.t !== 'string' || typeof p.s !== 'number' || !Number.isInteger(p.s))
      return undefined;
    return {
      fileId: p.f,
      accountId: p.a,
      key: p.k,
      contentType: p.t,
      size: p.s,
      expiresAt: new Date(p.e * 1000),
    };
  }

  /** The grant of a genuine, unexpired download token; otherwise undefined. */
  verifyDownload(token: string, now: Date): DownloadGrant | undefined {
    const p = this.open('download', token, now);
    return p && { fileId: p.f, accountId: p.a, key: p.k, expiresAt: new Date(p.e * 1000) };
  }
}
