import type { AppContext } from '../../context.js';
import { systemActor } from '../../shared/audit.js';
import { findDocument, sendDocumentToPartner } from '../documents/index.js';
import { SEND_JOB } from './recurring-invoices.service.js';

/**
 * Mails an invoice a billing plan made with `autoSend`, to the partner's BILLING address,
 * after the run's commit. At least once like every job: an invoice already sent (`sentAt`) is
 * not mailed again, so a retry after a crash between the mail and its record is the only case
 * that can mail twice.
 */
export function registerSendJob(ctx: AppContext): void {
  ctx.jobs.register(SEND_JOB, {
    run: async (payload, job) => {
      const documentId = String(payload.documentId);
      const accountId = String(payload.accountId);
      const row = await findDocument(ctx.db, accountId, documentId);
      if (!row || row.status !== 'FINAL' || row.sent_at !== null) return;
      ctx.logger.debug({ documentId, job: job.id }, 'mailing a recurring invoice');
      await sendDocumentToPartner(ctx, systemActor(accountId), documentId);
    },
    failed: (payload, error) => {
      ctx.logger.warn({ documentId: payload.documentId, error }, 'recurring invoice not mailed');
      return Promise.resolve();
    },
  });
}
