import type { AppContext } from '../../context.js';
import { isoDate } from '../../shared/dates.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';

/** Invoices read per page of a scan. */
const PAGE = 200;

/**
 * Announces every FINAL invoice that fell due before today and is still open with
 * `document.overdue`, once: the mark (`overdue_at`) and the event are written in one
 * transaction, claimed by compare-and-set, so replicas scanning at once announce each invoice
 * once. Answers how many this scan announced.
 */
export async function announceOverdue(ctx: AppContext): Promise<number> {
  const today = isoDate(ctx.clock.now());
  let announced = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await repo.newlyOverdue(ctx.db, today, { afterId, limit: PAGE });
    for (const row of page) {
      const done = await ctx.db.transaction().execute(async (trx) => {
        if (!(await repo.markOverdue(trx, row.account_id, row.id, today))) return false;
        const [figures] = await repo.withPaymentFigures(trx, row.account_id, [row], today);
        await emitEvent(ctx, trx, row.account_id, 'document.overdue', presentDocument(figures!));
        return true;
      });
      if (done) announced++;
    }
    if (page.length < PAGE) return announced;
    afterId = page[page.length - 1]!.id;
  }
}

/** The schedule: every `intervalMs`, the invoices that became overdue (safe on many replicas). */
export function startOverdueSchedule(ctx: AppContext, intervalMs: number): () => Promise<void> {
  return ctx.jobs.every('documents.overdue', intervalMs, async () => {
    const announced = await announceOverdue(ctx);
    if (announced > 0) ctx.logger.info({ invoices: announced }, 'overdue invoices announced');
  });
}
