import type { Problem } from '@kontor/client';
import { ProblemError } from '../../api/problems';

/**
 * A list answer's JSON page. The lists also speak CSV (the type allows a string), which the
 * app never asks for: JSON is the default without an Accept header.
 */
export function unwrapPage<T>(result: { data?: T | string; error?: Problem }): T {
  if (result.error) throw new ProblemError(result.error);
  if (result.data === undefined || typeof result.data === 'string') {
    throw new Error('expected a JSON page');
  }
  return result.data;
}
