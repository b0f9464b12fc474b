import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../shared/errors.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { findAccount, lockAccount, setAccountPlan } from '../account/index.js';
import type { SubscriptionChange } from './subscription-change.js';
import type { WebhookAck } from './webhooks.schemas.js';
import { findLicense, recordWebhookEvent, saveLicense } from './webhooks.repository.js';

/** A delivery arriving later than a newer state it would overwrite. */
function isStale(
  change: SubscriptionChange,
  stored:
    | { status: string; current_period_end: string | null; provider_subscription_id: string | null }
    | undefined,
): boolean {
  if (!stored?.provider_subscription_id) return false;
  // A cancellation of a subscription the license no longer follows (replaced by a newer one).
  if (stored.provider_subscription_id !== change.subscriptionId)
    return change.status === 'CANCELED';
  // Same subscription: a cancellation always applies; anything else must not go back in time,
  // and a canceled subscription only comes back with a later period.
  if (change.status === 'CANCELED') return false;
  if (change.currentPeriodEnd === null || stored.current_period_end === null) return false;
  if (change.currentPeriodEnd < stored.current_period_end) return true;
  return stored.status === 'CANCELED' && change.currentPeriodEnd <= stored.current_period_end;
}

/** The account the change names, once the plan it names is in the catalogue; else a 4xx. */
async function knownAccountAndPlan(
  ctx: AppContext,
  trx: Transaction<DB>,
  change: SubscriptionChange,
) {
  const account = await findAccount(trx, change.accountId);
  if (!account)
    throw new AppError('reference_not_found', `Account ${change.accountId} does not exist.`, {
      errors: [
        { path: '/body/accountId', message: 'Account not found', code: 'reference_not_found' },
      ],
    });
  if (!ctx.plans.has(change.planId))
    throw new AppError(
      'business_rule_violated',
      `Plan ${change.planId} is not in the catalogue (${ctx.plans.plans.map((p) => p.id).join(', ')}).`,
      {
        errors: [{ path: '/body/planId', message: 'is not a catalogue plan', code: 'not_in_enum' }],
      },
    );
  return account;
}

/** The license's period end after the change: a late cancellation does not move it back. */
function periodEndAfter(
  change: SubscriptionChange,
  stored: Awaited<ReturnType<typeof findLicense>>,
): string | null {
  return stored?.current_period_end &&
    stored.provider_subscription_id === change.subscriptionId &&
    (change.currentPeriodEnd === null || change.currentPeriodEnd < stored.current_period_end)
    ? stored.current_period_end
    : change.currentPeriodEnd;
}

/**
 * Applies a verified subscription event to the account's plan and license in one
 * transaction with its processed-event record and audit event: a replay changes nothing, an
 * unknown account or plan rolls everything back (so a corrected retry is processed), and an
 * out-of-order delivery never overwrites a newer state.
 */
export async function applySubscriptionChange(
  ctx: AppContext,
  change: SubscriptionChange,
  meta: { requestId: string; ip: string },
): Promise<WebhookAck> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const outcome = await ctx.db.transaction().execute(async (trx) => {
    const fresh = await recordWebhookEvent(trx, change, at);
    if (!fresh) return { duplicate: true } as const;
    await lockAccount(trx, change.accountId);
    const account = await knownAccountAndPlan(ctx, trx, change);
    const stored = await findLicense(trx, change.accountId);
    if (isStale(change, stored)) return { stale: true } as const;

    const periodEnd = periodEndAfter(change, stored);
    const before = {
      planId: account.plan_id,
      status: stored?.status ?? null,
      currentPeriodEnd: stored?.current_period_end ?? null,
      subscriptionId: stored?.provider_subscription_id ?? null,
    };
    const after = {
      planId: change.planId,
      status: change.status,
      currentPeriodEnd: periodEnd,
      subscriptionId: change.subscriptionId,
    };
    const changes = diff(before, after);
    if (Object.keys(changes).length === 0) return {};

    if (account.plan_id !== change.planId)
      await setAccountPlan(trx, change.accountId, change.planId, at);
    await saveLicense(
      trx,
      change.accountId,
      {
        status: change.status,
        current_period_end: periodEnd,
        provider_subscription_id: change.subscriptionId,
      },
      stored !== undefined,
      at,
    );
    const actor: Actor = {
      accountId: change.accountId,
      userId: null,
      tokenId: null,
      type: 'system',
      requestId: meta.requestId,
      ip: meta.ip,
    };
    await appendAudit(
      trx,
      actor,
      {
        action: 'license.updated',
        resourceType: 'license',
        resourceId: change.accountId,
        changes: {
          ...changes,
          providerEvent: { provider: change.provider, eventId: change.eventId, type: change.type },
        },
      },
      now,
    );
    return {};
  });
  if (!('duplicate' in outcome) && !('stale' in outcome)) ctx.accountPlans.forget(change.accountId);
  return { received: true, ...outcome };
}
