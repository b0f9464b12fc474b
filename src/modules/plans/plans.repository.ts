import type { Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { LicensesTable } from '../../db/schema.js';

/** The plans module's queries: the monthly request totals it writes, and what usage reads. */

/** Requests of the month (`YYYY-MM`) flushed so far. */
export async function monthlyRequests(
  db: Executor,
  accountId: string,
  month: string,
): Promise<number> {
  const row = await db
    .selectFrom('usage_monthly')
    .select('requests')
    .where('account_id', '=', accountId)
    .where('month', '=', month)
    .executeTakeFirst();
  return Number(row?.requests ?? 0);
}

/** Adds `delta` requests to the month's total (created on the first flush). */
export async function addMonthlyRequests(
  db: Executor,
  accountId: string,
  month: string,
  delta: number,
): Promise<void> {
  await db
    .insertInto('usage_monthly')
    .values({ account_id: accountId, month, requests: delta })
    .onConflict((oc) =>
      oc.columns(['account_id', 'month']).doUpdateSet((eb) => ({
        requests: eb('usage_monthly.requests', '+', eb.ref('excluded.requests')),
      })),
    )
    .execute();
}

/** The license the payment provider reported (written by the webhooks module). */
export function findLicense(
  db: Executor,
  accountId: string,
): Promise<Selectable<LicensesTable> | undefined> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** Documents of the account, for the usage report. */
export async function countDocuments(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('documents')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
