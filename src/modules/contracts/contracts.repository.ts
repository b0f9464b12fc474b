import type { Kysely, Selectable, Transaction } from 'kysely';
import { containsText } from '../../db/dialect.js';
import type { ContractsTable, DB } from '../../db/schema.js';
import { searchText } from '../../http/pagination.js';

export type ContractRow = Selectable<ContractsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

/** Contract queries; every one is scoped by account (STYLE rule 3). */

export async function insertContract(
  trx: Executor,
  row: ContractRow,
  tags: string[],
): Promise<void> {
  await trx.insertInto('contracts').values(row).execute();
  await replaceTags(trx, row.account_id, row.id, tags);
}

export async function findContract(
  db: Executor,
  accountId: string,
  id: string,
): Promise<ContractRow | undefined> {
  return db
    .selectFrom('contracts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function contractState(
  db: Executor,
  accountId: string,
  id: string,
): Promise<{ version: number; status: string } | undefined> {
  return db
    .selectFrom('contracts')
    .select(['version', 'status'])
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface ContractFilter {
  limit: number;
  afterId?: string;
  status?: string;
  partnerId?: string;
  tag?: string;
  /** YYYY-MM-DD: running on that day. */
  activeOn?: string;
  /** YYYY-MM-DD: stored cancellation deadline before that day. */
  deadlineBefore?: string;
  q?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listContracts(
  db: Executor,
  accountId: string,
  f: ContractFilter,
): Promise<ContractRow[]> {
  let query = db
    .selectFrom('contracts')
    .selectAll('contracts')
    .where('contracts.account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('contracts.id', '<', f.afterId);
  if (f.status !== undefined) query = query.where('contracts.status', '=', f.status);
  if (f.partnerId !== undefined) query = query.where('contracts.partner_id', '=', f.partnerId);
  if (f.q !== undefined)
    query = query.where(containsText('contracts.search_name', searchText(f.q)));
  // ISO dates compare correctly as text on both databases.
  const activeOn = f.activeOn;
  if (activeOn !== undefined)
    query = query
      .where('contracts.start_date', '<=', activeOn)
      .where((eb) =>
        eb.or([eb('contracts.end_date', 'is', null), eb('contracts.end_date', '>=', activeOn)]),
      );
  if (f.deadlineBefore !== undefined)
    query = query.where('contracts.cancellation_deadline', '<', f.deadlineBefore);
  if (f.tag !== undefined) {
    const tag = f.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('contract_tags as t')
          .select('t.contract_id')
          .whereRef('t.contract_id', '=', 'contracts.id')
          .where('t.account_id', '=', accountId)
          .where('t.tag', '=', tag),
      ),
    );
  }
  return query
    .orderBy('contracts.id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/**
 * The compare-and-set update: applied only when the stored version equals `version` and,
 * for a state transition, the stored status is still `fromStatus` (STYLE rules 7 and 8).
 */
export async function updateContract(
  trx: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<ContractRow>,
  fromStatus?: string,
): Promise<ContractRow | undefined> {
  let query = trx
    .updateTable('contracts')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('version', '=', version);
  if (fromStatus !== undefined) query = query.where('status', '=', fromStatus);
  return query.returningAll().executeTakeFirst();
}

/**
 * Deletes a contract that is still in `status` (only drafts may go), when the version
 * matches (any version when `version` is undefined).
 */
export async function deleteContract(
  trx: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
  status: string,
): Promise<ContractRow | undefined> {
  let query = trx
    .deleteFrom('contracts')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', status);
  if (version !== undefined) query = query.where('version', '=', version);
  return query.returningAll().executeTakeFirst();
}

export async function replaceTags(
  trx: Executor,
  accountId: string,
  contractId: string,
  tags: string[],
): Promise<void> {
  await trx
    .deleteFrom('contract_tags')
    .where('account_id', '=', accountId)
    .where('contract_id', '=', contractId)
    .execute();
  if (tags.length > 0)
    await trx
      .insertInto('contract_tags')
      .values(tags.map((tag) => ({ account_id: accountId, contract_id: contractId, tag })))
      .execute();
}
