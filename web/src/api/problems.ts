/**
 * Turns a problem answer (RFC 9457) into what a react-hook-form form shows: one error per
 * refused field (`errors[].path` is a JSON pointer such as `/body/email` or `/email`) and a
 * form-level message with the problem's `detail`. Fields the form does not have go into the
 * form-level message too, so nothing the server said is lost.
 */
import type { Problem } from '@kontor/client';
import type { FieldValues, Path, UseFormSetError } from 'react-hook-form';

/** The field name a problem's pointer names, e.g. `/body/email` → `email`. */
export function fieldOfPointer(pointer: string): string {
  const parts = pointer
    .split('/')
    .filter((part) => part !== '')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (parts[0] === 'body') parts.shift();
  return parts.join('.');
}

/** A problem answer thrown as an Error (query functions throw, and lint wants Errors thrown). */
export class ProblemError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail ?? problem.title);
    this.name = 'ProblemError';
  }
}

/**
 * Sets a field error per refused field the form knows; answers the form-level message: the
 * problem's detail (or its title), plus the messages of fields the form does not show.
 */
export function applyProblem<T extends FieldValues>(
  problem: Problem,
  setError: UseFormSetError<T>,
  fields: readonly Path<T>[],
): string {
  const rest: string[] = [];
  let first = true;
  for (const entry of problem.errors ?? []) {
    const field = fieldOfPointer(entry.path);
    const known = fields.find((name) => name === field);
    if (known === undefined) {
      rest.push(entry.message);
      continue;
    }
    setError(known, { type: entry.code, message: entry.message }, { shouldFocus: first });
    first = false;
  }
  const summary = problem.detail ?? problem.title;
  return rest.length > 0 ? [summary, ...rest].join(' ') : summary;
}
