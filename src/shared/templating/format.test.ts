import { describe, expect, it } from 'vitest';
import { compileTemplate } from './compile.js';
import type { AccountData } from './context.js';
import { formatDisplayDate, formatMoney, formatNumber } from './format.js';

describe('templating formats', () => {
  it('writes dates in both date formats, and the German long form', () => {
    expect(formatDisplayDate('2026-03-05', 'DD.MM.YYYY')).toBe('05.03.2026');
    expect(formatDisplayDate('2026-03-05', 'DD/MM/YYYY')).toBe('05/03/2026');
    expect(formatDisplayDate('2026-03-05', 'DD.MM.YYYY', 'long')).toBe('5. März 2026');
    expect(formatDisplayDate('2026-12-31T23:30:00Z', 'DD.MM.YYYY')).toBe('31.12.2026');
    expect(formatDisplayDate('2026-02-30', 'DD.MM.YYYY')).toBeUndefined();
    expect(formatDisplayDate('next week', 'DD.MM.YYYY')).toBeUndefined();
    expect(formatDisplayDate(20260305, 'DD.MM.YYYY')).toBeUndefined();
  });

  it('writes minor units as money in both number formats, without floating point', () => {
    expect(formatMoney(123456, 'EUR', '1.234,56')).toBe('1.234,56 €');
    expect(formatMoney(123456, 'EUR', '1,234.56')).toBe('€1,234.56');
    expect(formatMoney(123456, 'GBP', '1,234.56')).toBe('£1,234.56');
    expect(formatMoney(-5, 'EUR', '1.234,56')).toBe('-0,05 €');
    expect(formatMoney(0, 'EUR', '1.234,56')).toBe('0,00 €');
    expect(formatMoney(123456789012345, 'EUR', '1.234,56')).toBe('1.234.567.890.123,45 €');
    expect(formatMoney(1234567, 'JPY', '1.234,56')).toBe('1.234.567 JPY');
    expect(formatMoney(1234567, 'KWD', '1,234.56')).toBe('KWD 1,234.567');
    expect(formatMoney(1999, 'CHF', '1,234.56')).toBe('CHF 19.99');
    expect(formatMoney('1999', 'EUR', '1.234,56')).toBe('19,99 €');
    // Not integer minor units, or no such currency: not written as money.
    expect(formatMoney(12.5, 'EUR', '1.234,56')).toBeUndefined();
    expect(formatMoney(100, 'XXX', '1.234,56')).toBeUndefined();
  });

  it('writes numbers with grouping, rounding half away from zero on the decimal digits', () => {
    expect(formatNumber(1234567.891, '1.234,56')).toBe('1.234.567,891');
    expect(formatNumber(1234567.891, '1,234.56')).toBe('1,234,567.891');
    expect(formatNumber(1234.5, '1.234,56', 2)).toBe('1.234,50');
    // 1.005 is 1.00499999… in binary: rounding the decimal digits gives the expected 1.01.
    expect(formatNumber(1.005, '1.234,56', 2)).toBe('1,01');
    expect(formatNumber(-2.5, '1,234.56', 0)).toBe('-3');
    expect(formatNumber(999.995, '1,234.56', 2)).toBe('1,000.00');
    expect(formatNumber(1e-7, '1,234.56')).toBe('0.0000001');
    expect(formatNumber(1e21, '1.234,56')).toBe('1.000.000.000.000.000.000.000');
    expect(formatNumber(-0.001, '1,234.56', 2)).toBe('0.00');
    expect(formatNumber('12.5', '1.234,56')).toBe('12,5');
    expect(formatNumber('abc', '1.234,56')).toBeUndefined();
    expect(formatNumber(Number.NaN, '1.234,56')).toBeUndefined();
  });

  it('offers the formats to templates as the date, money and number filters', () => {
    const source =
      '{{ contract.startDate | date }}|{{ today | date: "long" }}|{{ contract.totalValue | money: contract.currency }}|{{ fields.betrag | money }}|{{ fields.menge | number: 2 }}|{{ "now" | date }}';
    const fields = [
      { key: 'betrag', label: 'Betrag', type: 'money' as const, default: 1234.5 },
      { key: 'menge', label: 'Menge', type: 'number' as const, default: 1234.565 },
    ];
    const account = (
      dateFormat: AccountData['dateFormat'],
      numberFormat: AccountData['numberFormat'],
    ) => ({
      name: 'Kontor GmbH',
      currency: 'EUR',
      dateFormat,
      numberFormat,
    });
    const data = {
      today: '2026-03-05',
      contract: {
        name: 'Wartung',
        startDate: '2025-01-31',
        totalValue: 1234567.89,
        currency: 'GBP',
      },
      fields: {},
    };
    const de = compileTemplate(
      { contentSource: source, fields },
      { account: account('DD.MM.YYYY', '1.234,56'), data },
    );
    expect(de.problems).toEqual([]);
    expect(de.compiledContentHtml).toBe(
      '31.01.2025|5. März 2026|1.234.567,89 £|1.234,50 €|1.234,57|05.03.2026',
    );
    const en = compileTemplate(
      { contentSource: source, fields },
      { account: account('DD/MM/YYYY', '1,234.56'), data },
    );
    expect(en.compiledContentHtml).toBe(
      '31/01/2025|5. März 2026|£1,234,567.89|€1,234.50|1,234.57|05/03/2026',
    );
  });

  it('reports a filter used with a wrong argument as a render error', () => {
    const result = compileTemplate(
      { contentSource: 'Datum:\n{{ today | date: "%Y-%m-%d" }}' },
      {
        account: { name: 'K', currency: 'EUR', dateFormat: 'DD.MM.YYYY', numberFormat: '1.234,56' },
        today: '2026-01-02',
      },
    );
    expect(result.problems).toEqual([
      expect.objectContaining({ part: 'content', code: 'render_error', line: 2, column: 1 }),
    ]);
  });
});
