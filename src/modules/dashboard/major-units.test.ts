import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toMajor } from '../../shared/money.js';
import { majorUnits } from './major-units.js';

describe('majorUnits', () => {
  it('answers exactly what toMajor answers, for every safe integer and digit count', () => {
    for (const currency of ['EUR', 'JPY', 'KWD']) {
      const major = majorUnits(currency);
      fc.assert(
        fc.property(
          fc.oneof(
            fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
            fc.maxSafeInteger(),
            fc.constantFrom(0, 1, -1, 5, 10, 99, 101, 999, Number.MAX_SAFE_INTEGER),
          ),
          (minor) => {
            expect(major(minor)).toBe(toMajor(minor, currency));
          },
        ),
        { numRuns: 20_000 },
      );
    }
  });
});
