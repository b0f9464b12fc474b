import { toMajor } from '../../shared/money.js';
import type { CashAnchorRow } from './dashboard.repository.js';
import type { CashAnchor } from './dashboard.schemas.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentAnchor(row: CashAnchorRow): CashAnchor {
  return {
    openingBalance: toMajor(Number(row.opening_balance), row.currency),
    currency: row.currency,
    effectiveDate: row.effective_date,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
