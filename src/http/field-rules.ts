import { isIsoDate } from '../shared/dates.js';
import { minorDigits, toMinor } from '../shared/money.js';
import { AppError, type FieldError } from '../shared/errors.js';

/**
 * Field rules the JSON schema cannot express, shared by every resource: a 400
 * `validation_failed` naming the field by JSON pointer, like the schema's own errors.
 */

/** The `errors` extra of a problem about one body field, for `new AppError(code, detail, …)`. */
export function bodyFieldError(
  name: string,
  message: string,
  code: string,
): { errors: FieldError[] } {
  return { errors: [{ path: `/body/${name}`, message, code }] };
}

export function invalidField(path: string, message: string, code: string): AppError {
  return new AppError('validation_failed', `${path.split('/').pop()} ${message}.`, {
    errors: [{ path, message, code }],
  });
}

/** 400 unless `value` is a real calendar date (the schema only checks the YYYY-MM-DD shape). */
export function assertIsoDate(value: string | null | undefined, path: string): void {
  if (typeof value === 'string' && !isIsoDate(value))
    throw invalidField(path, 'must be a real calendar date, expected YYYY-MM-DD', 'invalid_format');
}

/** Major units → minor units of `currency`; 400 at `path` with more decimals than it has. */
export function minorAmount(amount: number, currency: string, path: string): number {
  const minor = toMinor(amount, currency);
  if (minor === undefined)
    throw invalidField(
      path,
      `must be an amount with at most ${minorDigits(currency)} decimals for ${currency}`,
      'too_many_decimals',
    );
  return minor;
}
