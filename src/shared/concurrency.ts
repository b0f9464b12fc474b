import { AppError } from './errors.js';

/**
 * Optimistic locking (decisions §6, STYLE rule 7): a write names the version it read and is
 * applied by one compare-and-set statement; when no row matched, a re-read decides 404, 409
 * `version_conflict` with the current version, or 412 when an `If-Match` precondition failed.
 * `src/http/concurrency.ts` reads `If-Match` and writes `ETag`.
 */

/** The `If-Match` of a request: a version, `*` (any), -1 (matches none), or absent. */
export type IfMatch = number | '*' | undefined;

export interface CasOptions<R> {
  /** The version the client read (body `version`); undefined for writes without one (DELETE). */
  expected: number | undefined;
  ifMatch: IfMatch;
  what: string;
  /** The compare-and-set: applies the write only where the version equals `version` (if given). */
  run: (version: number | undefined) => Promise<R | undefined>;
  /** The stored version, or undefined when the record does not exist. */
  current: () => Promise<number | undefined>;
}

/** Runs a versioned write and turns "no row matched" into the right problem. */
export async function compareAndSet<R>(opts: CasOptions<R>): Promise<R> {
  const explicit = typeof opts.ifMatch === 'number' ? opts.ifMatch : undefined;
  if (explicit !== undefined && opts.expected !== undefined && explicit !== opts.expected) {
    // Body and header disagree: at most one can be current, and nothing is written.
    const current = await opts.current();
    if (current === undefined) throw new AppError('not_found', `${opts.what} not found.`);
    if (current !== explicit) throw preconditionFailed(current);
    throw versionConflict(opts.what, current);
  }
  const result = await opts.run(opts.expected ?? explicit);
  if (result !== undefined) return result;
  const current = await opts.current();
  if (current === undefined) throw new AppError('not_found', `${opts.what} not found.`);
  if (explicit !== undefined && explicit !== current) throw preconditionFailed(current);
  throw versionConflict(opts.what, current);
}

export function versionConflict(what: string, currentVersion: number): AppError {
  return new AppError(
    'version_conflict',
    `${what} was changed by someone else (current version ${currentVersion}). Re-read it and apply your change again.`,
    { members: { currentVersion } },
  );
}

function preconditionFailed(currentVersion: number): AppError {
  return new AppError(
    'precondition_failed',
    `If-Match does not match the current version ${currentVersion}.`,
    {
      members: { currentVersion },
    },
  );
}
