import { toMajor } from '../../shared/money.js';
import { unitCodeOf } from '../../shared/units.js';
import type { Product } from './products.schemas.js';
import type { ProductRow } from './products.repository.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentProduct(row: ProductRow): Product {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    type: row.type as Product['type'],
    unitPrice: toMajor(row.unit_price, row.currency),
    currency: row.currency,
    unit: row.unit,
    unitCode: unitCodeOf(row.unit) ?? null,
    description: row.description,
    photoFileId: row.photo_file_id,
    taxRateId: row.tax_rate_id,
    tags: JSON.parse(row.tags) as string[],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
