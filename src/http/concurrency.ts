import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Optimistic locking (decisions §6, STYLE rule 7). Records carry an integer `version`; a write
 * names the version it read (body `version`, or `If-Match: "<version>"`) and is applied by one
 * compare-and-set statement. When no row matched, a re-read decides: gone → 404, else 409
 * `version_conflict` with the current version, or 412 when the `If-Match` precondition failed.
 */
import type { IfMatch } from '../shared/concurrency.js';

export type { IfMatch };

/** Parses `If-Match`: `"3"`, `W/"3"` is not a strong match and never matches, `*` any version. */
export function readIfMatch(req: FastifyRequest): IfMatch {
  const raw = req.headers['if-match'];
  if (raw === undefined) return undefined;
  const value = raw.trim();
  if (value === '*') return '*';
  const match = /^"(\d{1,9})"$/.exec(value);
  if (!match) return -1; // matches no version: answered as 412
  return Number(match[1]);
}

export function setEtag(reply: FastifyReply, version: number): void {
  reply.header('etag', `"${version}"`);
}
