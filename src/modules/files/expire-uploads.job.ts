import type { AppContext } from '../../context.js';
import { HOUR } from '../../shared/clock.js';
import { abandonedUploads } from './files.repository.js';
import { FilesService } from './files.service.js';
import { systemActor } from './uploaded-file.js';

/** How long after its upload URL expired a PENDING file is kept (late checks of S3 uploads). */
export const ABANDONED_AFTER_MS = HOUR;
const BATCH = 200;

/**
 * Removes uploads that never arrived: PENDING files whose upload URL expired more than
 * `ABANDONED_AFTER_MS` ago, record and object, each with a `file.deleted` audit event by the
 * system. They counted toward the plan's storage until now. Safe on many processes: a file
 * another one removed first is skipped. Answers how many this call removed.
 */
export async function expireAbandonedUploads(
  ctx: AppContext,
  now: Date = ctx.clock.now(),
): Promise<{ expired: number }> {
  const before = new Date(now.getTime() - ABANDONED_AFTER_MS).toISOString();
  const files = new FilesService(ctx);
  let expired = 0;
  let after = '';
  for (;;) {
    // Every account's abandoned uploads: the job finds work across accounts, and each
    // removal below is scoped by the file's own account.
    const rows = await abandonedUploads(ctx.db, before, after, BATCH);
    for (const row of rows) {
      after = row.id;
      try {
        await files.remove(systemActor(row.account_id), row.id);
        expired++;
      } catch (err) {
        ctx.logger.warn({ err, fileId: row.id }, 'abandoned upload not removed');
      }
    }
    if (rows.length < BATCH) return { expired };
  }
}

/** `expireAbandonedUploads` every `intervalMs` (see `JobQueue.every`). */
export function startUploadExpiry(ctx: AppContext, intervalMs: number): () => Promise<void> {
  return ctx.jobs.every('upload-expiry', intervalMs, async () => {
    const { expired } = await expireAbandonedUploads(ctx);
    if (expired > 0) ctx.logger.info({ expired }, 'abandoned uploads removed');
  });
}
