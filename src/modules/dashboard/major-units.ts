import { minorDigits } from '../../shared/money.js';

/**
 * Minor → major units for answers with thousands of amounts (a daily series answers four
 * per bucket). `toMajor` in shared/money builds and parses a decimal string per amount,
 * which cost most of a 5-year daily series' time; this divides instead, with the same result:
 * IEEE 754 division is correctly rounded, so for an integer |minor| < 2^53 `minor / 10^d` is
 * the double nearest to the exact decimal value — the very double that parsing the decimal
 * string `toMajor` builds yields. Output conversion only: no money arithmetic happens in
 * floating point (balance.property and major-units tests compare it with `toMajor`).
 */
export function majorUnits(currency: string): (minor: number) => number {
  const scale = 10 ** minorDigits(currency);
  return (minor) => minor / scale;
}
