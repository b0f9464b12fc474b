import fc from 'fast-check';
import { AppError } from '../../../shared/errors.js';
import type { ParseResult } from './types.js';

/**
 * Property check shared by the parser tests: arbitrary bytes, and `sample` (CRLF lines)
 * damaged by random line replacements and insertions, are parsed or refused with
 * `file_unprocessable` — never another exception.
 */
export function assertSurvivesDamage(parse: (bytes: Buffer) => ParseResult, sample: string): void {
  const survives = (bytes: Buffer): boolean => {
    try {
      parse(bytes);
      return true;
    } catch (error) {
      return error instanceof AppError && error.code === 'file_unprocessable';
    }
  };
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => survives(Buffer.from(bytes))),
    { numRuns: 300 },
  );
  const lines = sample.split('\r\n');
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(lines.length - 1), fc.string({ maxLength: 12 }), fc.boolean())),
      (edits) => {
        const damaged = [...lines];
        for (const [at, text, replace] of edits) {
          if (replace) damaged[at] = text;
          else damaged.splice(at, 0, text);
        }
        return survives(Buffer.from(damaged.join('\r\n')));
      },
    ),
    { numRuns: 300 },
  );
}
