import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeTotals, divRoundHalfUp, scaled } from './totals.js';

describe('invoice totals', () => {
  it('rounds half away from zero', () => {
    expect(divRoundHalfUp(5n, 10n)).toBe(1n);
    expect(divRoundHalfUp(4n, 10n)).toBe(0n);
    expect(divRoundHalfUp(-5n, 10n)).toBe(-1n);
    expect(divRoundHalfUp(-4n, 10n)).toBe(0n);
    expect(divRoundHalfUp(15n, 10n)).toBe(2n);
  });

  it('scales decimals exactly and refuses extra digits', () => {
    expect(scaled(1.5, 3)).toBe(1500);
    expect(scaled(0.001, 3)).toBe(1);
    expect(scaled(0.0001, 3)).toBeUndefined();
    expect(scaled(2, 3)).toBe(2000);
  });

  it('computes VAT per rate on the net sum, not per line', () => {
    // Three lines of 0.05 EUR at 19 %: per line 0.0095 → 0.01 each (0.03); on the sum 0.15 → 0.03.
    // Three lines of 0.10 at 19 %: per line 0.019 → 0.02 each (0.06); on the sum 0.30 → 0.057 → 0.06.
    // 7 lines of 0.07 at 7 %: per line 0.0049 → 0.00 (0.00); on the sum 0.49 → 0.0343 → 0.03.
    const lines = [
      ...Array.from({ length: 7 }, () => ({
        quantityMilli: 1000,
        unitPriceMinor: 7,
        taxRateId: 'r7',
        rateBp: 700,
      })),
      { quantityMilli: 2500, unitPriceMinor: 1999, taxRateId: 'r19', rateBp: 1900 },
      { quantityMilli: 1000, unitPriceMinor: 10000, taxRateId: 'r0', rateBp: 0 },
    ];
    const t = computeTotals(lines);
    expect(t.lineNets.slice(-2)).toEqual([4998, 10000]); // 2.5 × 19.99 = 49.975 → 49.98
    expect(t.byRate).toEqual([
      { taxRateId: 'r19', rateBp: 1900, netMinor: 4998, taxMinor: 950 }, // 9.4962 → 9.50
      { taxRateId: 'r7', rateBp: 700, netMinor: 49, taxMinor: 3 },
      { taxRateId: 'r0', rateBp: 0, netMinor: 10000, taxMinor: 0 },
    ]);
    expect(t).toMatchObject({ netMinor: 15047, taxMinor: 953, grossMinor: 16000 });
  });

  it('gross is always net + tax, and the rate nets add up to the net (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            quantityMilli: fc.integer({ min: 1, max: 10_000_000 }),
            unitPriceMinor: fc.integer({ min: -1_000_000, max: 100_000_000 }),
            taxRateId: fc.constantFrom('a', 'b', 'c'),
          }),
          { minLength: 1, maxLength: 30 },
        ),
        (raw) => {
          const rates: Record<string, number> = { a: 1900, b: 700, c: 0 };
          const t = computeTotals(raw.map((l) => ({ ...l, rateBp: rates[l.taxRateId]! })));
          expect(t.grossMinor).toBe(t.netMinor + t.taxMinor);
          expect(t.byRate.reduce((s, r) => s + r.netMinor, 0)).toBe(t.netMinor);
          expect(t.lineNets.reduce((s, n) => s + n, 0)).toBe(t.netMinor);
          for (const r of t.byRate)
            expect(Math.abs(r.taxMinor * 10_000 - r.netMinor * r.rateBp)).toBeLessThanOrEqual(
              5_000,
            );
        },
      ),
    );
  });
});
