import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, PartnersTable } from '../../db/schema.js';
import { containsText } from '../../db/dialect.js';
import { searchText } from '../../http/pagination.js';

export type PartnerRow = Selectable<PartnersTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** Partner queries; every one is scoped by account (STYLE rule 3). */

export async function insertPartner(trx: Executor, row: PartnerRow, tags: string[]): Promise<void> {
  await trx.insertInto('partners').values(row).execute();
  await replaceTags(trx, row.account_id, row.id, tags);
}

export async function findPartner(
  db: Executor,
  accountId: string,
  id: string,
): Promise<PartnerRow | undefined> {
  return db
    .selectFrom('partners')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function partnerVersion(
  db: Executor,
  accountId: string,
  id: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('partners')
    .select('version')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.version;
}

export interface PartnerFilter {
  limit: number;
  afterId?: string;
  type?: string;
  tag?: string;
  q?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listPartners(
  db: Executor,
  accountId: string,
  f: PartnerFilter,
): Promise<PartnerRow[]> {
  let query = db
    .selectFrom('partners')
    .selectAll('partners')
    .where('partners.account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('partners.id', '<', f.afterId);
  if (f.type !== undefined) query = query.where('partners.type', '=', f.type);
  if (f.q !== undefined) query = query.where(containsText('partners.search_name', searchText(f.q)));
  if (f.tag !== undefined) {
    const tag = f.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('partner_tags as t')
          .select('t.partner_id')
          .whereRef('t.partner_id', '=', 'partners.id')
          .where('t.account_id', '=', accountId)
          .where('t.tag', '=', tag),
      ),
    );
  }
  return query
    .orderBy('partners.id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** The compare-and-set update: applied only when the stored version equals `version`. */
export async function updatePartner(
  trx: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<PartnerRow>,
): Promise<PartnerRow | undefined> {
  return trx
    .updateTable('partners')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** Deletes when the version matches (any version when `version` is undefined). */
export async function deletePartner(
  trx: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
): Promise<PartnerRow | undefined> {
  let query = trx.deleteFrom('partners').where('account_id', '=', accountId).where('id', '=', id);
  if (version !== undefined) query = query.where('version', '=', version);
  return query.returningAll().executeTakeFirst();
}

export async function replaceTags(
  trx: Executor,
  accountId: string,
  partnerId: string,
  tags: string[],
): Promise<void> {
  await trx
    .deleteFrom('partner_tags')
    .where('account_id', '=', accountId)
    .where('partner_id', '=', partnerId)
    .execute();
  if (tags.length > 0)
    await trx
      .insertInto('partner_tags')
      .values(tags.map((tag) => ({ account_id: accountId, partner_id: partnerId, tag })))
      .execute();
}
