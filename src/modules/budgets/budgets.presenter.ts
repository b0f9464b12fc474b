import { toMajor } from '../../shared/money.js';
import type { BudgetCategoryRow, BudgetEntryRow } from './budgets.repository.js';
import type { BudgetCategory, BudgetEntry } from './budgets.schemas.js';

/** Row + the month's spending (minor units) → response, field by field. */
export function presentCategory(
  row: BudgetCategoryRow,
  month: string,
  spentMinor: number,
): BudgetCategory {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    monthlyLimit: toMajor(row.monthly_limit, row.currency),
    currency: row.currency,
    keywords: JSON.parse(row.keywords) as string[],
    active: row.active === 1,
    month,
    spent: toMajor(spentMinor, row.currency),
    remaining: toMajor(row.monthly_limit - spentMinor, row.currency),
    overLimit: spentMinor > row.monthly_limit,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The category as the audit trail records it: its stored fields, without the month figures. */
export function categoryFields(row: BudgetCategoryRow): Record<string, unknown> {
  const {
    month: _m,
    spent: _s,
    remaining: _r,
    overLimit: _o,
    ...fields
  } = presentCategory(row, '', 0);
  return fields;
}

export function presentEntry(row: BudgetEntryRow & { category_name: string }): BudgetEntry {
  return {
    id: row.id,
    version: row.version,
    categoryId: row.category_id,
    categoryName: row.category_name,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    entryDate: row.entry_date,
    documentId: row.document_id,
    vendorName: row.vendor_name,
    source: row.source as BudgetEntry['source'],
    importId: row.import_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
