import { sql } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { DunningNoticesTable, DunningSettingsTable } from '../../db/schema.js';

/** Dunning settings and notices: this module is their one writer. */

export type DunningSettingsRow = DunningSettingsTable;

export function findSettings(
  db: Executor,
  accountId: string,
): Promise<DunningSettingsRow | undefined> {
  return db
    .selectFrom('dunning_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function insertSettings(trx: Executor, row: DunningSettingsRow): Promise<boolean> {
  const result = await trx
    .insertInto('dunning_settings')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** The compare-and-set update; undefined when the version did not match. */
export function updateSettings(
  trx: Executor,
  accountId: string,
  version: number,
  values: Partial<DunningSettingsRow>,
): Promise<DunningSettingsRow | undefined> {
  return trx
    .updateTable('dunning_settings')
    .set({ ...values, version: version + 1 })
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Claims today's scheduled run of every account that enabled it and has not run today: one
 * replica gets each account (the update moves `last_run_on`, the others match nothing).
 */
export async function claimScheduledRuns(db: Executor, today: string): Promise<string[]> {
  const due = await db
    .selectFrom('dunning_settings')
    .select('account_id')
    .where('enabled', '=', 1)
    .where((eb) => eb.or([eb('last_run_on', 'is', null), eb('last_run_on', '<', today)]))
    .execute();
  const claimed: string[] = [];
  for (const { account_id } of due) {
    const result = await db
      .updateTable('dunning_settings')
      .set({ last_run_on: today })
      .where('account_id', '=', account_id)
      .where('enabled', '=', 1)
      .where((eb) => eb.or([eb('last_run_on', 'is', null), eb('last_run_on', '<', today)]))
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 1) claimed.push(account_id);
  }
  return claimed;
}

/**
 * Records a letter in the transaction that creates it: false when the invoice has this
 * level already (another run got there first).
 */
export async function claimNotice(trx: Executor, row: DunningNoticesTable): Promise<boolean> {
  const result = await trx
    .insertInto('dunning_notices')
    .values(row)
    .onConflict((oc) => oc.columns(['invoice_id', 'level']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

/** `claimNotice` for many letters: answers the invoices whose level it recorded. */
export async function claimNotices(
  trx: Executor,
  rows: readonly DunningNoticesTable[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  // 13 parameters a row: within both databases' bound-parameter limits.
  for (let from = 0; from < rows.length; from += 500) {
    const inserted = await trx
      .insertInto('dunning_notices')
      .values(rows.slice(from, from + 500))
      .onConflict((oc) => oc.columns(['invoice_id', 'level']).doNothing())
      .returning('invoice_id')
      .execute();
    for (const r of inserted) claimed.add(r.invoice_id);
  }
  return claimed;
}

export interface NoticeHistory {
  invoice_id: string;
  fees: number;
  /** The largest flat fee an earlier letter claimed. */
  flat_fee: number;
  first_as_of: string;
}

/** What earlier letters of these invoices claimed, per invoice: one aggregate query. */
export async function noticeHistory(
  db: Executor,
  accountId: string,
  invoiceIds: string[],
): Promise<Map<string, NoticeHistory>> {
  const out = new Map<string, NoticeHistory>();
  if (invoiceIds.length === 0) return out;
  const rows = await db
    .selectFrom('dunning_notices')
    .select([
      'invoice_id',
      sql<number | string>`sum(fee_minor)`.as('fees'),
      sql<number | string>`max(flat_fee_minor)`.as('flat_fee'),
      sql<string>`min(as_of)`.as('first_as_of'),
    ])
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .groupBy('invoice_id')
    .execute();
  // PostgreSQL answers sum(bigint) as numeric, which arrives as a string.
  for (const r of rows)
    out.set(r.invoice_id, {
      invoice_id: r.invoice_id,
      fees: Number(r.fees),
      flat_fee: Number(r.flat_fee),
      first_as_of: r.first_as_of,
    });
  return out;
}
