import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../shared/errors.js';
import { bodyFieldError } from '../../http/field-rules.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { findAccount, readCompany, type Address } from '../account/index.js';
import type { MailDelivery } from '../../shared/mail.js';
import { findPartner } from '../partners/index.js';
import { assertMailQuota, countMail } from '../plans/index.js';
import type { DocumentOutput } from './documents.output.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { DocumentView, SendDocument } from './documents.schemas.js';
import { xrechnungFile } from './documents.einvoice.js';
import { pdfFileName } from './documents.output.js';
import type { FrozenParties } from './invoice-rules.js';

/**
 * The e-invoice a FINAL invoice is mailed as, by the buyer's `einvoiceFormat` frozen with it:
 * XRECHNUNG_CII/UBL send the XML alone (it is the invoice; a second, visual copy would be a
 * second invoice document); ZUGFERD and PDF send the stored PDF, which is the ZUGFeRD hybrid.
 */
function einvoiceAttachment(
  row: repo.DocumentRow,
): { filename: string; content: Buffer; contentType: string } | undefined {
  if (row.document_type !== 'INVOICE' || row.status !== 'FINAL' || !row.einvoice_parties)
    return undefined;
  const format = (JSON.parse(row.einvoice_parties) as FrozenParties).buyer.einvoiceFormat;
  if (format !== 'XRECHNUNG_CII' && format !== 'XRECHNUNG_UBL') return undefined;
  const file = xrechnungFile(
    row,
    format === 'XRECHNUNG_CII' ? 'xrechnung-cii' : 'xrechnung-ubl',
    pdfFileName(row).replace(/\.pdf$/, ''),
  );
  return { filename: file.filename, content: file.bytes, contentType: file.contentType };
}

/** Recipients beyond the partner's own addresses that one send may add (no open relay). */
export const MAX_EXTRA_RECIPIENTS = 3;

/**
 * `to` and `cc` default to and may name any of the partner's addresses; at most
 * `MAX_EXTRA_RECIPIENTS` others per send, so a token cannot turn send into a mail relay.
 */
function assertFewExtraRecipients(addresses: Address[], input: SendDocument): void {
  const own = new Set(addresses.map((a) => a.email?.toLowerCase()).filter(Boolean));
  const extra = [
    ...(input.to ?? []).map((email, i) => ({ email, path: `/body/to/${i}` })),
    ...(input.cc ?? []).map((email, i) => ({ email, path: `/body/cc/${i}` })),
  ].filter((r) => !own.has(r.email.toLowerCase()));
  if (extra.length > MAX_EXTRA_RECIPIENTS)
    throw new AppError(
      'business_rule_violated',
      `At most ${MAX_EXTRA_RECIPIENTS} recipients per send may be other than the partner's addresses.`,
      {
        errors: extra.slice(MAX_EXTRA_RECIPIENTS).map((r) => ({
          path: r.path,
          message: `is not an address of the partner; at most ${MAX_EXTRA_RECIPIENTS} such recipients per send`,
          code: 'too_many_recipients',
        })),
      },
    );
}

export interface SendDeps {
  output: DocumentOutput;
  /** Makes a DRAFT FINAL (number, PDF) before it is sent. */
  finalizeDraft: (actor: Actor, draft: repo.DocumentRow) => Promise<repo.DocumentRow>;
}

/**
 * `POST /v1/documents/{documentId}/send` (decisions §9): mails the document with its file
 * attached; a DRAFT is made FINAL first. Default recipient: the partner's BILLING address
 * email. The sender is `MAIL_FROM`; `Reply-To` is the company's email (account company
 * settings), so customers' answers reach the company. Records `sentAt`/`sentTo` and
 * `delivery` (a versioned write with its audit event). Replays of the
 * same `Idempotency-Key` are answered by the idempotency layer and mail nothing.
 */
export async function sendDocument(
  ctx: AppContext,
  deps: SendDeps,
  actor: Actor,
  id: string,
  input: SendDocument,
): Promise<DocumentView> {
  const { accountId } = actor;
  const db = ctx.db;
  let row = await repo.findDocument(db, accountId, id);
  if (!row) throw notFound('Document');
  const partner = row.partner_id ? await findPartner(db, accountId, row.partner_id) : undefined;
  const addresses = partner ? (JSON.parse(partner.addresses) as Address[]) : [];
  assertFewExtraRecipients(addresses, input);
  const now = ctx.clock.now();
  await assertMailQuota(ctx.counters, await ctx.accountPlans.get(accountId), accountId, now);
  const to = input.to ?? [billingEmail(addresses)];
  if (row.status === 'DRAFT') row = await deps.finalizeDraft(actor, row);
  const pdf = await deps.output.attachment(row);
  row = pdf.row;
  const attachment = einvoiceAttachment(row) ?? pdf;
  const account = await findAccount(db, accountId);
  const label = attachment.filename.replace(/\.[a-z]+$/, '');
  // The sender is the service's address (MAIL_FROM); replies belong to the company.
  const replyTo = account ? readCompany(account).email : null;
  await ctx.mailer.send({
    to: to.join(', '),
    ...(input.cc && input.cc.length > 0 ? { cc: input.cc.join(', ') } : {}),
    ...(replyTo ? { replyTo } : {}),
    subject: input.subject ?? `${label} – ${account?.name ?? ''}`.replace(/ – $/, ''),
    text:
      input.message ??
      `Guten Tag,\n\nim Anhang erhalten Sie ${label}.\n\nMit freundlichen Grüßen\n${account?.name ?? ''}\n`,
    attachments: [
      {
        filename: attachment.filename,
        content: attachment.content,
        contentType: attachment.contentType,
      },
    ],
  });
  await countMail(ctx.counters, accountId, now);
  const sent = { to, cc: input.cc ?? [], delivery: ctx.mailer.delivery };
  return presentDocument(await recordSent(ctx, actor, row, sent, now));
}

/** The default recipient: the partner's BILLING address email. */
function billingEmail(addresses: Address[]): string {
  const billing = addresses.find((a) => a.type === 'BILLING' && a.email)?.email;
  if (!billing)
    throw new AppError(
      'business_rule_violated',
      'Give recipients: the document has no partner with a BILLING address email.',
      bodyFieldError('to', 'is required: the partner has no BILLING address email', 'required'),
    );
  return billing;
}

/**
 * Records `sentAt`/`sentTo` and where the mail went (`delivery`) as a versioned write, with
 * its audit event and webhook event.
 */
function recordSent(
  ctx: AppContext,
  actor: Actor,
  before: repo.DocumentRow,
  { to, cc, delivery }: { to: string[]; cc: string[]; delivery: MailDelivery },
  now: Date,
): Promise<repo.DocumentRow> {
  const { accountId } = actor;
  const id = before.id;
  const sentTo = [...to, ...cc];
  return ctx.db.transaction().execute(async (trx) => {
    // Sending does not race with edits (FINAL is immutable); retry on a concurrent send.
    for (let attempt = 0; attempt < 5; attempt++) {
      const current = await repo.findDocument(trx, accountId, id);
      if (!current) throw notFound('Document');
      const updated = await repo.updateDocument(trx, accountId, id, current.version, {
        sent_at: now.toISOString(),
        sent_to: JSON.stringify(sentTo),
        sent_delivery: delivery,
        updated_at: now.toISOString(),
      });
      if (updated) {
        await appendAudit(
          trx,
          actor,
          {
            action: 'document.sent',
            resourceType: 'document',
            resourceId: id,
            changes: {
              ...diff(presentDocument(before), presentDocument(updated)),
              to,
              cc,
            },
          },
          now,
        );
        await emitEvent(ctx, trx, accountId, 'document.sent', presentDocument(updated));
        return updated;
      }
    }
    throw new AppError('version_conflict', 'Document is being changed; try again.');
  });
}
