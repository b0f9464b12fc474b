import type { AppContext } from '../../context.js';
import { systemActor } from '../../shared/audit.js';
import { AppError } from '../../shared/errors.js';
import { findDocument, sendDocumentToPartner } from '../documents/index.js';
import { SEND_JOB } from './dunning.service.js';

/**
 * Mails a dunning letter to the partner's BILLING address after the run's commit. At least
 * once like every job: a letter already sent (`sentAt`) is not mailed again. A letter that
 * cannot be mailed (the partner has no e-mail address, the mail quota is used up) stays FINAL
 * for printing; the refusal is logged, not retried.
 */
export function registerSendJob(ctx: AppContext): void {
  ctx.jobs.register(SEND_JOB, {
    run: async (payload) => {
      const documentId = String(payload.documentId);
      const accountId = String(payload.accountId);
      const row = await findDocument(ctx.db, accountId, documentId);
      if (!row || row.status !== 'FINAL' || row.sent_at !== null) return;
      try {
        await sendDocumentToPartner(ctx, systemActor(accountId), documentId);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        ctx.logger.warn(
          { documentId, code: err.code, detail: err.message },
          'dunning letter not mailed',
        );
      }
    },
    failed: (payload, error) => {
      ctx.logger.warn({ documentId: payload.documentId, error }, 'dunning letter not mailed');
      return Promise.resolve();
    },
  });
}
