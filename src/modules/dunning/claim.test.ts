import { describe, expect, it } from 'vitest';
import { PUBLISHED_BASE_RATES, baseRateOn, baseRates } from './base-rates.js';
import {
  daysBetween,
  defaultInterest,
  defaultStarts,
  nextClaim,
  type InvoiceFigures,
  type Level,
} from './claim.js';

const rates = baseRates([]);

const LEVELS: Level[] = [
  { kind: 'PAYMENT_REMINDER', daysAfter: 7, feeMinor: 0, defaultInterest: false },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
  { kind: 'DUNNING', daysAfter: 14, feeMinor: 250, defaultInterest: true },
];

/** EUR 1000 due 2025-08-01 (base rate 1.27 throughout), nothing paid, no letter yet. */
function figures(over: Partial<InvoiceFigures> = {}): InvoiceFigures {
  return {
    dueDate: '2025-08-01',
    currency: 'EUR',
    openMinor: 100000,
    level: 0,
    lastDunnedAt: null,
    firstDunnedAt: null,
    priorFeesMinor: 0,
    priorFlatFeeMinor: 0,
    business: false,
    ...over,
  };
}

/** After the reminder (2025-08-08), due for level 2 on 2025-08-22. */
const afterReminder = { level: 1, firstDunnedAt: '2025-08-08', lastDunnedAt: '2025-08-08' };
const claim = (f: InvoiceFigures, asOf: string, flatFee = true) =>
  nextClaim(f, LEVELS, asOf, { rates, flatFee });

describe('base rates', () => {
  it('picks the rate in force on a day', () => {
    expect(baseRateOn(rates, '2024-06-30')).toBe(3.62);
    expect(baseRateOn(rates, '2024-07-01')).toBe(3.37);
    expect(baseRateOn(rates, '2025-07-01')).toBe(1.27);
    expect(baseRateOn(rates, '2030-01-01')).toBe(1.27);
    // Before the table's first day (2016-07-01): its first rate.
    expect(baseRateOn(rates, '2010-01-01')).toBe(-0.88);
  });

  it('merges configured entries into the published table, sorted', () => {
    expect(baseRates([])).toEqual(PUBLISHED_BASE_RATES);
    const merged = baseRates([
      { from: '2027-01-01', percent: 1.5 },
      { from: '2026-07-01', percent: 0.9 }, // a new day
      { from: '2025-01-01', percent: 2.5 }, // replaces 2.27
    ]);
    expect(merged).toHaveLength(PUBLISHED_BASE_RATES.length + 2);
    const days = merged.map((r) => r.from);
    expect(days).toEqual([...days].sort());
    expect(merged.slice(-3)).toEqual([
      { from: '2026-01-01', percent: 1.27 },
      { from: '2026-07-01', percent: 0.9 },
      { from: '2027-01-01', percent: 1.5 },
    ]);
    expect(baseRateOn(merged, '2025-03-01')).toBe(2.5);
    expect(baseRateOn(merged, '2026-08-01')).toBe(0.9);
  });
});

describe('defaultInterest', () => {
  it('counts both ends within one half-year', () => {
    // 2025-08-01..2025-08-30 = 30 days at 1.27 + 9 = 10.27 %:
    // 1000 * 0.1027 * 30 / 365 = 8.4411 EUR → 844
    expect(defaultInterest(100000, '2025-08-01', '2025-08-30', rates, 9)).toBe(844);
    // One day: 1000 * 0.1027 / 365 = 0.2814 EUR → 28
    expect(defaultInterest(100000, '2025-08-01', '2025-08-01', rates, 9)).toBe(28);
    expect(daysBetween('2025-08-01', '2025-08-30')).toBe(29);
  });

  it('sums the segments of a span crossing a rate change', () => {
    // 2025-06-21..30: 10 days at 2.27 + 9 = 11.27; 2025-07-01..10: 10 days at 1.27 + 9 = 10.27
    // 1000 * (0.1127 * 10 + 0.1027 * 10) / 365 = 1000 * 2.154 / 365 = 5.9014 EUR → 590
    // (all at 11.27: 618; all at 10.27: 563)
    expect(defaultInterest(100000, '2025-06-21', '2025-07-10', rates, 9)).toBe(590);
  });

  it('is 0 for an empty span or nothing open', () => {
    expect(defaultInterest(100000, '2025-08-02', '2025-08-01', rates, 9)).toBe(0);
    expect(defaultInterest(0, '2025-08-01', '2025-08-30', rates, 9)).toBe(0);
    expect(defaultInterest(-500, '2025-08-01', '2025-08-30', rates, 9)).toBe(0);
  });

  it('never runs at a negative rate', () => {
    // 2020: base -0.88 + 0 → 0 %
    expect(defaultInterest(100000, '2020-01-01', '2020-12-31', rates, 0)).toBe(0);
  });

  it('rounds half up, once at the end', () => {
    // 2025-08-01..2025-10-12 = 31 + 30 + 12 = 73 days at 1.27 + 5 = 6.27 %:
    // 250 * 0.0627 * 73 / 365 = 3.135 EUR exactly → 314
    expect(defaultInterest(25000, '2025-08-01', '2025-10-12', rates, 5)).toBe(314);
    // Two one-day segments of 29.20 * 0.05 / 365 = 0.004 EUR = 0.4 minor each:
    // rounded once 0.8 → 1 (rounded per segment it would be 0)
    const flat = [
      { from: '2020-01-01', percent: 0 },
      { from: '2020-01-02', percent: 0 },
    ];
    expect(defaultInterest(2920, '2020-01-01', '2020-01-02', flat, 5)).toBe(1);
  });
});

describe('defaultStarts', () => {
  it('a consumer is in default only after a letter', () => {
    expect(defaultStarts(figures())).toBeNull();
    expect(defaultStarts(figures({ firstDunnedAt: '2025-08-08' }))).toBe('2025-08-09');
  });

  it('a business is in default 30 days after due date, or after an earlier letter', () => {
    // 2025-08-01 + 31 days
    expect(defaultStarts(figures({ business: true }))).toBe('2025-09-01');
    const f = figures({ business: true, firstDunnedAt: '2025-08-08' });
    expect(defaultStarts(f)).toBe('2025-08-09');
    const late = figures({ business: true, firstDunnedAt: '2025-09-15' });
    expect(defaultStarts(late)).toBe('2025-09-01');
  });
});

describe('nextClaim', () => {
  it('claims the reminder 7 days after the due date, without interest or fees', () => {
    expect(claim(figures(), '2025-08-07')).toBeUndefined();
    expect(claim(figures(), '2025-08-08')).toEqual({
      level: 1,
      kind: 'PAYMENT_REMINDER',
      dunningNumber: 0,
      finalNotice: false,
      openMinor: 100000,
      creditedMinor: 0,
      feeMinor: 0,
      priorFeesMinor: 0,
      interestMinor: 0,
      interestRate: null,
      interestFrom: null,
      flatFeeMinor: 0,
      totalMinor: 100000,
    });
  });

  it('claims what is open, nothing once paid', () => {
    const partial = claim(figures({ openMinor: 60000 }), '2025-08-08');
    expect(partial).toMatchObject({ openMinor: 60000, totalMinor: 60000 });
    expect(claim(figures({ openMinor: 0 }), '2025-08-08')).toBeUndefined();
  });

  it('claims nothing once every level was sent', () => {
    const f = figures({ level: 4, firstDunnedAt: '2025-08-08', lastDunnedAt: '2025-09-19' });
    expect(claim(f, '2026-01-01')).toBeUndefined();
  });

  it('claims the first Mahnung from a consumer with interest at base + 5', () => {
    expect(claim(figures(afterReminder), '2025-08-21')).toBeUndefined();
    // 2025-08-09..22 = 14 days at 6.27 %: 1000 * 0.0627 * 14 / 365 = 2.4049 EUR → 240
    expect(claim(figures(afterReminder), '2025-08-22')).toEqual({
      level: 2,
      kind: 'DUNNING',
      dunningNumber: 1,
      finalNotice: false,
      openMinor: 100000,
      creditedMinor: 0,
      feeMinor: 250,
      priorFeesMinor: 0,
      interestMinor: 240,
      interestRate: 6.27,
      interestFrom: '2025-08-09',
      flatFeeMinor: 0, // consumer
      totalMinor: 100490, // 100000 + 250 + 240
    });
  });

  it('claims the flat fee from a business as a top-up to EUR 40', () => {
    const f = figures({ ...afterReminder, business: true });
    // 14 days at 10.27 %: 1000 * 0.1027 * 14 / 365 = 3.9392 EUR → 394; flat 4000 - 250 = 3750
    expect(claim(f, '2025-08-22')).toMatchObject({
      interestMinor: 394,
      interestRate: 10.27,
      interestFrom: '2025-08-09',
      flatFeeMinor: 3750,
      totalMinor: 104394, // 100000 + 250 + 394 + 3750
    });
    // Level 3: 2025-08-09..09-05 = 23 + 5 = 28 days: 1000 * 0.1027 * 28 / 365 = 7.8784 → 788;
    // flat 4000 - (250 + 250) = 3500
    const third = { level: 2, lastDunnedAt: '2025-08-22', priorFeesMinor: 250 };
    expect(claim({ ...f, ...third, priorFlatFeeMinor: 3750 }, '2025-09-05')).toMatchObject({
      dunningNumber: 2,
      interestMinor: 788,
      flatFeeMinor: 3500,
      totalMinor: 104788, // 100000 + 500 + 788 + 3500
    });
    // Fees above EUR 40 already: no top-up
    expect(claim({ ...f, priorFeesMinor: 3900 }, '2025-08-22')?.flatFeeMinor).toBe(0);
  });

  it('claims no flat fee outside EUR, when switched off, or on a first reminder', () => {
    const f = figures({ ...afterReminder, business: true });
    const chf = claim({ ...f, currency: 'CHF' }, '2025-08-22');
    expect(chf).toMatchObject({ flatFeeMinor: 0, totalMinor: 100644 }); // 100000 + 250 + 394
    expect(claim(f, '2025-08-22', false)?.flatFeeMinor).toBe(0);
    // A business in default since 2025-09-01, reminded on 2025-09-10: no flat fee yet
    const reminder = claim(figures({ business: true }), '2025-09-10');
    expect(reminder).toMatchObject({ kind: 'PAYMENT_REMINDER', flatFeeMinor: 0 });
  });

  it('marks the last level as final notice', () => {
    const f = figures({
      level: 3,
      firstDunnedAt: '2025-08-08',
      lastDunnedAt: '2025-09-05',
      priorFeesMinor: 500,
    });
    expect(claim(f, '2025-09-18')).toBeUndefined();
    // 2025-08-09..09-19 = 23 + 19 = 42 days at 6.27 %: 1000 * 0.0627 * 42 / 365 = 7.2148 → 721
    expect(claim(f, '2025-09-19')).toMatchObject({
      level: 4,
      dunningNumber: 3,
      finalNotice: true,
      interestMinor: 721,
      totalMinor: 101471, // 100000 + 500 + 250 + 721
    });
  });

  it('gives the rate on the as-of day rounded to 2 decimals', () => {
    const odd = baseRates([{ from: '2025-08-15', percent: 1.234 }]);
    const c = nextClaim(figures(afterReminder), LEVELS, '2025-08-22', {
      rates: odd,
      flatFee: true,
    });
    expect(c?.interestRate).toBe(6.23); // 1.234 + 5 = 6.234
    // 2024: 3.62 until 2024-06-30, 3.37 from 2024-07-01
    const jun = figures({ dueDate: '2024-06-01', level: 1, firstDunnedAt: '2024-06-08' });
    const june = { ...jun, lastDunnedAt: '2024-06-16' };
    expect(claim(june, '2024-06-30')?.interestRate).toBe(8.62); // 3.62 + 5
    expect(claim({ ...june, business: true }, '2024-07-01')?.interestRate).toBe(12.37); // 3.37 + 9
  });
});

describe('what the letter that starts the default may claim', () => {
  const rates = baseRates([]);
  const mahnungOnly: Level[] = [
    { kind: 'DUNNING', daysAfter: 7, feeMinor: 500, defaultInterest: true },
  ];
  const consumer = figures();

  it('charges no fee on the letter that first puts a consumer in default', () => {
    const claim = nextClaim(consumer, mahnungOnly, '2025-08-08', { rates, flatFee: true })!;
    // The letter itself starts the default: interest from tomorrow, so none yet, and no fee.
    expect(claim).toMatchObject({ feeMinor: 0, interestMinor: 0, totalMinor: 100000 });
  });

  it('charges it from a business already in default 30 days after the due date', () => {
    const claim = nextClaim({ ...consumer, business: true }, mahnungOnly, '2025-09-10', {
      rates,
      flatFee: true,
    })!;
    expect(claim.feeMinor).toBe(500);
  });

  it('claims only what credit notes left open', () => {
    const credited = { ...consumer, openMinor: 70000, creditedMinor: 30000 };
    const claim = nextClaim(credited, mahnungOnly, '2025-08-08', { rates, flatFee: true })!;
    expect(claim).toMatchObject({ openMinor: 70000, creditedMinor: 30000, totalMinor: 70000 });
  });
});
