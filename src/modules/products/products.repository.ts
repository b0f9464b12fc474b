import type { Selectable } from 'kysely';
import {
  recordQueries,
  insertTags,
  replaceTags as replaceTagsOf,
  type TagTable,
  type Executor,
} from '../../db/records.js';
import type { ProductsTable } from '../../db/schema.js';
import { containsText } from '../../db/dialect.js';
import { searchText } from '../../http/pagination.js';

export type ProductRow = Selectable<ProductsTable>;
const records = recordQueries('products');
const TAGS: TagTable = { table: 'product_tags', owner: 'product_id' };

/** Product queries; every one is scoped by account (STYLE rule 3). */

export async function insertProduct(trx: Executor, row: ProductRow, tags: string[]): Promise<void> {
  await trx.insertInto('products').values(row).execute();
  await insertTags(trx, TAGS, row.account_id, row.id, tags);
}

export const findProduct = records.find;

/** `findProduct` started now, answered later (`deferFirst`). */
export const findProductLater = records.findLater;

export const productVersion = records.version;

/** Whether `taxRateId` names a tax rate of this account (another account's id does not). */
export async function taxRateExists(
  db: Executor,
  accountId: string,
  taxRateId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('tax_rates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', '=', taxRateId)
    .executeTakeFirst();
  return row !== undefined;
}

export interface ProductFilter {
  limit: number;
  afterId?: string;
  type?: string;
  tag?: string;
  q?: string;
  taxRateId?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listProducts(
  db: Executor,
  accountId: string,
  f: ProductFilter,
): Promise<ProductRow[]> {
  let query = db
    .selectFrom('products')
    .selectAll('products')
    .where('products.account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('products.id', '<', f.afterId);
  if (f.type !== undefined) query = query.where('products.type', '=', f.type);
  if (f.taxRateId !== undefined) query = query.where('products.tax_rate_id', '=', f.taxRateId);
  if (f.q !== undefined) query = query.where(containsText('products.search_name', searchText(f.q)));
  if (f.tag !== undefined) {
    const tag = f.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('product_tags as t')
          .select('t.product_id')
          .whereRef('t.product_id', '=', 'products.id')
          .where('t.account_id', '=', accountId)
          .where('t.tag', '=', tag),
      ),
    );
  }
  return query
    .orderBy('products.id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** The compare-and-set update (version, then values). */
export const updateProduct = records.update;

/** Deletes when the version matches (any version when `version` is undefined). */
export const deleteProduct = records.remove;

export const replaceTags = (trx: Executor, accountId: string, productId: string, tags: string[]) =>
  replaceTagsOf(trx, TAGS, accountId, productId, tags);
