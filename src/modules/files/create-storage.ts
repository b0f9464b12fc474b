import type { Config } from '../../config.js';
import { LocalFileStorage, type FileStorage } from './storage.js';

/**
 * S3-compatible storage when `S3_BUCKET` is set; local disk under `DATA_DIR/files` otherwise.
 * The S3 SDK is loaded only for S3: it is about a tenth of a started server's heap, which
 * every full collection marks (docs/benchmarks.md).
 */
export async function createStorage(config: Config, appSecret: string): Promise<FileStorage> {
  if (!config.s3Bucket) return new LocalFileStorage(config, appSecret);
  const { S3FileStorage } = await import('./storage.s3.js');
  return new S3FileStorage(config, config.s3Bucket);
}
