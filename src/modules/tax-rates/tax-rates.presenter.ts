import type { TaxRate } from './tax-rates.schemas.js';
import type { TaxRateRow } from './tax-rates.repository.js';

/** Basis points → percentage through the decimal string: 750 → "7.50" → 7.5, never 750 / 100. */
export function basisPointsToPercent(bp: number): number {
  const sign = bp < 0 ? '-' : '';
  const digits = Math.abs(bp).toString().padStart(3, '0');
  return Number(`${sign}${digits.slice(0, -2)}.${digits.slice(-2)}`);
}

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentTaxRate(row: TaxRateRow): TaxRate {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    rate: basisPointsToPercent(row.rate_bp),
    isDefault: row.is_default === 1,
    category: row.category as TaxRate['category'],
    exemptionReason: row.exemption_reason,
    exemptionCode: row.exemption_code,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
