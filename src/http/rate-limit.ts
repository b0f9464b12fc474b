import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { Principal } from './types.js';
import { MINUTE } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';

type Plan = Awaited<ReturnType<AppContext['accountPlans']['get']>>;
import type { CounterState, Hit } from '../shared/counters.js';

/**
 * The per-minute counter of a user, shared by all their tokens and sessions; `GET /v1/usage`
 * reads it too.
 */
export function userMinuteKey(principal: Pick<Principal, 'userId'>): string {
  return `rl:u:${principal.userId}`;
}

/** The per-minute counter of an account, shared by all its users. */
export function accountMinuteKey(principal: Pick<Principal, 'accountId'>): string {
  return `rl:a:${principal.accountId}`;
}

/** Sets the headers of the tightest minute and refuses past a limit or the quota. */
function judge(
  usage: AppContext['usage'],
  req: FastifyRequest,
  reply: FastifyReply,
  plan: Plan,
  now: Date,
  [user, account, month]: (CounterState | undefined)[],
): void {
  const principal = req.principal!;
  const accountLimit = plan.requestsPerMinute * plan.seats;
  const byAccount = accountLimit - account!.count < plan.requestsPerMinute - user!.count;
  const tightest = byAccount
    ? { scope: 'account', limit: accountLimit, count: account!.count, resetMs: account!.resetMs }
    : {
        scope: 'user',
        limit: plan.requestsPerMinute,
        count: user!.count,
        resetMs: user!.resetMs,
      };
  const reset = Math.max(1, Math.ceil(tightest.resetMs / 1000));
  reply.header('ratelimit-limit', String(tightest.limit));
  reply.header('ratelimit-remaining', String(Math.max(0, tightest.limit - tightest.count)));
  reply.header('ratelimit-reset', String(reset));
  if (tightest.count > tightest.limit)
    throw new AppError(
      'rate_limited',
      tightest.scope === 'user'
        ? `The ${plan.name} plan allows ${plan.requestsPerMinute} requests per minute and user, whatever the token. Try again in ${reset} seconds.`
        : `The ${plan.name} plan allows ${tightest.limit} requests per minute for the account (${plan.requestsPerMinute} per seat). Try again in ${reset} seconds.`,
      {
        headers: { 'retry-after': String(reset) },
      },
    );
  usage.counted(principal.accountId, now);
  if (month!.count > plan.requestsPerMonth) {
    const retry = Math.max(1, Math.ceil(month!.resetMs / 1000));
    throw new AppError(
      'quota_exceeded',
      `The ${plan.name} plan includes ${plan.requestsPerMonth} requests per month; the quota renews at the start of next month.`,
      {
        headers: { 'retry-after': String(retry) },
      },
    );
  }
}

/**
 * The two minute hits of a principal under a plan, made once: the principal is the credential
 * cache's object, the same for every request of a token, and a key made anew would be hashed
 * anew; the hits stay as long as the plan does.
 */
const minuteHits = new WeakMap<Principal, { plan: Plan; user: Hit; account: Hit }>();
function minutesOf(principal: Principal, plan: Plan): { user: Hit; account: Hit } {
  let hits = minuteHits.get(principal);
  if (hits === undefined || hits.plan !== plan) {
    hits = {
      plan,
      user: { key: userMinuteKey(principal), windowMs: MINUTE, limit: plan.requestsPerMinute },
      account: {
        key: accountMinuteKey(principal),
        windowMs: MINUTE,
        limit: plan.requestsPerMinute * plan.seats,
      },
    };
    minuteHits.set(principal, hits);
  }
  return hits;
}

/**
 * One round trip: both minutes always count (refused requests too); the month counts only a
 * request neither minute refuses.
 */
const hits = (principal: Principal, plan: Plan, month: Hit): Hit[] => {
  const { user, account } = minutesOf(principal, plan);
  return [
    user,
    account,
    { key: month.key, windowMs: month.windowMs, limit: plan.requestsPerMonth, onlyIfUnder: true },
  ];
};

/**
 * Rate limit per minute, quota per account and month, both from the account's plan (decisions
 * §13). The minute is counted per user and per account, never per token: a counter per token
 * would give every new token (or session) a fresh limit, so minting tokens would multiply it.
 * A user may make the plan's `requestsPerMinute`, an account that times its seats. Every
 * authenticated response carries `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`
 * of whichever of the two is nearer its end; past a limit the answer is 429 `rate_limited`,
 * past the quota 429 `quota_exceeded`, each with `Retry-After`. `RATE_LIMITS=off` lifts both.
 * Refused requests count too.
 */
export function registerRateLimits(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.rateLimits === 'off') return;

  async function count(req: FastifyRequest, reply: FastifyReply, now: Date): Promise<void> {
    const principal = req.principal!;
    const plan = await ctx.accountPlans.get(principal.accountId, now.getTime());
    const month = await ctx.usage.monthHit(principal.accountId, now);
    judge(
      ctx.usage,
      req,
      reply,
      plan,
      now,
      await ctx.counters.hitMany(hits(principal, plan, month)),
    );
  }

  // A callback hook: with the plan cached, the month seeded and the counts at hand (memory, or
  // leases taken from Redis), a request is counted without a promise; otherwise one round trip
  // (Redis) or a first read.
  app.addHook('onRequest', (req, reply, done) => {
    const principal = req.principal;
    if (!principal) return done();
    const now = ctx.clock.now();
    try {
      const plan = ctx.accountPlans.cached(principal.accountId, now.getTime());
      const month = plan && ctx.usage.monthHitNow(principal.accountId, now);
      const counted = month && ctx.counters.hitManyNow?.(hits(principal, plan, month));
      if (counted) {
        judge(ctx.usage, req, reply, plan, now, counted);
        return done();
      }
    } catch (err) {
      return done(err as Error);
    }
    count(req, reply, now).then(() => done(), done);
  });
}
