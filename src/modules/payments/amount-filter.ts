import { CURRENCIES, minorDigits } from '../../shared/money.js';
import type { AmountBounds } from './payments.repository.js';

/**
 * `value × 10^digits` rounded up or down to an integer, computed on the decimal digits of the
 * number's shortest representation (never by floating-point multiplication, which would turn
 * 0.1 EUR into 10.000000000000002 cents).
 */
export function scaleDecimal(value: number, digits: number, round: 'up' | 'down'): number {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`Not a non-negative decimal: ${value}`);
  const [, whole, fraction = '', exp = '0'] = match;
  const all = `${whole}${fraction}`;
  // Position of the decimal point in `all` after scaling by 10^(digits + exponent).
  const point = (whole ?? '').length + digits + Number(exp);
  const padded = point > all.length ? all.padEnd(point, '0') : all;
  const intPart = point <= 0 ? '0' : padded.slice(0, point);
  const rest = point <= 0 ? padded : padded.slice(point);
  const int = Number(intPart);
  return round === 'up' && /[1-9]/.test(rest) ? int + 1 : int;
}

/** Currencies grouped by their number of decimals (0, 2, 3). */
const GROUPS = [...new Set(CURRENCIES.map(minorDigits))].map((digits) => ({
  digits,
  currencies: CURRENCIES.filter((c) => minorDigits(c) === digits),
}));

/**
 * `minAmount`/`maxAmount` in major units as minor-unit bounds per currency group, since "at
 * least 10" is 1000 cents but 10 yen. Undefined without bounds.
 */
export function amountBounds(min?: number, max?: number): AmountBounds | undefined {
  if (min === undefined && max === undefined) return undefined;
  return {
    groups: GROUPS.map((g) => ({
      currencies: g.currencies,
      min: min === undefined ? undefined : scaleDecimal(min, g.digits, 'up'),
      max: max === undefined ? undefined : scaleDecimal(max, g.digits, 'down'),
    })),
  };
}
