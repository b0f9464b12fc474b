import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Config } from '../../config.js';
import { attachmentDisposition, ContentCheck } from './content.js';
import { imageLimits, type ImageLimits } from './image-dimensions.js';
import type { UploadGrant } from './signed-urls.js';
import { assertKey } from './keys.js';
import type { DownloadRequest, Expected, FileStorage, Received } from './storage.js';

/** Where a client's presigned PUT lands; the accepted copy lives at the key itself. */
const INCOMING = 'incoming/';

function isNotFound(err: unknown): boolean {
  return (
    err instanceof S3ServiceException &&
    (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey')
  );
}

/**
 * S3-compatible object storage. Clients upload with a presigned PUT (content type and length
 * signed) to `incoming/<key>`; S3 cannot look at the bytes, so `promote` later copies the
 * object to `<key>`, where no client can write, and checks that copy (size, type, magic
 * numbers, SHA-256). A client re-using its upload URL after that only touches `incoming/`.
 */
export class S3FileStorage implements FileStorage {
  readonly kind = 's3';
  private readonly client: S3Client;
  /** S3 checks expiry against its own time; the service's clock only names `expiresAt`. */
  private readonly ttlSeconds: number;
  private readonly imageLimits: ImageLimits;

  constructor(
    config: Config,
    private readonly bucket: string,
  ) {
    this.ttlSeconds = config.signedUrlTtlSeconds;
    this.imageLimits = imageLimits(config);
    this.client = new S3Client({
      region: config.s3Region,
      ...(config.s3Endpoint ? { endpoint: config.s3Endpoint } : {}),
      forcePathStyle: config.s3ForcePathStyle,
      ...(config.s3AccessKeyId && config.s3SecretAccessKey
        ? {
            credentials: {
              accessKeyId: config.s3AccessKeyId,
              secretAccessKey: config.s3SecretAccessKey,
            },
          }
        : {}),
      // No checksum parameters in presigned URLs: a browser could not satisfy them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  uploadUrl(grant: UploadGrant): Promise<string> {
    assertKey(grant.key);
    return getSignedUrl(
      this.client,
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: INCOMING + grant.key,
        ContentType: grant.contentType,
        ContentLength: grant.size,
      }),
      {
        expiresIn: this.ttlSeconds,
        signableHeaders: new Set(['content-type', 'content-length']),
      },
    );
  }

  downloadUrl(request: DownloadRequest): Promise<string> {
    assertKey(request.key);
    return getSignedUrl(
      this.client,
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: request.key,
        ResponseContentType: request.contentType,
        ResponseContentDisposition: attachmentDisposition(request.fileName),
      }),
      { expiresIn: this.ttlSeconds },
    );
  }

  async write(key: string, bytes: Buffer, contentType: string): Promise<void> {
    assertKey(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.length,
      }),
    );
  }

  async open(key: string): Promise<Readable> {
    assertKey(key);
    const object = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!(object.Body instanceof Readable)) throw new Error('S3 answered no readable body');
    return object.Body;
  }

  async read(key: string, into?: Buffer): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of await this.open(key)) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    if (into === undefined || size > into.length) return Buffer.concat(chunks, size);
    let filled = 0;
    for (const chunk of chunks) filled += chunk.copy(into, filled);
    return into.subarray(0, filled);
  }

  private async head(key: string): Promise<{ size: number; contentType?: string } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * Accepts a client's upload: copies `incoming/<key>` to `<key>` and checks the copy against
   * what was declared. `undefined`: nothing was uploaded (yet). Refused bytes are deleted.
   */
  async promote(key: string, expected: Expected): Promise<Received | undefined> {
    assertKey(key);
    if (!(await this.head(INCOMING + key))) return undefined;
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: key,
        CopySource: `${this.bucket}/${INCOMING}${key}`,
      }),
    );
    const result = await this.check(key, expected);
    await (result.ok ? this.removeObject(INCOMING + key) : this.remove(key));
    return result;
  }

  private async check(key: string, expected: Expected): Promise<Received> {
    const head = await this.head(key);
    if (!head) throw new Error('the copied object vanished');
    const type = head.contentType?.split(';')[0]?.trim().toLowerCase();
    if (head.size > expected.size)
      return {
        ok: false,
        reason: 'too_large',
        detail: `Received ${head.size} bytes; the declared size is ${expected.size}.`,
      };
    if (head.size < expected.size)
      return {
        ok: false,
        reason: 'too_small',
        detail: `Received ${head.size} bytes; the declared size is ${expected.size}.`,
      };
    if (type !== expected.contentType)
      return {
        ok: false,
        reason: 'content',
        detail: `Uploaded as ${type ?? 'no content type'}; declared ${expected.contentType}.`,
      };
    const hash = createHash('sha256');
    const check = new ContentCheck(expected.contentType, this.imageLimits);
    let size = 0;
    for await (const chunk of await this.open(key)) {
      const bytes = chunk as Buffer;
      size += bytes.length;
      if (size > expected.size) break;
      hash.update(bytes);
      check.update(bytes);
    }
    if (size !== expected.size)
      return { ok: false, reason: 'content', detail: 'The object changed while it was checked.' };
    const problem = check.problem();
    if (problem) return { ok: false, reason: 'content', detail: `Content mismatch: ${problem}.` };
    const oversize = check.oversize();
    if (oversize) return { ok: false, reason: 'image_too_large', detail: oversize };
    return { ok: true, sha256: hash.digest('hex') };
  }

  /** One DeleteObject per key: every S3-compatible server has it (DeleteObjects needs MD5s). */
  private async removeObject(objectKey: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
  }

  async remove(key: string): Promise<void> {
    assertKey(key);
    await Promise.all([this.removeObject(key), this.removeObject(INCOMING + key)]);
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
