import type { AppContext } from '../../context.js';
import { AppError, notFound } from '../../shared/errors.js';
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
import type { SendPreview, SendPreviewInput } from './documents.checks.schemas.js';
import { invoiceAtFinalize } from './documents.checks.js';
import { xrechnungFile } from './documents.einvoice.js';
import { attachmentName, pageLinkLabel, pdfFileName } from './documents.output.js';
import { requireUploadedFile } from '../files/index.js';
import type { FrozenParties } from './invoice-rules.js';
import { provisionalNumber } from './numbering.js';

/**
 * The e-invoice a FINAL invoice is mailed as, by the buyer's `einvoiceFormat` frozen with it:
 * XRECHNUNG_CII/UBL send the XML alone (it is the invoice; a second, visual copy would be a
 * second invoice document); ZUGFERD and PDF send the stored PDF, which is the ZUGFeRD hybrid.
 */
function einvoiceFormatOf(row: repo.DocumentRow): 'xrechnung-cii' | 'xrechnung-ubl' | undefined {
  if (row.document_type !== 'INVOICE' || row.status !== 'FINAL' || !row.einvoice_parties)
    return undefined;
  const format = (JSON.parse(row.einvoice_parties) as FrozenParties).buyer.einvoiceFormat;
  if (format === 'XRECHNUNG_CII') return 'xrechnung-cii';
  if (format === 'XRECHNUNG_UBL') return 'xrechnung-ubl';
  return undefined;
}

/** The XRechnung a FINAL invoice is mailed as instead of its PDF, if its buyer wants one. */
function einvoiceAttachment(
  row: repo.DocumentRow,
): { filename: string; content: Buffer; contentType: string } | undefined {
  const format = einvoiceFormatOf(row);
  if (!format) return undefined;
  const file = xrechnungFile(row, format, pdfFileName(row).replace(/\.pdf$/, ''));
  return { filename: file.filename, content: file.bytes, contentType: file.contentType };
}

/** Recipients beyond the partner's own addresses that one send may add (no open relay). */
export const MAX_EXTRA_RECIPIENTS = 3;

/**
 * `to` and `cc` default to and may name any of the partner's addresses; at most
 * `MAX_EXTRA_RECIPIENTS` others per send, so a token cannot turn send into a mail relay.
 */
function assertFewExtraRecipients(addresses: Address[], input: SendDocument, at: InputPart): void {
  const own = new Set(addresses.map((a) => a.email?.toLowerCase()).filter(Boolean));
  const extra = [
    ...(input.to ?? []).map((email, i) => ({ email, path: `/${at}/to/${i}` })),
    ...(input.cc ?? []).map((email, i) => ({ email, path: `/${at}/cc/${i}` })),
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
  let row = await repo.findDocument(ctx.db, accountId, id);
  if (!row) throw notFound('Document');
  const { to, cc } = await recipientsOf(ctx, row, input, 'body');
  const now = ctx.clock.now();
  await assertMailQuota(ctx.counters, await ctx.accountPlans.get(accountId), accountId, now);
  if (row.status === 'DRAFT') row = await deps.finalizeDraft(actor, row);
  const pdf = await deps.output.attachment(row);
  row = pdf.row;
  const attachment = einvoiceAttachment(row) ?? pdf;
  const mail = await mailContent(ctx, accountId, attachment.filename, input);
  // The account's customer page: a new link to this document at the end of the mail.
  const link = await ctx.customerLinks?.forMail(actor, row.id);
  if (link) mail.text = `${mail.text.replace(/\n*$/, '')}\n\n${pageLinkLabel(row)}\n${link}\n`;
  await ctx.mailer.send({
    to: to.join(', '),
    ...(cc.length > 0 ? { cc: cc.join(', ') } : {}),
    ...(mail.replyTo ? { replyTo: mail.replyTo } : {}),
    subject: mail.subject,
    text: mail.text,
    attachments: [
      {
        filename: attachment.filename,
        content: attachment.content,
        contentType: attachment.contentType,
      },
    ],
  });
  await countMail(ctx.counters, accountId, now);
  const sent = { to, cc, delivery: ctx.mailer.delivery };
  return presentDocument(await recordSent(ctx, actor, row, sent, now));
}

/** Where a send's input came from, for the JSON pointers of its problems. */
type InputPart = 'body' | 'querystring';

/**
 * The recipients of a send: `to` as given (else the partner's BILLING address email; 422
 * without one) and `cc`, with at most `MAX_EXTRA_RECIPIENTS` that are not the partner's.
 */
async function recipientsOf(
  ctx: AppContext,
  row: repo.DocumentRow,
  input: Pick<SendDocument, 'to' | 'cc'>,
  at: InputPart,
): Promise<{ to: string[]; cc: string[] }> {
  const partner = row.partner_id
    ? await findPartner(ctx.db, row.account_id, row.partner_id)
    : undefined;
  const addresses = partner ? (JSON.parse(partner.addresses) as Address[]) : [];
  assertFewExtraRecipients(addresses, input, at);
  return { to: input.to ?? [billingEmail(addresses, at)], cc: input.cc ?? [] };
}

/**
 * Reply-To, subject and text of a send: the given subject and message, else the defaults
 * named after the attachment (its file name without extension) and the account.
 */
async function mailContent(
  ctx: AppContext,
  accountId: string,
  filename: string,
  input: Pick<SendDocument, 'subject' | 'message'>,
): Promise<{ replyTo: string | null; subject: string; text: string }> {
  const account = await findAccount(ctx.db, accountId);
  const label = filename.replace(/\.[a-z]+$/, '');
  const name = account?.name ?? '';
  return {
    // The sender is the service's address (MAIL_FROM); replies belong to the company.
    replyTo: account ? readCompany(account).email : null,
    subject: input.subject ?? `${label} – ${name}`.replace(/ – $/, ''),
    text:
      input.message ??
      `Guten Tag,\n\nim Anhang erhalten Sie ${label}.\n\nMit freundlichen Grüßen\n${name}\n`,
  };
}

/**
 * `GET /v1/documents/{documentId}/send-preview`: what a send with these recipients (else the
 * defaults) would mail, by the functions the send uses, without finalizing, rendering,
 * counting or sending anything. A draft is shown as it would be sent once FINAL: with the
 * number it is expected to get and the attachment its buyer's e-invoice format asks for.
 */
export async function sendPreview(
  ctx: AppContext,
  accountId: string,
  id: string,
  input: SendPreviewInput,
): Promise<SendPreview> {
  const row = await repo.findDocument(ctx.db, accountId, id);
  if (!row) throw notFound('Document');
  const { to, cc } = await recipientsOf(ctx, row, input, 'querystring');
  const attachment = await expectedAttachment(ctx, row);
  const mail = await mailContent(ctx, accountId, attachment.name, {});
  const delivery = ctx.mailer.delivery;
  return {
    to,
    cc,
    replyTo: mail.replyTo,
    from: ctx.mailer.from,
    subject: mail.subject,
    message: mail.text,
    delivery,
    deliveryNote:
      delivery === 'smtp'
        ? 'The mail will be handed to the configured mail server (SMTP_URL), which delivers it to the recipients.'
        : 'No mail server is configured (SMTP_URL): the mail will only be written to the local outbox folder (DATA_DIR/outbox) and will not leave this machine. The recipients will not receive it.',
    finalizesFirst: row.status === 'DRAFT',
    attachments: [attachment],
  };
}

/** The attachment a send would mail: the document as FINAL, named as the send names it. */
async function expectedAttachment(
  ctx: AppContext,
  row: repo.DocumentRow,
): Promise<{ name: string; contentType: string }> {
  const final = row.status === 'FINAL' ? row : await asFinal(ctx, row);
  const format = einvoiceFormatOf(final);
  if (format)
    return { name: pdfFileName(final).replace(/\.pdf$/, '.xml'), contentType: 'application/xml' };
  if (final.source === 'GENERATED')
    return { name: pdfFileName(final), contentType: 'application/pdf' };
  if (!final.file_id)
    throw new AppError('state_conflict', `Document ${row.id} has no file to send.`);
  const file = await requireUploadedFile(ctx, row.account_id, final.file_id);
  return { name: attachmentName(final, file.file.contentType), contentType: file.file.contentType };
}

/**
 * A draft as finalizing would make it, for naming what a send attaches: an invoice gets the
 * number it is expected to get and, when GENERATED, its frozen parties. Nothing is written.
 */
async function asFinal(ctx: AppContext, row: repo.DocumentRow): Promise<repo.DocumentRow> {
  const invoice = row.document_type === 'INVOICE';
  const lawful =
    invoice && row.source === 'GENERATED' ? (await invoiceAtFinalize(ctx.db, row)).values : {};
  const number = row.document_number ?? (invoice ? await provisionalNumber(ctx.db, row) : null);
  return { ...row, ...lawful, status: 'FINAL', document_number: number };
}

/** The default recipient: the partner's BILLING address email. */
function billingEmail(addresses: Address[], at: InputPart): string {
  const billing = addresses.find((a) => a.type === 'BILLING' && a.email)?.email;
  if (!billing)
    throw new AppError(
      'business_rule_violated',
      'Give recipients: the document has no partner with a BILLING address email.',
      {
        errors: [
          {
            path: `/${at}/to`,
            message: 'is required: the partner has no BILLING address email',
            code: 'required',
          },
        ],
      },
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
