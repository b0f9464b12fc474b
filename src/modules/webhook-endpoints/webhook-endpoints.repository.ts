import { sql, type Compilable, type Selectable } from 'kysely';
import {
  compiledOnce,
  insertChunked,
  recordQueries,
  type Executor,
  type SqlCondition,
} from '../../db/records.js';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from '../../db/schema.js';

export type WebhookEndpointRow = Selectable<WebhookEndpointsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
const records = recordQueries('webhook_endpoints');

/**
 * Webhook endpoint and delivery queries; every one is scoped by account (STYLE rule 3). This
 * module is the one writer of `webhook_endpoints` and `webhook_deliveries`.
 */

export async function insertEndpoint(trx: Executor, row: WebhookEndpointRow): Promise<void> {
  await trx.insertInto('webhook_endpoints').values(row).execute();
}

export const findEndpoint = records.find;
export const endpointVersion = records.version;
/** The compare-and-set update, answering the row before and after (for the audit diff). */
export const updateEndpointWithBefore = records.updateWithBefore;
/** The compare-and-set update (version, then values). */
export const updateEndpoint = records.update;
/** Deletes when the version matches (any version when undefined). */
export const deleteEndpoint = records.remove;

/** How many endpoints (enabled or not) the account has: what its plan's limit counts. */
export async function countEndpoints(db: Executor, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface EndpointFilter {
  limit: number;
  afterId?: string;
  enabled?: boolean;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export async function listEndpoints(
  db: Executor,
  accountId: string,
  f: EndpointFilter,
): Promise<WebhookEndpointRow[]> {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.enabled !== undefined) query = query.where('enabled', '=', f.enabled ? 1 : 0);
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

type EnabledEndpoint = Pick<WebhookEndpointRow, 'id' | 'event_types'>;

/**
 * The account's enabled endpoints with the event types they want (JSON), for the outbox:
 * every write that emits an event reads them, so the statement is compiled once.
 */
export const enabledEndpointsQuery = compiledOnce(
  (db: Executor, accountId: string): Compilable<EnabledEndpoint> =>
    db
      .selectFrom('webhook_endpoints')
      .select(['id', 'event_types'])
      .where('account_id', '=', accountId)
      .where('enabled', '=', sql.lit(1)),
);

/**
 * PostgreSQL: the condition that the account has no enabled endpoint subscribed to `type`, for
 * another statement's WHERE (`withoutEndpoints`).
 */
export function noEndpointsCondition(accountId: string, type: string): SqlCondition {
  return {
    key: 'no-endpoints',
    sql: (first) => `not exists (select 1 from webhook_endpoints e
      where e.account_id = $${first} and e.enabled = 1 and e.event_types::jsonb ? $${first + 1})`,
    parameters: [accountId, type],
  };
}

export async function enabledEndpoints(
  db: Executor,
  accountId: string,
): Promise<EnabledEndpoint[]> {
  return (await db.executeQuery(enabledEndpointsQuery(db, accountId))).rows;
}

/**
 * The endpoint's failure bookkeeping after an attempt: a success clears it, a failure counts
 * and starts the run's clock when it is the first. Not versioned: no client writes these.
 */
export async function recordEndpointOutcome(
  trx: Executor,
  accountId: string,
  id: string,
  ok: boolean,
  at: string,
): Promise<void> {
  const query = trx
    .updateTable('webhook_endpoints')
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (ok)
    await query
      .set({ failure_count: 0, failing_since: null })
      .where('failure_count', '>', 0)
      .execute();
  else
    await query
      .set((eb) => ({
        failure_count: eb('failure_count', '+', 1),
        failing_since: eb.fn.coalesce('failing_since', eb.val(at)),
      }))
      .execute();
}

/**
 * The service disables an endpoint: compare-and-set on `enabled`, so of two deliveries that
 * give up at once only one disables it (and mails). Bumps the version like any change.
 */
export async function disableEndpoint(
  trx: Executor,
  accountId: string,
  id: string,
  reason: string,
  at: string,
): Promise<WebhookEndpointRow | undefined> {
  return trx
    .updateTable('webhook_endpoints')
    .set((eb) => ({
      enabled: 0,
      disabled_reason: reason,
      version: eb('version', '+', 1),
      updated_at: at,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('enabled', '=', 1)
    .returningAll()
    .executeTakeFirst();
}

/** New deliveries (one event's, or a batch of events'), as multi-row inserts. */
export async function insertDeliveries(
  trx: Executor,
  rows: readonly WebhookDeliveryRow[],
): Promise<void> {
  await insertChunked(trx, 'webhook_deliveries', rows, 16);
}

export async function findDelivery(
  db: Executor,
  accountId: string,
  id: string,
): Promise<WebhookDeliveryRow | undefined> {
  return db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface DeliveryFilter {
  limit: number;
  afterId?: string;
  status?: string;
  eventType?: string;
}

/** An endpoint's deliveries, newest first; `limit + 1` rows. */
export async function listDeliveries(
  db: Executor,
  accountId: string,
  endpointId: string,
  f: DeliveryFilter,
): Promise<WebhookDeliveryRow[]> {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.eventType !== undefined) query = query.where('event_type', '=', f.eventType);
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/**
 * Writes an attempt's outcome when the delivery still has the attempts count the attempt
 * started from (compare-and-set: a duplicate run of the same job, or a replay racing a retry,
 * records once). Answers whether it was recorded.
 */
export async function recordAttempt(
  trx: Executor,
  accountId: string,
  id: string,
  attemptsBefore: number,
  values: Partial<WebhookDeliveryRow>,
): Promise<boolean> {
  const result = await trx
    .updateTable('webhook_deliveries')
    .set(values)
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('attempts', '=', attemptsBefore)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The account's attempts in flight: deliveries under an unexpired send lease at `now`. */
export async function sendingCount(db: Executor, accountId: string, now: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('sending_until', 'is not', null)
    .where('sending_until', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The account's delivery to send next: PENDING, not in flight, due by `dueBy` (a first attempt:
 * by `freshBy`, later or the same); those of endpoints that answer first (an endpoint whose
 * last attempt failed waits behind the account's others), then the longest due.
 */
export async function nextDueDelivery(
  db: Executor,
  accountId: string,
  now: string,
  due: { dueBy: string; freshBy: string } = { dueBy: now, freshBy: now },
): Promise<string | undefined> {
  const row = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_endpoints as e', (join) =>
      join.onRef('e.id', '=', 'd.endpoint_id').onRef('e.account_id', '=', 'd.account_id'),
    )
    .select('d.id')
    .where('d.account_id', '=', accountId)
    .where('d.status', '=', 'PENDING')
    .where((eb) =>
      eb.or([
        eb('d.next_attempt_at', '<=', due.dueBy),
        eb.and([eb('d.attempts', '=', 0), eb('d.next_attempt_at', '<=', due.freshBy)]),
      ]),
    )
    .where((eb) => eb.or([eb('d.sending_until', 'is', null), eb('d.sending_until', '<=', now)]))
    .orderBy(sql`case when e.failure_count > 0 then 1 else 0 end`)
    .orderBy('d.next_attempt_at')
    .orderBy('d.id')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** When a lease is taken, what counts as due (as `nextDueDelivery`), and until when. */
export interface LeaseTimes {
  now: string;
  dueBy: string;
  freshBy: string;
  until: string;
}

/**
 * Takes the send lease of a delivery due by `dueBy` until `until` (compare-and-set: of two
 * jobs that chose the same delivery, one sends). Answers whether this job holds it.
 */
export async function leaseDelivery(
  db: Executor,
  accountId: string,
  id: string,
  times: LeaseTimes,
): Promise<boolean> {
  const { now, dueBy, freshBy, until } = times;
  const result = await db
    .updateTable('webhook_deliveries')
    .set({ sending_until: until })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'PENDING')
    .where((eb) =>
      eb.or([
        eb('next_attempt_at', '<=', dueBy),
        eb.and([eb('attempts', '=', 0), eb('next_attempt_at', '<=', freshBy)]),
      ]),
    )
    .where((eb) => eb.or([eb('sending_until', 'is', null), eb('sending_until', '<=', now)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Takes the send lease as `leaseDelivery` does, but only while the account has fewer than
 * `cap` attempts in flight; the caller holds the account's lock (`lockAccount`), so jobs of one
 * account count its attempts in flight, or look for its next delivery as they give a lease
 * back, in turn, on PostgreSQL as on SQLite. Answers `leased`, `full` (the account is at
 * its share) or `taken` (another job has the delivery).
 */
export async function leaseWithinShare(
  trx: Executor,
  accountId: string,
  id: string,
  times: LeaseTimes,
  cap: number,
): Promise<'leased' | 'full' | 'taken'> {
  if ((await sendingCount(trx, accountId, times.now)) >= cap) return 'full';
  return (await leaseDelivery(trx, accountId, id, times)) ? 'leased' : 'taken';
}

/**
 * Gives a lease back without recording an attempt (the attempt was recorded elsewhere), only
 * while it is still this job's (`until`, the lease it took): a job whose lease ran out and
 * was taken by another must not free that one.
 */
export async function releaseDelivery(
  db: Executor,
  accountId: string,
  id: string,
  until: string,
): Promise<void> {
  await db
    .updateTable('webhook_deliveries')
    .set({ sending_until: null })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('sending_until', '=', until)
    .execute();
}

/** Deletes an endpoint's deliveries (before the endpoint itself, in its transaction). */
export async function deleteDeliveries(
  trx: Executor,
  accountId: string,
  endpointId: string,
): Promise<void> {
  await trx
    .deleteFrom('webhook_deliveries')
    .where('account_id', '=', accountId)
    .where('endpoint_id', '=', endpointId)
    .execute();
}
