import type { Kysely } from 'kysely';
import type { DB } from '../../db/schema.js';
import { findAccount } from '../account/account.repository.js';
import type { Plan, PlanCatalogue } from './plans.catalogue.js';

const CACHE_MS = 30_000;

/**
 * Which plan an account is on, cached for the rate limiter. A plan change in this process
 * applies at once (`forget`); other replicas pick it up within 30 seconds.
 */
export class AccountPlans {
  private readonly cache = new Map<string, { plan: Plan; at: number }>();

  constructor(
    private readonly db: Kysely<DB>,
    readonly catalogue: PlanCatalogue,
  ) {}

  async get(accountId: string, now = Date.now()): Promise<Plan> {
    const cached = this.cache.get(accountId);
    if (cached && now - cached.at < CACHE_MS) return cached.plan;
    const account = await findAccount(this.db, accountId);
    const plan = this.catalogue.get(account?.plan_id ?? 'FREE');
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(accountId, { plan, at: now });
    return plan;
  }

  forget(accountId: string): void {
    this.cache.delete(accountId);
  }
}
