import type { CounterStore } from '../../shared/counters.js';
import { AppError } from '../../shared/errors.js';
import { DEFAULT_MAILS_PER_DAY, type Plan } from './plans.catalogue.js';

/**
 * The daily send cap of a plan (issue 11: `send` is no open mail relay): documents an account
 * may mail per UTC day, counted in the shared counters (Redis across replicas) and answered by
 * `GET /v1/usage` as `mailsToday`.
 */

export const mailsPerDay = (plan: Plan) => plan.mailsPerDay ?? DEFAULT_MAILS_PER_DAY;

/** The counter of one account's sends on the UTC day of `now`. */
export const mailCounterKey = (accountId: string, now: Date) =>
  `mail:${accountId}:${now.toISOString().slice(0, 10)}`;

const msToDayEnd = (now: Date) => {
  const end = new Date(now);
  end.setUTCHours(24, 0, 0, 0);
  return end.getTime() - now.getTime();
};

/** Throws 429 `quota_exceeded` with `Retry-After` when today's sends are used up. */
export async function assertMailQuota(
  counters: CounterStore,
  plan: Plan,
  accountId: string,
  now: Date,
): Promise<void> {
  const used = (await counters.peek(mailCounterKey(accountId, now))).count;
  if (used < mailsPerDay(plan)) return;
  const retryAfter = Math.ceil(msToDayEnd(now) / 1000);
  throw new AppError(
    'quota_exceeded',
    `The plan ${plan.name} sends ${mailsPerDay(plan)} documents a day; today's are used up.`,
    { headers: { 'retry-after': String(retryAfter) }, members: { limit: mailsPerDay(plan) } },
  );
}

/** Counts one send against today's cap. */
export async function countMail(counters: CounterStore, accountId: string, now: Date) {
  await counters.hit(mailCounterKey(accountId, now), msToDayEnd(now));
}
