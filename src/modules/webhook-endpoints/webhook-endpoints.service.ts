import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { AppError, notFound } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { DELIVER_JOB, type DeliverJob } from './emit.js';
import { newSigningSecret, SecretBox } from './signing.js';
import { checkTarget, systemResolve, type Resolve } from './target.js';
import { presentDelivery, presentEndpoint } from './webhook-endpoints.presenter.js';
import * as repo from './webhook-endpoints.repository.js';
import type {
  CreateWebhookEndpoint,
  ListWebhookDeliveries,
  ListWebhookEndpoints,
  UpdateWebhookEndpoint,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './webhook-endpoints.schemas.js';

/** How long a rotated-out secret keeps signing alongside the new one (receivers switch over). */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

type Page<T> = { data: T[]; nextCursor: string | null };

/**
 * Outbound webhook endpoints (docs/webhooks.md). Each write runs in one transaction with its
 * version bump and audit event (STYLE rule 6). The signing secret is generated here, sealed
 * before it is stored, and answered only by create and rotate; it is never logged or audited.
 */
export class WebhookEndpointsService {
  private readonly box: SecretBox;

  constructor(
    private readonly ctx: AppContext,
    private readonly resolve: Resolve = systemResolve,
  ) {
    this.box = new SecretBox(ctx.appSecret);
  }

  /** 422 naming `/body/url` unless the URL is an allowed target (checked after resolving it). */
  private async assertTarget(url: string): Promise<void> {
    const check = await checkTarget(url, this.ctx.config.webhookAllowPrivateTargets, this.resolve);
    if (check.ok) return;
    throw new AppError('business_rule_violated', `The url ${check.reason}.`, {
      errors: [{ path: '/body/url', message: check.reason, code: 'target_refused' }],
    });
  }

  async create(actor: Actor, input: CreateWebhookEndpoint): Promise<WebhookEndpointWithSecret> {
    await this.assertTarget(input.url);
    const now = this.ctx.clock.now();
    const secret = newSigningSecret();
    const row: repo.WebhookEndpointRow = {
      id: newId('webhookEndpoint'),
      account_id: actor.accountId,
      url: input.url,
      description: input.description ?? null,
      event_types: JSON.stringify(input.eventTypes),
      enabled: input.enabled === false ? 0 : 1,
      secret_sealed: this.box.seal(secret),
      previous_secret_sealed: null,
      previous_secret_expires_at: null,
      disabled_reason: null,
      failure_count: 0,
      failing_since: null,
      version: 1,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const endpoint = presentEndpoint(row);
    await this.ctx.db.transaction().execute(async (trx) => {
      await this.assertEndpointFits(trx, actor.accountId);
      await repo.insertEndpoint(trx, row);
      await appendAudit(
        trx,
        actor,
        {
          action: 'webhook_endpoint.created',
          resourceType: 'webhook_endpoint',
          resourceId: row.id,
          changes: endpoint,
        },
        now,
      );
    });
    return { ...endpoint, secret };
  }

  /**
   * 409 `plan_limit_exceeded` when the account already has as many endpoints as its plan
   * allows (`webhookEndpoints`). The account lock makes two concurrent creates count in turn.
   */
  private async assertEndpointFits(trx: Transaction<DB>, accountId: string): Promise<void> {
    const plan = await this.ctx.accountPlans.lockedPlan(trx, accountId);
    const used = await repo.countEndpoints(trx, accountId);
    if (used < plan.webhookEndpoints) return;
    throw new AppError(
      'plan_limit_exceeded',
      `The ${plan.name} plan includes ${plan.webhookEndpoints} webhook endpoints and the account has ${used}. Delete one or change the plan.`,
      { members: { used, limit: plan.webhookEndpoints } },
    );
  }

  async get(accountId: string, id: string): Promise<WebhookEndpoint> {
    return presentEndpoint(await this.endpoint(accountId, id));
  }

  async list(accountId: string, query: ListWebhookEndpoints): Promise<Page<WebhookEndpoint>> {
    const limit = query.limit ?? 25;
    const rows = await repo.listEndpoints(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      enabled: query.enabled,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentEndpoint), nextCursor: page.nextCursor };
  }

  async update(
    actor: Actor,
    id: string,
    input: UpdateWebhookEndpoint,
    ifMatch: IfMatch,
  ): Promise<WebhookEndpoint> {
    if (input.version === undefined && ifMatch === undefined)
      throw new AppError(
        'precondition_required',
        'Name the version you read: `version` in the body or an `If-Match` header.',
        {
          errors: [
            {
              path: '/body/version',
              message: 'required unless If-Match is sent',
              code: 'required',
            },
          ],
        },
      );
    if (input.url !== undefined) await this.assertTarget(input.url);
    const now = this.ctx.clock.now();
    const values: Partial<repo.WebhookEndpointRow> = { updated_at: now.toISOString() };
    if (input.url !== undefined) values.url = input.url;
    if (input.eventTypes !== undefined) values.event_types = JSON.stringify(input.eventTypes);
    if (input.description !== undefined) values.description = input.description;
    if (input.enabled !== undefined) {
      values.enabled = input.enabled ? 1 : 0;
      // Enabled again (by a person): the service's verdict and the failure run start afresh;
      // disabled by a person: no reason of the service's.
      values.disabled_reason = null;
      if (input.enabled) {
        values.failure_count = 0;
        values.failing_since = null;
      }
    }
    return this.ctx.db.transaction().execute(async (trx) => {
      const updated = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Webhook endpoint',
        run: async (version) => {
          // `If-Match: *`: whatever version is stored.
          const at = version ?? (await repo.endpointVersion(trx, actor.accountId, id));
          return at === undefined
            ? undefined
            : repo.updateEndpointWithBefore(trx, actor.accountId, id, at, values);
        },
        current: () => repo.endpointVersion(trx, actor.accountId, id),
      });
      const endpoint = presentEndpoint(updated.after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'webhook_endpoint.updated',
          resourceType: 'webhook_endpoint',
          resourceId: id,
          changes: diff(presentEndpoint(updated.before), endpoint),
        },
        now,
      );
      return endpoint;
    });
  }

  /** Deletes the endpoint and its deliveries; queued attempts then find nothing to send. */
  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'webhook_endpoint',
      what: 'Webhook endpoint',
      id,
      ifMatch,
      prepare: (trx) => repo.deleteDeliveries(trx, actor.accountId, id),
      run: (trx, version) => repo.deleteEndpoint(trx, actor.accountId, id, version),
      current: (trx) => repo.endpointVersion(trx, actor.accountId, id),
      present: presentEndpoint,
    });
  }

  /**
   * A new signing secret, answered once. The previous one keeps signing alongside it for
   * PREVIOUS_SECRET_GRACE_MS (a second `v1,` signature), so receivers can switch over.
   */
  async rotateSecret(
    actor: Actor,
    id: string,
    ifMatch: IfMatch,
  ): Promise<WebhookEndpointWithSecret> {
    const now = this.ctx.clock.now();
    const secret = newSigningSecret();
    return this.ctx.db.transaction().execute(async (trx) => {
      const after = await compareAndSet({
        expected: undefined,
        ifMatch,
        what: 'Webhook endpoint',
        run: async (version) => {
          const before = await repo.findEndpoint(trx, actor.accountId, id);
          if (!before) return undefined;
          return repo.updateEndpoint(trx, actor.accountId, id, version ?? before.version, {
            secret_sealed: this.box.seal(secret),
            previous_secret_sealed: before.secret_sealed,
            previous_secret_expires_at: new Date(
              now.getTime() + PREVIOUS_SECRET_GRACE_MS,
            ).toISOString(),
            updated_at: now.toISOString(),
          });
        },
        current: () => repo.endpointVersion(trx, actor.accountId, id),
      });
      await appendAudit(
        trx,
        actor,
        {
          action: 'webhook_endpoint.secret_rotated',
          resourceType: 'webhook_endpoint',
          resourceId: id,
          changes: {},
        },
        now,
      );
      return { ...presentEndpoint(after), secret };
    });
  }

  async listDeliveries(
    accountId: string,
    endpointId: string,
    query: ListWebhookDeliveries,
  ): Promise<Page<WebhookDelivery>> {
    await this.endpoint(accountId, endpointId);
    const limit = query.limit ?? 25;
    const rows = await repo.listDeliveries(this.ctx.db, accountId, endpointId, {
      limit,
      afterId: decodeCursor(query.cursor),
      status: query.status,
      eventType: query.eventType,
    });
    const page = toPage(rows, limit);
    return { data: page.rows.map(presentDelivery), nextCursor: page.nextCursor };
  }

  /**
   * Sends a delivery again, now: the same message (same `webhook-id` and body, signed afresh)
   * as a new attempt. A delivery still waiting for a retry is sent now instead; the retry that
   * was due later then finds its attempt taken and does nothing. 409 while the endpoint is
   * disabled (enable it first).
   */
  async replay(actor: Actor, endpointId: string, deliveryId: string): Promise<WebhookDelivery> {
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    const endpoint = await this.endpoint(actor.accountId, endpointId);
    if (endpoint.enabled !== 1)
      throw new AppError(
        'state_conflict',
        'The webhook endpoint is disabled; enable it before replaying deliveries.',
      );
    const replayed = await this.ctx.db.transaction().execute(async (trx) => {
      const delivery = await repo.findDelivery(trx, actor.accountId, deliveryId);
      if (!delivery || delivery.endpoint_id !== endpointId) throw notFound('Webhook delivery');
      const values = { status: 'PENDING', next_attempt_at: at, updated_at: at };
      // Compare-and-set on the attempts count: an attempt recorded meanwhile makes this a 409.
      if (!(await repo.recordAttempt(trx, actor.accountId, deliveryId, delivery.attempts, values)))
        throw new AppError('state_conflict', 'The delivery changed meanwhile; try again.');
      const job: DeliverJob = { deliveryId, accountId: actor.accountId, dueAt: at };
      await this.ctx.jobs.enqueue(trx, DELIVER_JOB, { ...job }, actor.accountId);
      await appendAudit(
        trx,
        actor,
        {
          action: 'webhook_delivery.replayed',
          resourceType: 'webhook_delivery',
          resourceId: deliveryId,
          changes: {
            endpointId,
            attempt: delivery.attempts + 1,
            status: { from: delivery.status, to: 'PENDING' },
          },
        },
        now,
      );
      return presentDelivery({ ...delivery, ...values });
    });
    this.ctx.jobs.kick();
    return replayed;
  }

  private async endpoint(accountId: string, id: string): Promise<repo.WebhookEndpointRow> {
    const row = await repo.findEndpoint(this.ctx.db, accountId, id);
    if (!row) throw notFound('Webhook endpoint');
    return row;
  }
}
