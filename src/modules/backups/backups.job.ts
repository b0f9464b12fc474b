import type { AppContext } from '../../context.js';
import { MINUTE } from '../../shared/clock.js';

/**
 * Checks at once whether a backup is due (a start after a long stop backs up right away), then
 * every minute (the job system: once per minute across replicas on PostgreSQL), so the first
 * backup comes soon after the start when the newest is older than the interval. Answers the
 * stop function; a copy in progress finishes first.
 */
export function startBackupSchedule(ctx: AppContext): () => Promise<void> {
  const schedule = ctx.backups;
  if (!schedule) return () => Promise.resolve();
  const first = schedule.runIfDue();
  const stop = ctx.jobs.every('backups', MINUTE, async () => {
    await first;
    await schedule.runIfDue();
  });
  return async () => {
    await first;
    await stop();
  };
}
