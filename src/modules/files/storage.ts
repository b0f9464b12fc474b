import type { Config } from '../../config.js';

/** Where file bytes live: local disk (embedded) or S3-compatible object storage. */
export interface FileStorage {
  close(): Promise<void>;
}

export function createStorage(_config: Config, _appSecret: string): FileStorage {
  return { close: async () => {} };
}
