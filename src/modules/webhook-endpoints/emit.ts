import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { afterCommit, deferRead } from '../../db/transactions.js';
import type { SqlCondition } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import { newId } from '../../shared/ids.js';
import * as repo from './webhook-endpoints.repository.js';
import type { WebhookDeliveryRow } from './webhook-endpoints.repository.js';
import type { WebhookEventType } from './webhook-endpoints.schemas.js';

/** The job that makes one attempt of one delivery (`delivery.job.ts`). */
export const DELIVER_JOB = 'webhook.deliver';

/**
 * The payload of a delivery job: a turn of the account (`delivery.job.ts`), which sends the
 * account's next due delivery. `deliveryId` only names what queued it, for the logs (a retry,
 * a replay); `dueAt` is when what queued it fell due (the event, the retry), so a process whose
 * clock is a little behind still finds it due.
 */
export interface DeliverJob {
  accountId: string;
  deliveryId?: string;
  dueAt?: string;
}

type Endpoints = Awaited<ReturnType<typeof repo.enabledEndpoints>>;
const prefetched = new WeakMap<Transaction<DB>, Map<string, () => Promise<Endpoints>>>();

/**
 * Asks for the account's enabled endpoints at the start of a write whose `emitEvent` comes at
 * its end: on PostgreSQL the read rides with the transaction's next statement instead of
 * taking a round trip of its own before the event (a partner update: three round trips → two).
 * Only for transactions that do not change the account's endpoints themselves. An endpoint
 * committed while the write runs is a race either way: read at the end, it could as well have
 * committed just after that read.
 */
export async function prefetchEndpoints(trx: Transaction<DB>, accountId: string): Promise<void> {
  const rows = await deferRead(trx, repo.enabledEndpointsQuery(trx, accountId));
  let byAccount = prefetched.get(trx);
  if (!byAccount) prefetched.set(trx, (byAccount = new Map<string, () => Promise<Endpoints>>()));
  byAccount.set(accountId, rows);
}

/** How long an account seen with endpoints for an event is not asked to do without them. */
const HINT_MS = 60_000;
/** `account|event` pairs seen with endpoints lately (per process), and when. */
const withEndpoints = new Map<string, number>();
const hintKey = (accountId: string, type: WebhookEventType) => `${accountId}|${type}`;

/**
 * For a write sent in one round trip (PostgreSQL): the condition, for its statement's WHERE,
 * that the account has no enabled endpoint subscribed to `type`, standing in for reading the
 * endpoints first (which needs their answer before the event, a round trip of its own). When
 * an endpoint exists the statement writes nothing, and the caller writes again the reading
 * way, whose `emitEvent` writes the deliveries. Undefined when the account had endpoints for
 * `type` lately: the caller writes the reading way at once. The same race as
 * `prefetchEndpoints`: an endpoint committed while the write runs may or may not count.
 */
export function withoutEndpoints(
  accountId: string,
  type: WebhookEventType,
): SqlCondition | undefined {
  const key = hintKey(accountId, type);
  const seen = withEndpoints.get(key);
  if (seen !== undefined) {
    if (Date.now() - seen < HINT_MS) return undefined;
    withEndpoints.delete(key);
  }
  return repo.noEndpointsCondition(accountId, type);
}

/**
 * The outbox: records that `type` happened, in the caller's transaction. For every enabled
 * endpoint of the account that subscribed to `type` it writes one delivery row holding the
 * exact body that will be signed and sent (`{type, timestamp, data}`), and enqueues the job
 * of its first attempt in the same transaction, so a delivery exists exactly when the change
 * committed, and a rolled-back change sends nothing. `data` is the resource as the API
 * answers it. Answers how many deliveries were queued.
 */
export async function emitEvent(
  ctx: Pick<AppContext, 'clock' | 'jobs'>,
  trx: Transaction<DB>,
  accountId: string,
  type: WebhookEventType,
  data: Record<string, unknown>,
): Promise<number> {
  return emitEvents(ctx, trx, accountId, type, [data], (d) => d);
}

/**
 * `emitEvent` for many events of one type at once (a statement settling many invoices): the
 * endpoints are read once, `data` is only called when an endpoint wants the events, the
 * delivery rows (in the order of `items`) go in multi-row inserts, and one turn of the
 * account is queued for them all — turns hand on to each other while deliveries are due, so
 * a batch does not queue thousands of jobs ahead of other accounts' turns. Answers how many
 * deliveries were queued.
 */
export async function emitEvents<T>(
  ctx: Pick<AppContext, 'clock' | 'jobs'>,
  trx: Transaction<DB>,
  accountId: string,
  type: WebhookEventType,
  items: readonly T[],
  data: (item: T) => Record<string, unknown>,
): Promise<number> {
  if (items.length === 0) return 0;
  const early = prefetched.get(trx)?.get(accountId);
  const endpoints = (await (early ? early() : repo.enabledEndpoints(trx, accountId))).filter((e) =>
    (JSON.parse(e.event_types) as string[]).includes(type),
  );
  if (endpoints.length === 0) return 0;
  if (withEndpoints.size >= 10_000) withEndpoints.clear();
  withEndpoints.set(hintKey(accountId, type), Date.now());
  const at = ctx.clock.now().toISOString();
  const rows: WebhookDeliveryRow[] = [];
  for (const item of items) {
    const payload = JSON.stringify({ type, timestamp: at, data: data(item) });
    for (const endpoint of endpoints)
      rows.push({
        id: newId('webhookDelivery'),
        account_id: accountId,
        endpoint_id: endpoint.id,
        event_type: type,
        payload,
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: at,
        last_attempt_at: null,
        last_status_code: null,
        last_latency_ms: null,
        last_error: null,
        response_excerpt: null,
        sending_until: null,
        created_at: at,
        updated_at: at,
      });
  }
  await repo.insertDeliveries(trx, rows);
  // One turn for the events, not one per endpoint or event: the account's turns hand on to
  // each other while it has deliveries due (delivery.job.ts), so an account with many
  // endpoints does not queue many jobs ahead of other accounts' turns.
  const job: DeliverJob = { accountId, dueAt: at };
  await ctx.jobs.enqueue(trx, DELIVER_JOB, { ...job }, accountId);
  // Start sending soon after the commit rather than at the next poll.
  afterCommit(trx, () => Promise.resolve(ctx.jobs.kick()));
  return rows.length;
}
