import type { Transaction } from 'kysely';
import type { DB, LicensesTable } from '../../db/schema.js';

/**
 * Records a delivery as processed. Answers false when the provider's event id is already
 * recorded (a replay). Inside the processing transaction: a rolled-back attempt records
 * nothing, so a corrected retry is processed.
 */
export async function recordWebhookEvent(
  trx: Transaction<DB>,
  event: { provider: string; eventId: string; type: string; accountId: string | null },
  at: string,
): Promise<boolean> {
  const row = await trx
    .insertInto('webhook_events')
    .values({
      provider: event.provider,
      event_id: event.eventId,
      type: event.type,
      account_id: event.accountId,
      received_at: at,
    })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findLicense(
  trx: Transaction<DB>,
  accountId: string,
): Promise<LicensesTable | undefined> {
  return trx
    .selectFrom('licenses')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export interface LicenseValues {
  status: string;
  current_period_end: string | null;
  provider_subscription_id: string;
}

/** Writes the license: version 1 when new, else one more. The caller holds the account lock. */
export async function saveLicense(
  trx: Transaction<DB>,
  accountId: string,
  values: LicenseValues,
  exists: boolean,
  at: string,
): Promise<void> {
  if (exists) {
    await trx
      .updateTable('licenses')
      .set((eb) => ({ ...values, version: eb('version', '+', 1), updated_at: at }))
      .where('account_id', '=', accountId)
      .execute();
    return;
  }
  await trx
    .insertInto('licenses')
    .values({ account_id: accountId, ...values, version: 1, created_at: at, updated_at: at })
    .execute();
}
