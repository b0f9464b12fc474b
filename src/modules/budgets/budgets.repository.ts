import type { Insertable, Selectable } from 'kysely';
import { containsText } from '../../db/dialect.js';
import { insertChunked, recordQueries, type Executor } from '../../db/records.js';
import type { BudgetCategoriesTable, BudgetEntriesTable, DB } from '../../db/schema.js';
import { searchText } from '../../http/pagination.js';

export type BudgetCategoryRow = Selectable<BudgetCategoriesTable>;
export type BudgetEntryRow = Selectable<BudgetEntriesTable>;
export type EntryWithCategory = BudgetEntryRow & { category_name: string };

const categories = recordQueries('budget_categories');
const entries = recordQueries('budget_entries');

/** Budget queries; every one is scoped by account (STYLE rule 3). */

export async function insertCategory(trx: Executor, row: BudgetCategoryRow): Promise<void> {
  await trx.insertInto('budget_categories').values(row).execute();
}

export const findCategory = categories.find;
export const categoryVersion = categories.version;
export const updateCategory = categories.update;
export const deleteCategory = categories.remove;

export interface CategoryFilter {
  limit: number;
  afterId?: string;
  active?: boolean;
  q?: string;
}

/** Newest first; `limit + 1` rows so the caller can tell whether a next page exists. */
export function listCategories(
  db: Executor,
  accountId: string,
  f: CategoryFilter,
): Promise<BudgetCategoryRow[]> {
  let query = db.selectFrom('budget_categories').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.active !== undefined) query = query.where('active', '=', f.active ? 1 : 0);
  if (f.q !== undefined) query = query.where(containsText('search_name', searchText(f.q)));
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** First and last day of a `YYYY-MM` month as comparable ISO dates. */
export function monthRange(month: string): { from: string; to: string } {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(year, mon, 0)).getUTCDate();
  return { from: `${month}-01`, to: `${month}-${String(last).padStart(2, '0')}` };
}

/** Minor units spent per category in `month` (one indexed range scan per account). */
export async function spentByCategory(
  db: Executor,
  accountId: string,
  categoryIds: string[],
  month: string,
): Promise<Map<string, number>> {
  const spent = new Map<string, number>();
  if (categoryIds.length === 0) return spent;
  const { from, to } = monthRange(month);
  const rows = await db
    .selectFrom('budget_entries')
    .select(['category_id', (eb) => eb.fn.sum<number | string>('amount').as('total')])
    .where('account_id', '=', accountId)
    .where('category_id', 'in', categoryIds)
    .where('entry_date', '>=', from)
    .where('entry_date', '<=', to)
    .groupBy('category_id')
    .execute();
  // PostgreSQL answers sum(bigint) as numeric, which arrives as a string.
  for (const row of rows) spent.set(row.category_id, Number(row.total));
  return spent;
}

/** Whether `documentId` names a document of this account. */
export async function documentExists(
  db: Executor,
  accountId: string,
  documentId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('documents')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', documentId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function insertEntry(trx: Executor, row: BudgetEntryRow): Promise<void> {
  await trx.insertInto('budget_entries').values(row).execute();
}

function entriesWithCategory(db: Executor, accountId: string) {
  return db
    .selectFrom('budget_entries as e')
    .innerJoin('budget_categories as c', (join) =>
      join.onRef('c.account_id', '=', 'e.account_id').onRef('c.id', '=', 'e.category_id'),
    )
    .selectAll('e')
    .select('c.name as category_name')
    .where('e.account_id', '=', accountId);
}

export function findEntry(
  db: Executor,
  accountId: string,
  id: string,
): Promise<EntryWithCategory | undefined> {
  return entriesWithCategory(db, accountId).where('e.id', '=', id).executeTakeFirst();
}

export interface EntryFilter {
  limit: number;
  afterId?: string;
  categoryId?: string;
  documentId?: string;
  source?: string;
  from?: string;
  to?: string;
}

export function listEntries(
  db: Executor,
  accountId: string,
  f: EntryFilter,
): Promise<EntryWithCategory[]> {
  let query = entriesWithCategory(db, accountId);
  if (f.afterId !== undefined) query = query.where('e.id', '<', f.afterId);
  if (f.categoryId !== undefined) query = query.where('e.category_id', '=', f.categoryId);
  if (f.documentId !== undefined) query = query.where('e.document_id', '=', f.documentId);
  if (f.source !== undefined) query = query.where('e.source', '=', f.source);
  if (f.from !== undefined) query = query.where('e.entry_date', '>=', f.from);
  if (f.to !== undefined) query = query.where('e.entry_date', '<=', f.to);
  return query
    .orderBy('e.id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

export const entryVersion = entries.version;
export const deleteEntry = entries.remove;

/** Many new entries at once (a bank statement's categorised debits). */
export async function insertEntries(
  db: Executor,
  rows: Insertable<DB['budget_entries']>[],
): Promise<void> {
  await insertChunked(db, 'budget_entries', rows, 13);
}

export async function categoryHasEntries(
  db: Executor,
  accountId: string,
  categoryId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('budget_entries')
    .select('id')
    .where('account_id', '=', accountId)
    .where('category_id', '=', categoryId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}
