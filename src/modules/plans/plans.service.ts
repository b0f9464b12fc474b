import type { Static } from 'typebox';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import type { Principal } from '../../http/types.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { toMajor } from '../../shared/money.js';
import { findAccount, lockAccount, setAccountPlan } from '../account/index.js';
import type { CataloguePlan as Plan } from './plans.catalogue.js';
import type { LicenseSchema, PlansSchema, UsageSchema } from './plans.schemas.js';
import { monthOf, msToMonthEnd } from './usage-meter.js';
import { storageUsedBytes } from '../files/index.js';
import { countUsers } from '../users/index.js';
import { countWebhookEndpoints } from '../webhook-endpoints/index.js';
import { mailCounterKey, mailsPerDay } from './send-quota.js';
import * as repo from './plans.repository.js';
import { userMinuteKey } from '../../http/rate-limit.js';

type License = Static<typeof LicenseSchema>;

function view(plan: Plan) {
  return {
    ...plan,
    mailsPerDay: mailsPerDay(plan),
    monthlyPrice: toMajor(plan.monthlyPrice, plan.currency),
  };
}

/** Plans, the account's license and its usage (decisions §13). */
export class PlansService {
  constructor(private readonly ctx: AppContext) {}

  private async planOfAccount(accountId: string): Promise<Plan> {
    const account = await findAccount(this.ctx.db, accountId);
    return this.ctx.plans.get(account?.plan_id ?? 'FREE');
  }

  async list(accountId: string): Promise<Static<typeof PlansSchema>> {
    return {
      data: this.ctx.plans.plans.map(view),
      currentPlanId: (await this.planOfAccount(accountId)).id,
    };
  }

  /** Switches the plan; a downgrade that current usage exceeds is refused, naming what exceeds. */
  async change(actor: Actor, planId: string): Promise<Static<typeof PlansSchema>> {
    if (!this.ctx.plans.has(planId))
      throw new AppError('validation_failed', `Unknown plan ${planId}.`, {
        errors: [
          {
            path: '/body/planId',
            message: `must be one of ${this.ctx.plans.plans.map((p) => p.id).join(', ')}`,
            code: 'not_in_enum',
          },
        ],
      });
    const target = this.ctx.plans.get(planId);
    const now = this.ctx.clock.now();
    // Read before the transaction: on SQLite the one connection is the transaction's.
    const requests = await this.ctx.usage.used(actor.accountId, now);
    await this.ctx.db.transaction().execute(async (trx) => {
      await lockAccount(trx, actor.accountId);
      const account = await findAccount(trx, actor.accountId);
      const from = account?.plan_id ?? 'FREE';
      if (from === planId) return;
      const seats = await countUsers(trx, actor.accountId);
      const storage = await storageUsedBytes(trx, actor.accountId);
      const endpoints = await countWebhookEndpoints(trx, actor.accountId);
      const exceeded = [
        storage > target.storageBytes
          ? `storage: ${storage} bytes in use, ${target.name} includes ${target.storageBytes}`
          : undefined,
        seats > target.seats
          ? `seats: ${seats} in use, ${target.name} includes ${target.seats}`
          : undefined,
        endpoints > target.webhookEndpoints
          ? `webhook endpoints: ${endpoints}, ${target.name} includes ${target.webhookEndpoints}`
          : undefined,
        requests > target.requestsPerMonth
          ? `requests this month: ${requests}, ${target.name} includes ${target.requestsPerMonth}`
          : undefined,
      ].filter((x): x is string => x !== undefined);
      if (exceeded.length > 0)
        throw new AppError(
          'plan_limit_exceeded',
          `Current usage exceeds the ${target.name} plan: ${exceeded.join('; ')}.`,
          {
            members: { exceeded },
          },
        );
      await setAccountPlan(trx, actor.accountId, planId, now.toISOString());
      await appendAudit(
        trx,
        actor,
        {
          action: 'plan.changed',
          resourceType: 'account',
          resourceId: actor.accountId,
          changes: { planId: { from, to: planId } },
        },
        now,
      );
    });
    this.ctx.accountPlans.forget(actor.accountId);
    return this.list(actor.accountId);
  }

  async license(accountId: string): Promise<License> {
    const [plan, row] = await Promise.all([
      this.planOfAccount(accountId),
      repo.findLicense(this.ctx.db, accountId),
    ]);
    const now = this.ctx.clock.now();
    const start = `${monthOf(now)}-01`;
    const end = new Date(now.getTime() + msToMonthEnd(now)).toISOString().slice(0, 10);
    return {
      accountId,
      planId: plan.id,
      planName: plan.name,
      seats: plan.seats,
      status: (row?.status ?? 'ACTIVE') as License['status'],
      currentPeriodStart: start,
      currentPeriodEnd: row?.current_period_end?.slice(0, 10) ?? end,
      version: row?.version ?? 1,
    };
  }

  async usage(principal: Principal): Promise<Static<typeof UsageSchema>> {
    const now = this.ctx.clock.now();
    const plan = await this.planOfAccount(principal.accountId);
    const [minute, month, seats, storage, documents, mails] = await Promise.all([
      this.ctx.counters.peek(userMinuteKey(principal)),
      this.ctx.usage.used(principal.accountId, now),
      countUsers(this.ctx.db, principal.accountId),
      storageUsedBytes(this.ctx.db, principal.accountId),
      repo.countDocuments(this.ctx.db, principal.accountId),
      this.ctx.counters.peek(mailCounterKey(principal.accountId, now)),
    ]);
    return {
      planId: plan.id,
      period: {
        month: monthOf(now),
        resetsAt: new Date(now.getTime() + msToMonthEnd(now)).toISOString(),
      },
      requests: {
        thisMinute: { used: minute.count, limit: plan.requestsPerMinute },
        thisMonth: { used: month, limit: plan.requestsPerMonth },
      },
      storage: { usedBytes: storage, limitBytes: plan.storageBytes },
      seats: { used: seats, included: plan.seats },
      documents: { count: documents },
      mailsToday: { used: mails.count, limit: mailsPerDay(plan) },
      rateLimits: this.ctx.config.rateLimits,
    };
  }
}
