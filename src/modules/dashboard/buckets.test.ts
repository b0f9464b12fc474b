import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addDays,
  bucketsOf,
  daysInclusive,
  INTERVALS,
  isoWeekStart,
  monthEnd,
  monthStart,
} from './buckets.js';

describe('dashboard calendar arithmetic', () => {
  it('finds the Monday of ISO weeks, across month and year ends', () => {
    expect(isoWeekStart('2026-03-10')).toBe('2026-03-09'); // Tuesday
    expect(isoWeekStart('2026-03-09')).toBe('2026-03-09'); // Monday itself
    expect(isoWeekStart('2026-03-15')).toBe('2026-03-09'); // Sunday belongs to the week before
    expect(isoWeekStart('2021-01-01')).toBe('2020-12-28'); // ISO week 53 of 2020
    expect(isoWeekStart('2024-03-01')).toBe('2024-02-26'); // across a leap day
  });

  it('knows month ends, leap years included', () => {
    expect(monthEnd('2024-02-10')).toBe('2024-02-29');
    expect(monthEnd('2023-02-10')).toBe('2023-02-28');
    expect(monthEnd('2100-02-01')).toBe('2100-02-28'); // not a leap year
    expect(monthEnd('2000-02-01')).toBe('2000-02-29'); // a leap year
    expect(monthEnd('2026-12-31')).toBe('2026-12-31');
    expect(monthEnd('2026-04-01')).toBe('2026-04-30');
  });

  it('cuts days, one bucket per calendar day through a leap day', () => {
    const days = bucketsOf('2024-02-27', '2024-03-02', 'day');
    expect(days.map((b) => b.start)).toEqual([
      '2024-02-27',
      '2024-02-28',
      '2024-02-29',
      '2024-03-01',
      '2024-03-02',
    ]);
    expect(days.every((b) => b.start === b.end && !b.partial)).toBe(true);
    expect(daysInclusive('2024-02-27', '2024-03-02')).toBe(5);
  });

  it('cuts ISO weeks Monday to Sunday across a year boundary, clipping the ends', () => {
    expect(bucketsOf('2025-12-24', '2026-01-13', 'week')).toEqual([
      { start: '2025-12-24', end: '2025-12-28', partial: true },
      { start: '2025-12-29', end: '2026-01-04', partial: false },
      { start: '2026-01-05', end: '2026-01-11', partial: false },
      { start: '2026-01-12', end: '2026-01-13', partial: true },
    ]);
  });

  it('cuts calendar months with their real ends', () => {
    expect(bucketsOf('2024-01-15', '2024-04-30', 'month')).toEqual([
      { start: '2024-01-15', end: '2024-01-31', partial: true },
      { start: '2024-02-01', end: '2024-02-29', partial: false },
      { start: '2024-03-01', end: '2024-03-31', partial: false },
      { start: '2024-04-01', end: '2024-04-30', partial: false },
    ]);
    expect(bucketsOf('2023-02-01', '2023-02-28', 'month')).toEqual([
      { start: '2023-02-01', end: '2023-02-28', partial: false },
    ]);
    expect(bucketsOf('2024-02-29', '2024-02-29', 'month')).toEqual([
      { start: '2024-02-29', end: '2024-02-29', partial: true },
    ]);
  });

  it('covers every day of a range exactly once, whatever the interval', () => {
    for (const interval of ['day', 'week', 'month'] as const) {
      const buckets = bucketsOf('2019-11-17', '2026-03-10', interval);
      expect(buckets[0]!.start).toBe('2019-11-17');
      expect(buckets.at(-1)!.end).toBe('2026-03-10');
      const days = buckets.reduce((n, b) => n + daysInclusive(b.start, b.end), 0);
      expect(days).toBe(daysInclusive('2019-11-17', '2026-03-10'));
    }
  });

  it('cuts contiguous calendar periods for any range from 1900 to 2999', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 400_000 }),
        fc.integer({ min: 0, max: 800 }),
        fc.constantFrom(...INTERVALS),
        (offset, length, interval) => {
          const from = addDays('1900-01-01', offset);
          const to = addDays(from, length);
          const buckets = bucketsOf(from, to, interval);
          expect(buckets[0]!.start).toBe(from);
          expect(buckets.at(-1)!.end).toBe(to);
          buckets.forEach((b, i) => {
            if (i > 0) expect(b.start).toBe(addDays(buckets[i - 1]!.end, 1));
            const [start, end] =
              interval === 'day'
                ? [b.start, b.start]
                : interval === 'week'
                  ? [isoWeekStart(b.start), addDays(isoWeekStart(b.start), 6)]
                  : [monthStart(b.start), monthEnd(b.start)];
            expect(b.start >= start && b.end <= end).toBe(true);
            expect(b.partial).toBe(b.start !== start || b.end !== end);
            if (b.partial) expect(i === 0 || i === buckets.length - 1).toBe(true);
          });
        },
      ),
      { numRuns: 300 },
    );
  });
});
