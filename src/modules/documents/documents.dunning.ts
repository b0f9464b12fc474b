import type { AppContext } from '../../context.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { isoDate } from '../../shared/dates.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { DocumentView } from './documents.schemas.js';

/**
 * `PUT /v1/documents/{id}/dunning-block`: blocks an invoice from dunning (Mahnsperre) or
 * lifts the block. Allowed on FINAL invoices — the block is bookkeeping about the claim, not
 * part of the invoice, which stays as issued (GoBD). Conditional on `version` or `If-Match`.
 */
export async function setDunningBlock(
  ctx: AppContext,
  actor: Actor,
  id: string,
  input: { blocked: boolean; version?: number },
  ifMatch: IfMatch,
): Promise<DocumentView> {
  const { accountId } = actor;
  const now = ctx.clock.now();
  const before = await repo.findDocument(ctx.db, accountId, id, isoDate(now));
  if (!before) throw notFound('Document');
  if (before.document_type !== 'INVOICE' || before.invoice_type !== 'INVOICE')
    throw new AppError(
      'business_rule_violated',
      'Only invoices are dunned, so only an invoice can be blocked from dunning.',
    );
  const blocked = input.blocked ? 1 : 0;
  if (before.dunning_blocked === blocked && input.version === undefined && ifMatch === undefined)
    return presentDocument(before);
  return ctx.db.transaction().execute(async (trx) => {
    const after = await compareAndSet({
      expected: input.version,
      ifMatch,
      what: 'Document',
      run: (version) =>
        repo.updateDocument(trx, accountId, id, version ?? before.version, {
          dunning_blocked: blocked,
          updated_at: now.toISOString(),
        }),
      current: () => repo.documentVersion(trx, accountId, id),
    });
    await appendAudit(
      trx,
      actor,
      {
        action: input.blocked ? 'document.dunning_blocked' : 'document.dunning_unblocked',
        resourceType: 'document',
        resourceId: id,
        changes: { dunningBlocked: { from: before.dunning_blocked === 1, to: input.blocked } },
      },
      now,
    );
    return presentDocument(after);
  });
}
