import type { AppContext } from '../../context.js';
import { findAccount, readCompany } from '../account/index.js';
import { activeAdminEmails } from '../users/index.js';
import * as repo from './documents.repository.js';
import { QUOTE_ANSWER_MAIL_JOB } from './documents.quotes.js';

/** One line for a mail header: no line breaks from what the customer typed. */
const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/**
 * The mail to the seller when a customer accepts or declines a quote on the customer's page:
 * quote number, the answer, the name the customer typed and when. It goes to the company's
 * e-mail address (account company settings), else to every active admin. Sent by a job once the
 * answer has committed (at least once: a crash between mail and job's end may repeat it), so a
 * mail server that is down never undoes or blocks the customer's answer.
 */
export function registerQuoteAnswerMailJob(ctx: AppContext): void {
  ctx.jobs.register(QUOTE_ANSWER_MAIL_JOB, {
    run: async (payload, job) => {
      if (typeof payload.documentId !== 'string') return;
      const row = await repo.findDocumentOfJob(ctx.db, payload.documentId);
      if (
        !row ||
        (row.quote_status !== 'ACCEPTED' && row.quote_status !== 'DECLINED') ||
        !row.quote_decided_at
      ) {
        ctx.logger.info({ jobId: job.id, documentId: payload.documentId }, 'no answer to mail');
        return;
      }
      const account = await findAccount(ctx.db, row.account_id);
      if (!account) return;
      const company = readCompany(account);
      const to = company.email ? [company.email] : await activeAdminEmails(ctx.db, row.account_id);
      if (to.length === 0) {
        ctx.logger.warn(
          { documentId: row.id },
          'quote answer not mailed: no company e-mail, no admin',
        );
        return;
      }
      const number = row.document_number ?? row.name;
      const accepted = row.quote_status === 'ACCEPTED';
      const name = oneLine(row.quote_decided_by ?? '');
      const at = row.quote_decided_at;
      await ctx.mailer.send({
        to: to.join(', '),
        subject: oneLine(
          `Angebot ${number} ${accepted ? 'angenommen' : 'abgelehnt'} / Quote ${number} ${accepted ? 'accepted' : 'declined'}: ${name}`,
        ),
        text: [
          `Ihr Kunde hat das Angebot ${number} (${row.name}) auf der Kundenseite ${accepted ? 'angenommen' : 'abgelehnt'}.`,
          `Name: ${name}`,
          `Zeitpunkt: ${at}`,
          '',
          `Your customer ${accepted ? 'accepted' : 'declined'} quote ${number} (${row.name}) on the customer page.`,
          `Name: ${name}`,
          `Time: ${at}`,
          '',
        ].join('\n'),
      });
    },
  });
}
