import type { Selectable } from 'kysely';
import {
  recordQueries,
  insertTags,
  replaceTags as replaceTagsOf,
  type TagTable,
  type Executor,
} from '../../db/records.js';
import { containsText } from '../../db/dialect.js';
import type { ContractsTable } from '../../db/schema.js';
import { searchText } from '../../http/pagination.js';

export type ContractRow = Selectable<ContractsTable>;
const records = recordQueries('contracts');
const TAGS: TagTable = { table: 'contract_tags', owner: 'contract_id' };

/** Contract queries; every one is scoped by account (STYLE rule 3). */

export async function insertContract(
  trx: Executor,
  row: ContractRow,
  tags: string[],
): Promise<void> {
  await trx.insertInto('contracts').values(row).execute();
  await insertTags(trx, TAGS, row.account_id, row.id, tags);
}

export const findContract = records.find;

/** `findContract` started now, answered later (`deferFirst`). */
export const findContractLater = records.findLater;

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

/** The compare-and-set update; `fromStatus` also requires the current status (a transition). */
export const updateContract = (
  trx: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<ContractRow>,
  fromStatus?: string,
) =>
  records.update(
    trx,
    accountId,
    id,
    version,
    values,
    fromStatus === undefined ? {} : { status: fromStatus },
  );

/**
 * Deletes a contract that is still in `status` (only drafts may go), when the version
 * matches (any version when `version` is undefined).
 */
export const deleteContract = (
  trx: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
  status: string,
) => records.remove(trx, accountId, id, version, { status });

export const replaceTags = (trx: Executor, accountId: string, contractId: string, tags: string[]) =>
  replaceTagsOf(trx, TAGS, accountId, contractId, tags);

/**
 * ACTIVE contracts whose billing plan has an invoice due on or before `until`, by id (all
 * accounts when `accountId` is undefined: the schedule), `limit` at a time after `afterId`.
 */
export async function dueForBilling(
  db: Executor,
  f: { until: string; accountId?: string; contractId?: string; afterId?: string; limit: number },
): Promise<ContractRow[]> {
  let query = db
    .selectFrom('contracts')
    .selectAll()
    .where('billing_next_date', '<=', f.until)
    .where('status', '=', 'ACTIVE');
  if (f.accountId !== undefined) query = query.where('account_id', '=', f.accountId);
  if (f.contractId !== undefined) query = query.where('id', '=', f.contractId);
  if (f.afterId !== undefined) query = query.where('id', '>', f.afterId);
  return query.orderBy('id').limit(f.limit).execute();
}

/**
 * The contracts of an account whose billing plan is paid by SEPA direct debit. The plan is
 * JSON written by this module alone (`JSON.stringify`, no spaces), so the text test is exact.
 */
export async function directDebitContractIds(db: Executor, accountId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('contracts')
    .select('id')
    .where('account_id', '=', accountId)
    .where('billing', 'like', '%"paymentMethod":"DIRECT_DEBIT"%')
    .execute();
  return rows.map((r) => r.id);
}
