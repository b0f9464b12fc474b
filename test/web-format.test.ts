/**
 * The web app's reading and writing of numbers (web/src/format.ts) in the account's number
 * format, and what an edit sends to a partial update (web/src/api/changes.ts).
 */
import { describe, expect, it } from 'vitest';
import { changedOnly } from '../web/src/api/changes.js';
import {
  formatDate,
  formatDecimalInput,
  formatMoney,
  makeFormats,
  parseDecimal,
  taxRateLabel,
} from '../web/src/format.js';

const plain = (text: string) => text.replace(/\s/g, ' ');

describe('web number formats', () => {
  it('reads what a person typed in the German format', () => {
    expect(parseDecimal('85,50', '1.234,56')).toBe(85.5);
    expect(parseDecimal('1.234,5', '1.234,56')).toBe(1234.5);
    expect(parseDecimal(' 12 ', '1.234,56')).toBe(12);
    // Too many decimals is the API's to refuse, not the parser's.
    expect(parseDecimal('85,505', '1.234,56')).toBe(85.505);
    expect(parseDecimal('-3', '1.234,56')).toBe(-3);
  });

  it('reads the English format, and refuses what is no number', () => {
    expect(parseDecimal('1,234.56', '1,234.56')).toBe(1234.56);
    expect(parseDecimal('abc', '1.234,56')).toBeNull();
    expect(parseDecimal('', '1.234,56')).toBeNull();
    expect(parseDecimal('1,2,3', '1.234,56')).toBeNull();
  });

  it('writes money, input values and tax rate labels in the account format', () => {
    expect(plain(formatMoney(92, 'EUR', '1.234,56'))).toBe('92,00 €');
    expect(formatDecimalInput(85.5, '1.234,56')).toBe('85,5');
    expect(formatDecimalInput(1234.5, '1,234.56')).toBe('1234.5');
    expect(taxRateLabel({ name: 'USt 19 %', rate: 19 }, '1.234,56')).toBe('USt 19 %');
    expect(plain(taxRateLabel({ name: 'Ausfuhr', rate: 0 }, '1.234,56'))).toBe('Ausfuhr (0 %)');
  });

  it('writes days in the account date format, and binds the account formats for a screen', () => {
    expect(formatDate('2026-11-28', 'DD.MM.YYYY')).toBe('28.11.2026');
    expect(formatDate('2026-11-28T10:00:00Z', 'DD/MM/YYYY')).toBe('28/11/2026');
    expect(formatDate(null, 'DD.MM.YYYY')).toBe('–');
    const formats = makeFormats({
      numberFormat: '1,234.56',
      dateFormat: 'DD/MM/YYYY',
      currency: 'GBP',
    });
    expect(formats.money(1234.5)).toBe('£1,234.50');
    expect(plain(formats.money(5, 'EUR'))).toBe('€5.00');
    expect(formats.date('2026-01-02')).toBe('02/01/2026');
    expect(formats.date(null)).toBe('');
    expect(formats.percent(5.5)).toBe('5.5');
    expect(makeFormats(undefined).percent(5.5)).toBe('5,5');
    expect(plain(makeFormats(undefined).money(92))).toBe('92,00 €');
  });
});

describe('web partial updates', () => {
  it('sends only the fields the user changed', () => {
    const body = { name: 'Beratung', unitPrice: 95, description: null };
    expect(changedOnly(body, { unitPrice: true })).toEqual({ unitPrice: 95 });
    expect(changedOnly(body, {})).toEqual({});
  });
});
