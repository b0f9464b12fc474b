import { readFileSync } from 'node:fs';

/**
 * Kontor's version, from its `package.json` (one folder above `src/` and `dist/` alike): the
 * API reference shows it, so a reader knows which release the document describes.
 */
export const KONTOR_VERSION: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;
