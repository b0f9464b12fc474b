import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { DEFAULT_PLAN, type CataloguePlan as Plan, type PlanCatalogue } from './plans.catalogue.js';

const CACHE_MS = 30_000;

/** The account module's reads this needs, handed in by the app (the context must not import it). */
export interface AccountAccess {
  findAccount: (
    db: Kysely<DB> | Transaction<DB>,
    accountId: string,
  ) => Promise<{ plan_id: string | null } | undefined>;
  lockAccount: (trx: Transaction<DB>, accountId: string) => Promise<void>;
}

/**
 * Which plan an account is on, cached for the rate limiter. A plan change in this process
 * applies at once (`forget`); other replicas pick it up within 30 seconds.
 */
export class AccountPlans {
  private readonly cache = new Map<string, { plan: Plan; at: number }>();

  constructor(
    private readonly db: Kysely<DB>,
    readonly catalogue: PlanCatalogue,
    private readonly accounts: AccountAccess,
  ) {}

  /** The plan when it is cached and fresh; no query. */
  cached(accountId: string, now = Date.now()): Plan | undefined {
    const cached = this.cache.get(accountId);
    return cached && now - cached.at < CACHE_MS ? cached.plan : undefined;
  }

  async get(accountId: string, now = Date.now()): Promise<Plan> {
    const cached = this.cached(accountId, now);
    if (cached) return cached;
    const account = await this.accounts.findAccount(this.db, accountId);
    const plan = this.catalogue.get(account?.plan_id ?? DEFAULT_PLAN);
    if (this.cache.size > 50_000) this.cache.clear();
    this.cache.set(accountId, { plan, at: now });
    return plan;
  }

  /**
   * Locks the account and reads its plan in `trx`, uncached: what a limit check that must not
   * race a concurrent write of the same account (an upload, a plan change) decides on.
   */
  async lockedPlan(trx: Transaction<DB>, accountId: string): Promise<Plan> {
    await this.accounts.lockAccount(trx, accountId);
    const account = await this.accounts.findAccount(trx, accountId);
    return this.catalogue.get(account?.plan_id ?? DEFAULT_PLAN);
  }

  forget(accountId: string): void {
    this.cache.delete(accountId);
  }
}
