import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { MINUTE } from '../shared/clock.js';
import { AppError } from './errors.js';

/**
 * Rate limit per bearer token and minute, quota per account and month, both from the
 * account's plan (decisions §13). Every authenticated response carries `RateLimit-Limit`,
 * `RateLimit-Remaining` and `RateLimit-Reset` (the per-minute window); past the limit the
 * answer is 429 `rate_limited`, past the quota 429 `quota_exceeded`, each with `Retry-After`.
 * `RATE_LIMITS=off` lifts both. Refused requests count too.
 */
export function registerRateLimits(app: FastifyInstance, ctx: AppContext): void {
  if (ctx.config.rateLimits === 'off') return;

  app.addHook('onRequest', async (req, reply) => {
    const principal = req.principal;
    if (!principal) return;
    const now = ctx.clock.now();
    const plan = await ctx.accountPlans.get(principal.accountId, now.getTime());
    const minute = await ctx.counters.hit(`rl:${principal.tokenId}`, MINUTE);
    const reset = Math.max(1, Math.ceil(minute.resetMs / 1000));
    reply.header('ratelimit-limit', String(plan.requestsPerMinute));
    reply.header('ratelimit-remaining', String(Math.max(0, plan.requestsPerMinute - minute.count)));
    reply.header('ratelimit-reset', String(reset));
    if (minute.count > plan.requestsPerMinute)
      throw new AppError(
        'rate_limited',
        `The ${plan.name} plan allows ${plan.requestsPerMinute} requests per minute and token. Try again in ${reset} seconds.`,
        {
          headers: { 'retry-after': String(reset) },
        },
      );
    const month = await ctx.usage.count(principal.accountId, now);
    if (month.count > plan.requestsPerMonth) {
      const retry = Math.max(1, Math.ceil(month.resetMs / 1000));
      throw new AppError(
        'quota_exceeded',
        `The ${plan.name} plan includes ${plan.requestsPerMonth} requests per month; the quota renews at the start of next month.`,
        {
          headers: { 'retry-after': String(retry) },
        },
      );
    }
  });
}
