import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { appendAudit, diff, systemActor, type Actor } from '../../shared/audit.js';
import { addDays, isoDate } from '../../shared/dates.js';
import { AppError, notFound } from '../../shared/errors.js';
import { findAccount, readCompany } from '../account/index.js';
import { findPartner } from '../partners/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type {
  ConvertDocument,
  CreateDocument,
  DocumentView,
  QuoteStatus,
} from './documents.schemas.js';
import { freezeParties, invalid, salesDocumentProblems } from './invoice-rules.js';
import { linesAsInputs } from './pricing.js';
import type { Origin } from './documents.rows.js';
import { deductionsFor, hasDownPayments } from './documents.down-payments.js';

/**
 * Quotes (Angebote) and order confirmations (Auftragsbestätigungen), docs/invoicing.md
 * "Quotes and order confirmations": their values on becoming FINAL, a quote's outcome
 * (accepted, declined, expired) and the conversion into an order confirmation or an invoice.
 */

/** Days a quote stays valid when it becomes FINAL without `validUntil`. */
export const QUOTE_VALIDITY_DAYS = 30;

/** Quotes read per page of an expiry scan. */
const PAGE = 200;

/** QUOTE or ORDER_CONFIRMATION. */
export function isQuoteOrConfirmation(documentType: string): boolean {
  return documentType === 'QUOTE' || documentType === 'ORDER_CONFIRMATION';
}

/**
 * The values a quote or order confirmation gets when it becomes FINAL: seller and buyer frozen
 * as an invoice freezes them, the buyer reference from the partner, for a quote the validity
 * (default 30 days after its date) and `quote_status` OPEN. Refuses with one 422 listing what
 * is missing (seller data, buyer, at least one line). No e-invoice is made of either.
 */
export async function completeSalesValues(
  db: Executor,
  row: repo.DocumentRow,
): Promise<Partial<repo.DocumentRow>> {
  const account = await findAccount(db, row.account_id);
  if (!account) throw notFound('Account');
  const partner = row.partner_id
    ? await findPartner(db, row.account_id, row.partner_id)
    : undefined;
  const parties = freezeParties(readCompany(account), partner, row.partner_name);
  const errors = salesDocumentProblems(row, parties);
  if (errors.length > 0)
    throw new AppError(
      'business_rule_violated',
      `The ${row.document_type === 'QUOTE' ? 'quote' : 'order confirmation'} cannot become FINAL: ${errors.length} required item${errors.length > 1 ? 's are' : ' is'} missing.`,
      { errors },
    );
  const values: Partial<repo.DocumentRow> = {
    einvoice_parties: JSON.stringify(parties),
    buyer_reference: row.buyer_reference ?? partner?.buyer_reference ?? null,
    due_date: null,
  };
  if (row.document_type === 'QUOTE') {
    values.valid_until = row.valid_until ?? addDays(row.creation_date, QUOTE_VALIDITY_DAYS);
    values.quote_status = 'OPEN';
  }
  return values;
}

/** The webhook event of a quote's outcome. */
const OUTCOME_EVENTS = {
  ACCEPTED: 'quote.accepted',
  DECLINED: 'quote.declined',
  EXPIRED: 'quote.expired',
} as const;

/** Who recorded a quote's answer: the seller (API, web app) or the customer (a customer page). */
export interface QuoteDecision {
  decision: 'ACCEPTED' | 'DECLINED';
  /** Who answered; default the recording user or key's account name. */
  name?: string;
  via: 'seller' | 'customer';
  /** Who wrote it (default: the system actor of the account, for a customer page). */
  actor?: Actor;
  /** Where a customer's answer came from (the page's link and client IP), for the audit trail. */
  source?: { customerLinkId: string; ip: string };
}

/** The job that mails the seller a customer's answer, after the answer has committed. */
export const QUOTE_ANSWER_MAIL_JOB = 'documents.quote-answer-mail';

/**
 * Records the answer to an OPEN quote (FINAL, not expired): ACCEPTED or DECLINED, with when
 * and by whom, audited (`document.quote_accepted` / `document.quote_declined`) and announced
 * (`quote.accepted` / `quote.declined`) in one transaction. Compare-and-set on the quote's
 * status: of two answers at once one wins, the other is 409 `state_conflict`, as is an answer
 * to a draft, an expired or an already answered quote, or to another document. The customer
 * page calls this with `via: 'customer'`, the customer's name and the link (`source`); such an
 * answer is also mailed to the seller (`QUOTE_ANSWER_MAIL_JOB`, after the commit).
 */
export async function decideQuote(
  ctx: AppContext,
  accountId: string,
  documentId: string,
  input: QuoteDecision,
): Promise<DocumentView> {
  const actor = input.actor ?? systemActor(accountId);
  const now = ctx.clock.now();
  const today = isoDate(now);
  const before = await repo.findDocument(ctx.db, accountId, documentId, today);
  if (!before) throw notFound('Document');
  if (before.document_type !== 'QUOTE')
    throw new AppError('state_conflict', `Document ${documentId} is not a quote.`);
  if (before.status !== 'FINAL')
    throw new AppError(
      'state_conflict',
      `Quote ${documentId} is a DRAFT: finalize (send) it before recording an answer.`,
    );
  // A quote past its validity is expired even before the schedule marks it.
  if (before.quote_status === 'OPEN' && before.valid_until !== null && before.valid_until < today)
    throw new AppError(
      'state_conflict',
      `Quote ${documentId} expired after ${before.valid_until}; it can no longer be ${input.decision === 'ACCEPTED' ? 'accepted' : 'declined'}.`,
    );
  const name = input.name?.trim() || (input.via === 'customer' ? 'customer' : 'seller');
  const after = await ctx.db.transaction().execute(async (trx) => {
    const closed = await repo.closeQuote(trx, accountId, documentId, {
      quote_status: input.decision,
      quote_decided_at: now.toISOString(),
      quote_decided_by: name,
      updated_at: now.toISOString(),
    });
    if (!closed) {
      const current = await repo.findDocument(trx, accountId, documentId);
      throw new AppError(
        'state_conflict',
        `Quote ${documentId} is ${current?.quote_status ?? 'not OPEN'}; only an OPEN quote can be answered.`,
        { members: { quoteStatus: current?.quote_status ?? null } },
      );
    }
    await appendAudit(
      trx,
      actor,
      {
        action:
          input.decision === 'ACCEPTED' ? 'document.quote_accepted' : 'document.quote_declined',
        resourceType: 'document',
        resourceId: documentId,
        changes: {
          ...diff(presentDocument(before), presentDocument(closed)),
          via: input.via,
          ...(input.source ? { source: input.source } : {}),
        },
      },
      now,
    );
    await emitEvent(ctx, trx, accountId, OUTCOME_EVENTS[input.decision], presentDocument(closed));
    // The seller hears of the customer's answer by mail, sent by a job once this commits.
    if (input.via === 'customer')
      await ctx.jobs.enqueue(trx, QUOTE_ANSWER_MAIL_JOB, { documentId }, accountId);
    return closed;
  });
  if (input.via === 'customer') ctx.jobs.kick();
  return withChain(ctx, accountId, after);
}

/**
 * Marks every OPEN quote whose `validUntil` has passed EXPIRED, once: the mark, its audit event
 * and `quote.expired` in one transaction, claimed by compare-and-set, so replicas scanning at
 * once expire each quote once. Answers how many this scan expired.
 */
export async function expireQuotes(ctx: AppContext): Promise<number> {
  const now = ctx.clock.now();
  const today = isoDate(now);
  let expired = 0;
  let afterId: string | undefined;
  for (;;) {
    const page = await repo.expiredOpenQuotes(ctx.db, today, { afterId, limit: PAGE });
    for (const row of page) {
      const done = await ctx.db.transaction().execute(async (trx) => {
        const closed = await repo.closeQuote(trx, row.account_id, row.id, {
          quote_status: 'EXPIRED' satisfies QuoteStatus,
          quote_decided_at: now.toISOString(),
          quote_decided_by: 'system',
          updated_at: now.toISOString(),
        });
        if (!closed) return false;
        await appendAudit(
          trx,
          systemActor(row.account_id),
          {
            action: 'document.quote_expired',
            resourceType: 'document',
            resourceId: row.id,
            changes: diff(presentDocument(row), presentDocument(closed)),
          },
          now,
        );
        await emitEvent(ctx, trx, row.account_id, 'quote.expired', presentDocument(closed));
        return true;
      });
      if (done) expired++;
    }
    if (page.length < PAGE) return expired;
    afterId = page[page.length - 1]!.id;
  }
}

/** The schedule: every `intervalMs`, the quotes past their validity (safe on many replicas). */
export function startQuoteExpirySchedule(ctx: AppContext, intervalMs: number): () => Promise<void> {
  return ctx.jobs.every('documents.quote-expiry', intervalMs, async () => {
    const expired = await expireQuotes(ctx);
    if (expired > 0) ctx.logger.info({ quotes: expired }, 'quotes expired');
  });
}

/** A row presented with the documents converted from it (`convertedToDocumentIds`). */
export async function withChain(
  ctx: AppContext,
  accountId: string,
  row: repo.DocumentWithFigures,
): Promise<DocumentView> {
  // Only quotes and order confirmations convert (`convertDocument`): the rest ask nothing.
  if (!isQuoteOrConfirmation(row.document_type))
    return presentDocument({ ...row, converted_to: [] });
  const map = await repo.convertedFrom(ctx.db, accountId, [row.id]);
  return presentDocument({ ...row, converted_to: map.get(row.id) ?? [] });
}

/** What `convert` needs from the documents service: creating a document as POST does. */
export type CreateFrom = (
  actor: Actor,
  input: CreateDocument,
  origin: Origin,
) => Promise<DocumentView>;

/**
 * `POST /v1/documents/{id}/convert`: a new DRAFT order confirmation (from a quote) or invoice
 * (from a quote or an order confirmation) with the chosen lines (all by default), partner,
 * contract, currency, references, payment terms and note copied, and `originDocumentId` set.
 * An invoice cites the quote as its contract reference (BT-12). The source must be FINAL; a
 * DECLINED or EXPIRED quote is 409. A quote converted with all its lines while OPEN is marked
 * ACCEPTED (by the converting user) in the same step.
 */
export async function convertDocument(
  ctx: AppContext,
  create: CreateFrom,
  actor: Actor,
  id: string,
  input: ConvertDocument,
): Promise<DocumentView> {
  const { accountId } = actor;
  const today = isoDate(ctx.clock.now());
  const source = await repo.findDocument(ctx.db, accountId, id, today);
  if (!source) throw notFound('Document');
  if (!isQuoteOrConfirmation(source.document_type))
    throw new AppError(
      'state_conflict',
      `Document ${id} is a ${source.document_type}; only quotes and order confirmations convert.`,
    );
  if (source.document_type === 'ORDER_CONFIRMATION' && input.documentType !== 'INVOICE')
    throw invalid('documentType', 'an order confirmation converts into an INVOICE only');
  if (source.status !== 'FINAL')
    throw new AppError(
      'state_conflict',
      `Document ${id} is a DRAFT: finalize it before converting it.`,
    );
  const expired =
    source.quote_status === 'EXPIRED' ||
    (source.quote_status === 'OPEN' && source.valid_until !== null && source.valid_until < today);
  if (source.quote_status === 'DECLINED' || expired)
    throw new AppError(
      'state_conflict',
      `Quote ${id} is ${expired ? 'EXPIRED' : 'DECLINED'}; it cannot be converted.`,
      { members: { quoteStatus: expired ? 'EXPIRED' : 'DECLINED' } },
    );
  const lines = JSON.parse(source.line_items) as repo.StoredLine[];
  const positions = input.linePositions ?? lines.map((_, i) => i + 1);
  positions.forEach((p, i) => {
    if (p > lines.length)
      throw invalid(`linePositions/${i}`, `the document has ${lines.length} lines`);
  });
  const chosen = [...positions].sort((a, b) => a - b).map((p) => lines[p - 1]!);
  const contractReference = await quoteNumberOf(ctx, accountId, source);
  const view = await create(
    actor,
    {
      documentType: input.documentType,
      name: source.name,
      creationDate: input.creationDate ?? today,
      ...(source.partner_id ? { partnerId: source.partner_id } : {}),
      ...(!source.partner_id && source.partner_name ? { partnerName: source.partner_name } : {}),
      ...(source.contract_id ? { contractId: source.contract_id } : {}),
      currency: source.currency,
      lineItems: linesAsInputs(chosen, source.currency),
      ...(source.buyer_reference ? { buyerReference: source.buyer_reference } : {}),
      ...(source.order_reference ? { orderReference: source.order_reference } : {}),
      ...(source.payment_terms ? { paymentTerms: source.payment_terms } : {}),
      ...(source.delivery_date ? { deliveryDate: source.delivery_date } : {}),
      ...(source.service_period_from && source.service_period_to
        ? { servicePeriod: { from: source.service_period_from, to: source.service_period_to } }
        : {}),
      ...(source.note ? { note: source.note } : {}),
      fields: JSON.parse(source.fields) as Record<string, unknown>,
    },
    await originOf(ctx, accountId, source, input, contractReference, today),
  );
  if (
    source.document_type === 'QUOTE' &&
    source.quote_status === 'OPEN' &&
    positions.length === lines.length
  )
    await decideQuote(ctx, accountId, source.id, {
      decision: 'ACCEPTED',
      via: 'seller',
      actor,
    }).catch((err: unknown) => {
      // Answered meanwhile by someone else: the conversion stands, the answer is theirs.
      if (!(err instanceof AppError && err.code === 'state_conflict')) throw err;
    });
  return view;
}

/**
 * What a converted document cites: its source, the contract reference (an invoice's) and, for
 * a final invoice (asked by `final`, or by default once the source has FINAL down payments),
 * the paid down payments it deducts.
 */
async function originOf(
  ctx: AppContext,
  accountId: string,
  source: repo.DocumentRow,
  input: ConvertDocument,
  contractReference: string | null,
  today: string,
): Promise<Origin> {
  if (input.final !== undefined && input.documentType !== 'INVOICE')
    throw invalid('final', 'is only for a conversion into an INVOICE');
  const final =
    input.documentType === 'INVOICE' &&
    (input.final ?? (await hasDownPayments(ctx.db, accountId, source)));
  return {
    documentId: source.id,
    contractReference: input.documentType === 'INVOICE' ? contractReference : null,
    ...(final
      ? {
          billingRole: 'FINAL' as const,
          deductions: await deductionsFor(ctx.db, accountId, source.id, today),
        }
      : {}),
  };
}

/** The number of the quote a document stems from (itself, or its order confirmation's quote). */
export async function quoteNumberOf(
  ctx: AppContext,
  accountId: string,
  source: repo.DocumentRow,
): Promise<string | null> {
  if (source.document_type === 'QUOTE') return source.document_number;
  if (source.origin_document_id === null) return source.document_number;
  const origin = await repo.findDocument(ctx.db, accountId, source.origin_document_id);
  return origin?.document_number ?? source.document_number;
}
