/**
 * Invoice arithmetic in integer minor units (decisions §6, §9): each line's net is quantity ×
 * unit price rounded half-up to the cent; VAT is computed per rate on the sum of the nets of
 * that rate (not per line), rounded half-up; gross = net + VAT. BigInt throughout, so no
 * binary floating point touches an amount.
 */

export interface PricedLine {
  /** Quantity in thousandths (1.5 → 1500). */
  quantityMilli: number;
  unitPriceMinor: number;
  taxRateId: string;
  rateBp: number;
}

export interface RateTotal {
  taxRateId: string;
  rateBp: number;
  netMinor: number;
  taxMinor: number;
}

export interface Totals {
  lineNets: number[];
  byRate: RateTotal[];
  netMinor: number;
  taxMinor: number;
  grossMinor: number;
}

/** `numerator / denominator` rounded half away from zero (commercial rounding). */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const q = (n * 2n + d) / (d * 2n);
  return negative ? -q : q;
}

/** A decimal JSON number → integer scaled by 10^digits, or undefined with more digits. */
export function scaled(value: number, digits: number): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(String(value));
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > digits) return undefined;
  const n = Number(`${whole}${fraction.padEnd(digits, '0')}`);
  if (!Number.isSafeInteger(n)) return undefined;
  return sign === '-' ? -n : n;
}

export function computeTotals(lines: PricedLine[]): Totals {
  const lineNets = lines.map((l) =>
    divRoundHalfUp(BigInt(l.quantityMilli) * BigInt(l.unitPriceMinor), 1000n),
  );
  const rates = new Map<string, { rateBp: number; net: bigint }>();
  lines.forEach((l, i) => {
    const entry = rates.get(l.taxRateId) ?? { rateBp: l.rateBp, net: 0n };
    entry.net += lineNets[i]!;
    rates.set(l.taxRateId, entry);
  });
  const byRate: RateTotal[] = [];
  let net = 0n;
  let tax = 0n;
  for (const [taxRateId, { rateBp, net: rateNet }] of rates) {
    const rateTax = divRoundHalfUp(rateNet * BigInt(rateBp), 10_000n);
    byRate.push({ taxRateId, rateBp, netMinor: Number(rateNet), taxMinor: Number(rateTax) });
    net += rateNet;
    tax += rateTax;
  }
  byRate.sort((a, b) => b.rateBp - a.rateBp);
  return {
    lineNets: lineNets.map(Number),
    byRate,
    netMinor: Number(net),
    taxMinor: Number(tax),
    grossMinor: Number(net + tax),
  };
}
