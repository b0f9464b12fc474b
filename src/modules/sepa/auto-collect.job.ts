import type { AppContext } from '../../context.js';
import { systemActor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import { createCollection } from './collections.command.js';
import * as repo from './sepa.repository.js';
import { SCHEMES } from './sepa.schemas.js';

/**
 * The automatic collection (docs/sepa-domain.md, "Automatic collection"): once a day, for each
 * account whose SEPA settings say `autoCollect`, the open invoices of direct-debit contracts
 * not in a collection yet are collected exactly as `POST /v1/sepa/collections
 * {contractInvoices: true}` does — one run per scheme (CORE, B2B), each announced by its audit
 * event and `collection.created`. An invoice already in a run is refused by the run itself
 * (`already_in_run`), so a second pass the same day or the next collects nothing twice.
 */
export async function autoCollect(
  ctx: AppContext,
): Promise<{ accounts: number; runs: number; invoices: number; problems: number }> {
  const today = isoDate(ctx.clock.now());
  const accounts = await repo.claimAutoCollections(ctx.db, today);
  const done = { accounts: accounts.length, runs: 0, invoices: 0, problems: 0 };
  for (const accountId of accounts)
    for (const scheme of SCHEMES) {
      try {
        const run = await createCollection(ctx, systemActor(accountId), {
          contractInvoices: true,
          scheme,
        });
        done.runs++;
        done.invoices += run.items.length;
      } catch (err) {
        // Nothing to collect today (every invoice refused, or none) is no problem.
        if (nothingToCollect(err)) continue;
        // One account's failure (no creditor id, …) leaves the others' collections to go on.
        ctx.logger.warn({ err, accountId, scheme }, 'automatic SEPA collection failed');
        done.problems++;
      }
    }
  return done;
}

/** The 422 a run answers when no invoice can be collected (not a missing creditor id). */
function nothingToCollect(err: unknown): boolean {
  return (
    err instanceof AppError &&
    err.code === 'business_rule_violated' &&
    (err.extras.errors ?? []).every((e) => e.path.startsWith('/body/'))
  );
}

/** The schedule: every `intervalMs`, each enabled account's collection once a day. */
export function startAutoCollectSchedule(ctx: AppContext, intervalMs: number): () => Promise<void> {
  return ctx.jobs.every('sepa.auto-collect', intervalMs, async () => {
    const done = await autoCollect(ctx);
    if (done.runs > 0 || done.problems > 0) ctx.logger.info(done, 'automatic SEPA collections');
  });
}
