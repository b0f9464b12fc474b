import type { Config } from '../../config.js';
import { LocalFileStorage, type FileStorage } from './storage.js';
import { S3FileStorage } from './storage.s3.js';

/** S3-compatible storage when `S3_BUCKET` is set; local disk under `DATA_DIR/files` otherwise. */
export function createStorage(config: Config, appSecret: string): FileStorage {
  return config.s3Bucket
    ? new S3FileStorage(config, config.s3Bucket)
    : new LocalFileStorage(config, appSecret);
}
