import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { appendAudit, systemActor } from '../../shared/audit.js';
import type { Executor } from '../../db/records.js';
import { DELIVER_JOB, type DeliverJob } from './emit.js';
import { post, type AttemptResult } from './send.js';
import { SecretBox, signedHeaders } from './signing.js';
import { checkTarget, systemResolve, type Resolve } from './target.js';
import { lockAccount } from '../account/index.js';
import { activeAdminEmails } from '../users/index.js';
import * as repo from './webhook-endpoints.repository.js';

/**
 * The delivery jobs (docs/webhooks.md, "Delivery" and "Fairness"). A job is a turn of one
 * account: it sends that account's delivery that is next (healthy endpoints first, then the
 * longest due), and when it has recorded the outcome and more are due it queues the account's
 * next turn, at the back of the queue. An account has at most `WEBHOOK_ACCOUNT_CONCURRENCY`
 * attempts in flight (the send leases in `webhook_deliveries`, across processes): a turn that
 * finds its account there ends, so an account whose endpoints hang holds at most that many job
 * slots and queues about as many turns, and another account's turn is never behind its
 * backlog. Nothing here depends on how the queue stores or orders jobs beyond "run this job,
 * at least once, not before then": the same on the embedded queue and on pg-boss, with any
 * number of replicas.
 *
 * Jobs run at least once, so a delivery is sent under a lease taken by compare-and-set, and the
 * outcome is recorded by compare-and-set on the delivery's attempts count: a second run of a
 * job finds the delivery leased or recorded. (A worker that dies after sending and before
 * recording sends that attempt again once the lease runs out: receivers dedupe on
 * `webhook-id`.)
 *
 * A failed attempt schedules the next one in the same transaction that records it
 * (`WEBHOOK_RETRY_SCHEDULE`); after the last one the delivery is FAILED. An endpoint that has
 * answered no attempt successfully for `WEBHOOK_DISABLE_AFTER_HOURS` (or, at a delivery's last
 * attempt, for the whole schedule when that is shorter) is disabled and the account's admins
 * are mailed.
 */
export function registerDeliveryJob(ctx: AppContext, resolve: Resolve = systemResolve): void {
  const box = new SecretBox(ctx.appSecret);
  ctx.jobs.register(DELIVER_JOB, {
    run: (payload) => turn(ctx, box, resolve, payload as unknown as DeliverJob),
    failed: (payload, error) => {
      ctx.logger.error({ deliveryId: payload.deliveryId, error }, 'webhook attempt not recorded');
      return Promise.resolve();
    },
  });
}

/** How long a send lease outlasts the attempt's own timeout: time to record the outcome. */
const LEASE_MARGIN_MS = 60_000;
/**
 * How far another process's clock may be ahead: an event it committed is due here too (a turn
 * that ends at the account's share relies on the one in flight to find it).
 */
const CLOCK_SLACK_MS = 1000;
/** Choices a turn makes before it ends (other turns of the account leased each one first). */
const LEASE_TRIES = 3;

/** Queues a turn of the account, not before `runAt`. */
async function queueTurn(
  ctx: Pick<AppContext, 'jobs'>,
  trx: Executor,
  turn: DeliverJob,
  runAt?: Date,
): Promise<void> {
  await ctx.jobs.enqueue(trx, DELIVER_JOB, { ...turn }, turn.accountId, runAt ? { runAt } : {});
}

/** One turn of an account: sends its next delivery, if it has one and its share allows. */
async function turn(ctx: AppContext, box: SecretBox, resolve: Resolve, job: DeliverJob) {
  const { accountId } = job;
  for (let i = 0; i < LEASE_TRIES; i++) {
    const now = ctx.clock.now();
    const at = now.toISOString();
    // A turn runs when the queue finds it due (pg-boss by the database's clock): what was due
    // when it was queued for (an event's time, a retry's) is due now, whatever this process's
    // clock says.
    const dueBy = job.dueAt !== undefined && job.dueAt > at ? job.dueAt : at;
    const slack = new Date(now.getTime() + CLOCK_SLACK_MS).toISOString();
    const due = { dueBy, freshBy: slack > dueBy ? slack : dueBy };
    const deliveryId = await repo.nextDueDelivery(ctx.db, accountId, at, due);
    if (!deliveryId) return;
    const until = new Date(now.getTime() + ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS);
    const times = { now: at, ...due, until: until.toISOString() };
    const cap = ctx.config.webhookAccountConcurrency;
    const lease = await ctx.db.transaction().execute(async (trx) => {
      // The account's row, not one of its endpoints' (which a delete could take away).
      await lockAccount(trx, accountId);
      return repo.leaseWithinShare(trx, accountId, deliveryId, times, cap);
    });
    // At its share: the attempt in flight hands on when it records (`handOn`, which looks
    // for this delivery under the same lock, so it cannot miss it).
    if (lease === 'full') return;
    if (lease === 'leased')
      return attempt(ctx, box, resolve, accountId, deliveryId, times.until).catch(
        async (err: unknown) => {
          // Not recorded (the database went away): the lease goes back, so the queue's retry of
          // this turn finds the account below its share and sends the delivery again.
          await repo
            .releaseDelivery(ctx.db, accountId, deliveryId, times.until)
            .catch(() => undefined);
          throw err;
        },
      );
  }
}

/**
 * In the transaction that records an attempt and gives its lease back: when the account has
 * more deliveries due, its next turn (at the back of the queue, behind other accounts' turns).
 * Under the account's dispatch lock: a turn that found the account at its share while this
 * attempt was in flight either waited for this transaction (and then finds the lease given
 * back) or had ended before it looked (and then its delivery is seen here).
 */
async function handOn(ctx: AppContext, trx: Transaction<DB>, accountId: string) {
  await lockAccount(trx, accountId);
  // Read the clock after the lock: an event committed while this attempt was recording is
  // due by now. The slack covers another replica's clock being a little ahead (first attempts
  // only: a retry is not sent early).
  const now = ctx.clock.now();
  const at = now.toISOString();
  const freshBy = new Date(now.getTime() + CLOCK_SLACK_MS).toISOString();
  if (await repo.nextDueDelivery(trx, accountId, at, { dueBy: at, freshBy }))
    await queueTurn(ctx, trx, { accountId });
}

const isSuccess = (r: AttemptResult) =>
  r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

/** One attempt of a delivery this job holds the lease of. */
async function attempt(
  ctx: AppContext,
  box: SecretBox,
  resolve: Resolve,
  accountId: string,
  deliveryId: string,
  lease: string,
): Promise<void> {
  const delivery = await repo.findDelivery(ctx.db, accountId, deliveryId);
  const endpoint = delivery && (await repo.findEndpoint(ctx.db, accountId, delivery.endpoint_id));
  if (!delivery || !endpoint || delivery.status !== 'PENDING')
    return repo.releaseDelivery(ctx.db, accountId, deliveryId, lease);
  if (endpoint.enabled !== 1) {
    const at = ctx.clock.now().toISOString();
    await ctx.db.transaction().execute(async (trx) => {
      await repo.recordAttempt(trx, accountId, deliveryId, delivery.attempts, {
        status: 'FAILED',
        next_attempt_at: null,
        last_error: 'not sent: the endpoint is disabled',
        sending_until: null,
        updated_at: at,
      });
      await handOn(ctx, trx, accountId);
    });
    ctx.jobs.kick();
    return;
  }
  // Whatever stops the attempt before an answer (a secret that no longer opens, a signing
  // error) is a failed attempt like a refused connection: recorded, retried on schedule, and
  // counted against the endpoint — never a delivery left PENDING that every later turn of the
  // account would pick first and fail on again.
  const result = await send(ctx, box, resolve, endpoint, delivery).catch(
    (err: unknown): AttemptResult => ({
      statusCode: null,
      latencyMs: 0,
      excerpt: null,
      error: `not sent: ${err instanceof Error ? err.message : String(err)}`.slice(0, 500),
    }),
  );
  const disabled = await record(ctx, delivery, endpoint.id, result, lease);
  ctx.jobs.kick();
  if (disabled) await mailDisabled(ctx, disabled, delivery.attempts + 1);
}

/**
 * Records the attempt's outcome and gives the lease back, in one transaction with the next
 * attempt's job (after a failure), the account's next turn, and the disable verdict. Answers
 * the endpoint when this attempt disabled it.
 */
async function record(
  ctx: AppContext,
  delivery: repo.WebhookDeliveryRow,
  endpointId: string,
  result: AttemptResult,
  lease: string,
): Promise<repo.WebhookEndpointRow | undefined> {
  const { account_id: accountId, id: deliveryId } = delivery;
  const attemptNo = delivery.attempts + 1;
  const now = ctx.clock.now();
  const at = now.toISOString();
  const schedule = ctx.config.webhookRetrySchedule;
  const ok = isSuccess(result);
  const delay = schedule[attemptNo - 1];
  const next = ok || delay === undefined ? undefined : new Date(now.getTime() + delay * 1000);
  const status = ok ? 'SUCCEEDED' : next ? 'PENDING' : 'FAILED';
  return ctx.db.transaction().execute(async (trx) => {
    const taken = await repo.recordAttempt(trx, accountId, deliveryId, delivery.attempts, {
      attempts: attemptNo,
      last_attempt_at: at,
      last_status_code: result.statusCode,
      last_latency_ms: result.latencyMs,
      last_error: result.error,
      response_excerpt: result.excerpt,
      updated_at: at,
      status,
      next_attempt_at: next?.toISOString() ?? null,
      sending_until: null,
    });
    if (!taken) {
      // A replay recorded meanwhile: this outcome is not the delivery's, the lease is.
      await repo.releaseDelivery(trx, accountId, deliveryId, lease);
      return undefined;
    }
    await repo.recordEndpointOutcome(trx, accountId, endpointId, ok, at);
    if (next)
      await queueTurn(
        ctx,
        trx,
        { accountId, deliveryId, dueAt: next.toISOString() },
        delay ? next : undefined,
      );
    await handOn(ctx, trx, accountId);
    if (ok) return undefined;
    const window = ctx.config.webhookDisableAfterHours * 3_600_000;
    const whole = schedule.reduce((sum, s) => sum + s, 0) * 1000;
    const span = status === 'FAILED' ? Math.min(window, whole) : window;
    return disableIfFailingThroughout(trx, accountId, endpointId, span, result, now);
  });
}

/**
 * After a failed attempt: disables the endpoint when nothing it was sent succeeded for `span`
 * ms (an endpoint that refuses one message but takes others keeps working), with its audit
 * event. Answers the disabled endpoint, or undefined.
 */
async function disableIfFailingThroughout(
  trx: Transaction<DB>,
  accountId: string,
  endpointId: string,
  span: number,
  result: AttemptResult,
  now: Date,
) {
  const current = await repo.findEndpoint(trx, accountId, endpointId);
  if (!current?.failing_since || now.getTime() - new Date(current.failing_since).getTime() < span)
    return undefined;
  const reason =
    `Every delivery attempt since ${current.failing_since} failed; the last: ` +
    (result.statusCode !== null ? `HTTP ${result.statusCode}` : (result.error ?? 'no answer'));
  const off = await repo.disableEndpoint(trx, accountId, endpointId, reason, now.toISOString());
  if (!off) return undefined;
  await appendAudit(
    trx,
    systemActor(accountId),
    {
      action: 'webhook_endpoint.disabled',
      resourceType: 'webhook_endpoint',
      resourceId: endpointId,
      changes: {
        enabled: { from: true, to: false },
        disabledReason: { from: null, to: reason },
      },
    },
    now,
  );
  return off;
}

/** Signs and sends one attempt, after checking the target again (it may resolve elsewhere now). */
async function send(
  ctx: AppContext,
  box: SecretBox,
  resolve: Resolve,
  endpoint: repo.WebhookEndpointRow,
  delivery: repo.WebhookDeliveryRow,
): Promise<AttemptResult> {
  const target = await checkTarget(endpoint.url, ctx.config.webhookAllowPrivateTargets, resolve);
  if (!target.ok)
    return {
      statusCode: null,
      latencyMs: 0,
      excerpt: null,
      error: `not sent: the url ${target.reason}`,
    };
  const now = ctx.clock.now();
  const secrets = [box.open(endpoint.secret_sealed)];
  if (
    endpoint.previous_secret_sealed !== null &&
    endpoint.previous_secret_expires_at !== null &&
    endpoint.previous_secret_expires_at > now.toISOString()
  )
    secrets.push(box.open(endpoint.previous_secret_sealed));
  const headers = signedHeaders(
    secrets,
    delivery.id,
    Math.floor(now.getTime() / 1000),
    delivery.payload,
  );
  return post(target, headers, delivery.payload, ctx.config.webhookTimeoutMs);
}

/** Tells the account's admins, once (only the transaction that disabled it gets here). */
async function mailDisabled(
  ctx: AppContext,
  endpoint: repo.WebhookEndpointRow,
  attempts: number,
): Promise<void> {
  const to = await activeAdminEmails(ctx.db, endpoint.account_id);
  if (to.length === 0) return;
  const url = endpoint.url.length > 120 ? `${endpoint.url.slice(0, 117)}…` : endpoint.url;
  try {
    await ctx.mailer.send({
      to: to.join(', '),
      subject: `Webhook endpoint disabled: ${url}`,
      text:
        `Kontor stopped sending events to the webhook endpoint ${endpoint.url} (${endpoint.id}).\n\n` +
        `A delivery failed all of its ${attempts} attempts. ${endpoint.disabled_reason ?? ''}\n\n` +
        'Events that happen while the endpoint is disabled are not delivered to it. Once the ' +
        'receiver works again, enable the endpoint (PUT /v1/webhook-endpoints/' +
        `${endpoint.id} with "enabled": true) and replay the deliveries it missed ` +
        `(GET /v1/webhook-endpoints/${endpoint.id}/deliveries?status=FAILED, then POST ` +
        '…/deliveries/{deliveryId}/replay).\n',
    });
  } catch (err) {
    ctx.logger.error({ err, endpointId: endpoint.id }, 'webhook disable mail not sent');
  }
}
