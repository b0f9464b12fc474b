import { describe, expect, it } from 'vitest';
import { addDays, addMonths, computeTerms, currentTermEnd } from './contract-terms.js';

describe('addMonths', () => {
  it.each([
    ['2024-01-31', 1, '2024-02-29'],
    ['2023-01-31', 1, '2023-02-28'],
    ['2024-02-29', 12, '2025-02-28'],
    ['2024-02-29', 48, '2028-02-29'],
    ['2024-03-31', 1, '2024-04-30'],
    ['2024-01-15', 1, '2024-02-15'],
    ['2024-11-30', 3, '2025-02-28'],
    ['2024-12-31', 1, '2025-01-31'],
    ['2024-05-31', -3, '2024-02-29'],
    ['2025-01-10', -1, '2024-12-10'],
    ['2024-06-30', 0, '2024-06-30'],
    ['1999-12-31', 120, '2009-12-31'],
  ])('%s + %i months = %s', (date, months, expected) => {
    expect(addMonths(date, months)).toBe(expected);
  });
});

describe('addDays', () => {
  it.each([
    ['2024-03-01', -1, '2024-02-29'],
    ['2023-03-01', -1, '2023-02-28'],
    ['2024-12-31', 1, '2025-01-01'],
    ['2025-01-01', -365, '2024-01-02'],
    ['2024-06-15', 0, '2024-06-15'],
    // Ten years back over the leap days of 2020 and 2024.
    ['2026-12-31', -3650, '2017-01-02'],
  ])('%s %i days = %s', (date, days, expected) => {
    expect(addDays(date, days)).toBe(expected);
  });
});

describe('computeTerms', () => {
  const today = '2026-03-10';

  it('has no dates without an end date, even when renewing automatically', () => {
    expect(computeTerms({ endDate: null }, today)).toEqual({
      cancellationDeadline: null,
      nextRenewalDate: null,
    });
    expect(computeTerms({ endDate: null, autoRenew: true, noticePeriodDays: 30 }, today)).toEqual({
      cancellationDeadline: null,
      nextRenewalDate: null,
    });
  });

  it('puts the deadline on the end date with zero or no notice', () => {
    expect(computeTerms({ endDate: '2026-12-31' }, today)).toEqual({
      cancellationDeadline: '2026-12-31',
      nextRenewalDate: null,
    });
    expect(computeTerms({ endDate: '2026-12-31', noticePeriodDays: 0 }, today)).toEqual({
      cancellationDeadline: '2026-12-31',
      nextRenewalDate: null,
    });
  });

  it('subtracts the notice period across month ends and leap days', () => {
    expect(computeTerms({ endDate: '2024-03-31', noticePeriodDays: 31 }, '2024-01-01')).toEqual({
      cancellationDeadline: '2024-02-29',
      nextRenewalDate: null,
    });
    expect(
      computeTerms({ endDate: '2027-01-15', noticePeriodDays: 90 }, today).cancellationDeadline,
    ).toBe('2026-10-17');
  });

  it('keeps a past end date without autoRenew (the deadline has passed)', () => {
    expect(computeTerms({ endDate: '2025-06-30', noticePeriodDays: 30 }, today)).toEqual({
      cancellationDeadline: '2025-05-31',
      nextRenewalDate: null,
    });
  });

  it('names the end date as next renewal while it is still ahead', () => {
    expect(
      computeTerms(
        { endDate: '2026-12-31', autoRenew: true, renewalMonths: 12, noticePeriodDays: 90 },
        today,
      ),
    ).toEqual({ cancellationDeadline: '2026-10-02', nextRenewalDate: '2026-12-31' });
  });

  it('treats an end date of today as the current term end (no roll)', () => {
    expect(currentTermEnd({ endDate: today, autoRenew: true, renewalMonths: 1 }, today)).toBe(
      today,
    );
  });

  it('rolls a past term forward by renewalMonths, several terms, until it reaches today', () => {
    // 2022-12-31 + 12 → 2023-12-31 (< today) + 12 → 2024-12-31 … → 2026-12-31.
    expect(
      computeTerms(
        { endDate: '2022-12-31', autoRenew: true, renewalMonths: 12, noticePeriodDays: 92 },
        today,
      ),
    ).toEqual({ cancellationDeadline: '2026-09-30', nextRenewalDate: '2026-12-31' });
    // Quarterly renewals from 2025-01-15: 04-15, 07-15, 10-15, 2026-01-15, 2026-04-15.
    expect(
      currentTermEnd({ endDate: '2025-01-15', autoRenew: true, renewalMonths: 3 }, today),
    ).toBe('2026-04-15');
    // A term end earlier in today's month rolls into the next month.
    expect(
      currentTermEnd({ endDate: '2026-02-05', autoRenew: true, renewalMonths: 1 }, today),
    ).toBe('2026-04-05');
    expect(
      currentTermEnd({ endDate: '2026-02-10', autoRenew: true, renewalMonths: 1 }, today),
    ).toBe('2026-03-10');
  });

  it('defaults renewalMonths to 12 when autoRenew is set', () => {
    expect(currentTermEnd({ endDate: '2025-06-30', autoRenew: true }, today)).toBe('2026-06-30');
  });

  it('counts renewals from the end date, so month ends do not drift', () => {
    // Monthly from 2024-01-31: 02-29, 03-31, 04-30 (not 03-29, 04-29).
    expect(
      currentTermEnd({ endDate: '2024-01-31', autoRenew: true, renewalMonths: 1 }, '2024-03-30'),
    ).toBe('2024-03-31');
    expect(
      currentTermEnd({ endDate: '2024-01-31', autoRenew: true, renewalMonths: 1 }, '2024-04-01'),
    ).toBe('2024-04-30');
    expect(
      currentTermEnd({ endDate: '2024-01-31', autoRenew: true, renewalMonths: 1 }, '2024-02-15'),
    ).toBe('2024-02-29');
  });

  it('handles leap-day term ends over the years', () => {
    expect(
      currentTermEnd({ endDate: '2020-02-29', autoRenew: true, renewalMonths: 12 }, '2023-01-01'),
    ).toBe('2023-02-28');
    expect(
      currentTermEnd({ endDate: '2020-02-29', autoRenew: true, renewalMonths: 12 }, '2024-02-29'),
    ).toBe('2024-02-29');
    expect(
      computeTerms(
        { endDate: '2023-02-28', autoRenew: true, renewalMonths: 12, noticePeriodDays: 1 },
        '2023-06-01',
      ),
    ).toEqual({ cancellationDeadline: '2024-02-27', nextRenewalDate: '2024-02-28' });
  });

  it('stays cheap for decades of monthly renewals', () => {
    expect(
      currentTermEnd({ endDate: '1950-01-31', autoRenew: true, renewalMonths: 1 }, '2026-03-10'),
    ).toBe('2026-03-31');
    expect(
      currentTermEnd({ endDate: '1950-01-31', autoRenew: true, renewalMonths: 7 }, '2026-03-10'),
    ).toBe('2026-06-30');
  });
});
