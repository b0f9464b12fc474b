/**
 * The web app's reading of problem answers (web/src/api/problems.ts): which field a pointer
 * names, and how a problem splits into field errors and a form-level message.
 */
import { describe, expect, it } from 'vitest';
import type { Problem } from '@kontor/client';
import { fieldOfPointer, splitProblem } from '../web/src/api/problems.js';

const problem = (extra: Partial<Problem>): Problem => ({
  type: 'about:blank',
  title: 'Validation failed',
  status: 400,
  code: 'validation_failed',
  requestId: 'req_1',
  ...extra,
});

describe('web problems', () => {
  it('reads the field from a body pointer, a bare pointer and an escaped one', () => {
    expect(fieldOfPointer('/body/email')).toBe('email');
    expect(fieldOfPointer('/email')).toBe('email');
    expect(fieldOfPointer('/body/address/city')).toBe('address.city');
    expect(fieldOfPointer('/body/a~1b')).toBe('a/b');
  });

  it('puts known fields on the fields and the rest into the form message', () => {
    const split = splitProblem(
      problem({
        detail: 'Two fields are wrong.',
        errors: [
          { path: '/body/email', message: 'must be an email', code: 'format' },
          { path: '/body/email', message: 'second word on email', code: 'other' },
          { path: '/body/vatId', message: 'unknown VAT ID', code: 'invalid' },
        ],
      }),
      ['email', 'password'] as const,
    );
    expect(split.fields).toEqual({ email: { code: 'format', message: 'must be an email' } });
    expect(split.form).toBe('Two fields are wrong. unknown VAT ID');
  });

  it('falls back to the title when the problem has no detail', () => {
    expect(splitProblem(problem({}), ['email']).form).toBe('Validation failed');
  });
});
