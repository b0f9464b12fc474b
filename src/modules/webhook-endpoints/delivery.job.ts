import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { appendAudit, systemActor } from '../../shared/audit.js';
import { DELIVER_JOB, type DeliverJob } from './emit.js';
import { post, type AttemptResult } from './send.js';
import { SecretBox, signedHeaders } from './signing.js';
import { checkTarget, systemResolve, type Resolve } from './target.js';
import { activeAdminEmails } from '../users/index.js';
import * as repo from './webhook-endpoints.repository.js';

/**
 * One attempt of one delivery, as a job (docs/webhooks.md, "Delivery"). Jobs run at least
 * once, so the job names the attempt it makes and the outcome is recorded by compare-and-set
 * on the delivery's attempts count: a second run of the same job, or a retry that a replay
 * overtook, finds its attempt taken and sends nothing more. (A worker that dies after sending
 * and before recording sends that attempt again: receivers dedupe on `webhook-id`.)
 *
 * A failed attempt schedules the next one in the same transaction that records it
 * (`WEBHOOK_RETRY_SCHEDULE`); after the last one the delivery is FAILED, and when the endpoint
 * has not answered any attempt successfully for the whole schedule it is disabled and the
 * account's admins are mailed.
 */
export function registerDeliveryJob(ctx: AppContext, resolve: Resolve = systemResolve): void {
  const box = new SecretBox(ctx.appSecret);
  ctx.jobs.register(DELIVER_JOB, {
    run: (payload) => attempt(ctx, box, resolve, payload as unknown as DeliverJob),
    failed: (payload, error) => {
      ctx.logger.error({ deliveryId: payload.deliveryId, error }, 'webhook attempt not recorded');
      return Promise.resolve();
    },
  });
}

const isSuccess = (r: AttemptResult) =>
  r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;

async function attempt(
  ctx: AppContext,
  box: SecretBox,
  resolve: Resolve,
  job: DeliverJob,
): Promise<void> {
  const { accountId, deliveryId } = job;
  const delivery = await repo.findDelivery(ctx.db, accountId, deliveryId);
  if (!delivery || delivery.status !== 'PENDING' || delivery.attempts + 1 !== job.attempt) return;
  const endpoint = await repo.findEndpoint(ctx.db, accountId, delivery.endpoint_id);
  if (!endpoint) return;
  if (endpoint.enabled !== 1) {
    const at = ctx.clock.now().toISOString();
    await repo.recordAttempt(ctx.db, accountId, deliveryId, delivery.attempts, {
      status: 'FAILED',
      next_attempt_at: null,
      last_error: 'not sent: the endpoint is disabled',
      updated_at: at,
    });
    return;
  }

  const result = await send(ctx, box, resolve, endpoint, delivery);
  const now = ctx.clock.now();
  const at = now.toISOString();
  const schedule = ctx.config.webhookRetrySchedule;
  const ok = isSuccess(result);
  const recorded: Partial<repo.WebhookDeliveryRow> = {
    attempts: job.attempt,
    last_attempt_at: at,
    last_status_code: result.statusCode,
    last_latency_ms: result.latencyMs,
    last_error: result.error,
    response_excerpt: result.excerpt,
    updated_at: at,
  };
  const delay = schedule[job.attempt - 1];
  const next = ok || delay === undefined ? undefined : new Date(now.getTime() + delay * 1000);

  const disabled = await ctx.db.transaction().execute(async (trx) => {
    const status = ok ? 'SUCCEEDED' : next ? 'PENDING' : 'FAILED';
    const taken = await repo.recordAttempt(trx, accountId, deliveryId, delivery.attempts, {
      ...recorded,
      status,
      next_attempt_at: next?.toISOString() ?? null,
    });
    if (!taken) return undefined;
    await repo.recordEndpointOutcome(trx, accountId, endpoint.id, ok, at);
    if (next) {
      const retry: DeliverJob = { deliveryId, accountId, attempt: job.attempt + 1 };
      await ctx.jobs.enqueue(
        trx,
        DELIVER_JOB,
        { ...retry },
        accountId,
        delay ? { runAt: next } : {},
      );
    }
    if (status !== 'FAILED') return undefined;
    return disableIfFailingThroughout(trx, accountId, endpoint.id, schedule, result, now);
  });
  if (next) ctx.jobs.kick();
  if (disabled) await mailDisabled(ctx, disabled, job.attempt);
}

/**
 * Out of retries: disables the endpoint when nothing it was sent succeeded for the whole
 * retry schedule (an endpoint that refuses one message but takes others keeps working), with
 * its audit event. Answers the disabled endpoint, or undefined.
 */
async function disableIfFailingThroughout(
  trx: Transaction<DB>,
  accountId: string,
  endpointId: string,
  schedule: number[],
  result: AttemptResult,
  now: Date,
) {
  const current = await repo.findEndpoint(trx, accountId, endpointId);
  const span = schedule.reduce((sum, s) => sum + s, 0) * 1000;
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
