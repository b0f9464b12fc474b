/**
 * Turns a problem answer (RFC 9457) into what a form shows: one error per
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

/** What a form shows of a problem: a message per field it has, and one for the form. */
export interface FormProblem<F extends string> {
  fields: Partial<Record<F, { code: string; message: string }>>;
  /** The problem's detail (or its title), plus the messages of fields the form does not show. */
  form: string;
}

/** Splits a problem's `errors[]` by the form's fields (no form library needed). */
export function splitProblem<F extends string>(
  problem: Problem,
  fields: readonly F[],
): FormProblem<F> {
  const result: FormProblem<F> = { fields: {}, form: problem.detail ?? problem.title };
  const rest: string[] = [];
  for (const entry of problem.errors ?? []) {
    const pointed = fieldOfPointer(entry.path);
    const field = fields.find((name) => name === pointed);
    if (field === undefined) rest.push(entry.message);
    // The first refusal of a field is the one to fix first.
    else result.fields[field] ??= { code: entry.code, message: entry.message };
  }
  if (rest.length > 0) result.form = [result.form, ...rest].join(' ');
  return result;
}

/**
 * For react-hook-form: sets a field error per refused field the form knows (focusing the first)
 * and answers the form-level message.
 */
export function applyProblem<T extends FieldValues>(
  problem: Problem,
  setError: UseFormSetError<T>,
  fields: readonly Path<T>[],
): string {
  const { fields: refused, form } = splitProblem(problem, fields);
  let first = true;
  for (const field of fields) {
    const entry = refused[field];
    if (entry === undefined) continue;
    setError(field, { type: entry.code, message: entry.message }, { shouldFocus: first });
    first = false;
  }
  return form;
}
