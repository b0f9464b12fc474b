import type { AppContext } from '../../context.js';
import { MINUTE } from '../../shared/clock.js';

/**
 * Checks every minute whether a backup is due (the job system: once per minute across
 * replicas on PostgreSQL), so the first one comes within a minute of the start when the newest
 * is older than the interval. Answers the stop function; a copy in progress finishes first.
 */
export function startBackupSchedule(ctx: AppContext): () => Promise<void> {
  const schedule = ctx.backups;
  if (!schedule) return () => Promise.resolve();
  return ctx.jobs.every('backups', MINUTE, async () => {
    await schedule.runIfDue();
  });
}
