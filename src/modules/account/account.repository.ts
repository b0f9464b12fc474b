import type { Kysely, Selectable, Transaction } from 'kysely';
import type { AccountsTable, DB } from '../../db/schema.js';
import { deferFirst, type Later } from '../../db/transactions.js';
import { WIDGETS } from './account.schemas.js';

export type AccountRow = Selectable<AccountsTable>;
type Executor = Kysely<DB> | Transaction<DB>;

const DEFAULT_WIDGETS = WIDGETS.map((widget, position) => ({
  widget,
  visible: true,
  position,
  size: widget === 'CASHFLOW_CHART' ? 'LARGE' : 'SMALL',
}));

/** A new account with the German defaults (EUR, DD.MM.YYYY, 1.234,56, HABEN). */
export function newAccountRow(id: string, name: string, planId: string, now: string): AccountRow {
  return {
    id,
    name,
    plan_id: planId,
    currency: 'EUR',
    date_format: 'DD.MM.YYYY',
    number_format: '1.234,56',
    incoming_payment_term: 'HABEN',
    budgets_suppressed: 0,
    reminder_email: null,
    allow_contract_reminder_override: 0,
    dashboard_widgets: JSON.stringify(DEFAULT_WIDGETS),
    addresses: '[]',
    logo_file_id: null,
    // No seller master data yet: `readCompany` answers the defaults until an admin sets it.
    company: null,
    version: 1,
    created_at: now,
    updated_at: now,
  };
}

export async function insertAccount(trx: Executor, row: AccountRow): Promise<void> {
  await trx.insertInto('accounts').values(row).execute();
}

export async function findAccount(
  db: Executor,
  accountId: string,
): Promise<AccountRow | undefined> {
  return accountById(db, accountId).executeTakeFirst();
}

/** `findAccount` started now, answered later (`deferFirst`). */
export function findAccountLater(
  db: Executor,
  accountId: string,
): Promise<Later<AccountRow | undefined>> {
  return deferFirst(db, accountById(db, accountId));
}

function accountById(db: Executor, accountId: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', accountId);
}

export async function updateAccount(
  trx: Executor,
  accountId: string,
  version: number,
  values: Partial<AccountRow>,
): Promise<AccountRow | undefined> {
  return trx
    .updateTable('accounts')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Takes the account row's write lock for the rest of the transaction (a no-op UPDATE: row lock
 * on PostgreSQL; SQLite serialises writers anyway), so account-wide invariants such as "one
 * admin at least" are checked and changed without a race.
 */
export async function lockAccount(trx: Transaction<DB>, accountId: string): Promise<void> {
  await trx
    .updateTable('accounts')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', accountId)
    .execute();
}

/** Whether the file is the account's logo. */
export async function usesLogo(db: Executor, accountId: string, fileId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .where('logo_file_id', '=', fileId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The account's plan (a plan change, or the payment provider's subscription event). */
export async function setAccountPlan(
  trx: Executor,
  accountId: string,
  planId: string,
  at: string,
): Promise<void> {
  await trx
    .updateTable('accounts')
    .set({ plan_id: planId, updated_at: at })
    .where('id', '=', accountId)
    .execute();
}
