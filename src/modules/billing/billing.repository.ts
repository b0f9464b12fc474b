import type { Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { AccountBillingTable } from '../../db/schema.js';

export type BillingRow = Selectable<AccountBillingTable>;

/** The account's billing row (one per account, created by the first write). */
export function findBilling(db: Executor, accountId: string): Promise<BillingRow | undefined> {
  return db
    .selectFrom('account_billing')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function insertBilling(trx: Executor, row: BillingRow): Promise<void> {
  await trx.insertInto('account_billing').values(row).execute();
}

/** Compare-and-set on `version`; undefined when another write came first. */
export function updateBilling(
  trx: Executor,
  accountId: string,
  version: number,
  values: Pick<BillingRow, 'billing_method' | 'card' | 'bank_sealed' | 'bank_masked'>,
  at: string,
): Promise<BillingRow | undefined> {
  return trx
    .updateTable('account_billing')
    .set((eb) => ({ ...values, updated_at: at, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}
