import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { assertNotDeducted } from './documents.down-payments.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../shared/errors.js';
import { searchText } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { isoDate } from '../../shared/dates.js';
import { newId } from '../../shared/ids.js';
import { ensureSystemTemplate } from '../document-templates/index.js';
import { bodyFieldError } from '../../http/field-rules.js';
import { assertDocumentDate } from './invoice-rules.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import { creditNoteTitle, type TrialRender } from './documents.output.js';
import type { CancelDocument, CreditNote, DocumentView } from './documents.schemas.js';
import { priceLines } from './pricing.js';

/** What the credit-note operations need from the documents service. */
export interface CreditNoteDeps {
  /** Turns a DRAFT FINAL in the caller's transaction (number, checks, render job). */
  finalizeInTransaction: (
    trx: Transaction<DB>,
    actor: Actor,
    row: repo.DocumentRow,
    trial?: TrialRender,
  ) => Promise<repo.DocumentRow>;
  /** Renders the credit note as it will be FINAL, before anything is written (422 if it can't). */
  trialFinal: (row: repo.DocumentRow) => Promise<TrialRender | undefined>;
  /** Renders a FINAL document's PDF now (or attaches the trial's); a failure is left to the job. */
  renderFinalQuietly: (row: repo.DocumentRow, trial?: TrialRender) => Promise<repo.DocumentRow>;
}

/**
 * Credit notes (type code 381): a FINAL invoice is never changed; it is corrected by a FINAL
 * credit note that refers to it (BT-25/26). `cancel` (Storno) credits the whole invoice once
 * and is titled "Stornorechnung"; `credit` credits part of it, never more than remains
 * uncredited, and is titled "Rechnungskorrektur". Neither is a "Gutschrift": § 14 (2) Satz 2
 * UStG keeps that word for self-billing (the recipient issues the invoice). Both run in one transaction: the credit note, its number from its own
 * sequence (`GS-{YYYY}-{0000}`) and the mark on the invoice commit together or not at all.
 */
export class CreditNotes {
  constructor(
    private readonly ctx: AppContext,
    private readonly deps: CreditNoteDeps,
  ) {}

  /** `POST /v1/documents/{id}/cancel`. */
  async cancel(actor: Actor, id: string, input: CancelDocument): Promise<DocumentView> {
    const invoice = await this.creditableInvoice(actor.accountId, id);
    return this.issue(actor, invoice, {
      date: input.creationDate,
      note: input.note ?? `Storno der Rechnung ${invoice.document_number ?? ''}`.trim(),
      lines: invoice.line_items,
      taxes: invoice.tax_breakdown,
      totals: {
        net_total: invoice.net_total,
        tax_total: invoice.tax_total,
        gross_total: invoice.gross_total,
      },
      full: true,
    });
  }

  /** `POST /v1/documents/{id}/credit-notes`. */
  async credit(actor: Actor, id: string, input: CreditNote): Promise<DocumentView> {
    const invoice = await this.creditableInvoice(actor.accountId, id);
    const priced = await priceLines(
      this.ctx.db,
      actor.accountId,
      invoice.currency,
      input.lineItems,
    );
    if (priced.grossMinor <= 0)
      throw new AppError('business_rule_violated', 'A credit note must credit a positive amount.', {
        errors: [{ path: '/body/lineItems', message: 'must total above 0', code: 'invalid' }],
      });
    return this.issue(actor, invoice, {
      date: input.creationDate,
      note: input.note ?? null,
      lines: JSON.stringify(priced.lines),
      taxes: JSON.stringify(priced.taxes),
      totals: {
        net_total: priced.netMinor,
        tax_total: priced.taxMinor,
        gross_total: priced.grossMinor,
      },
      full: false,
    });
  }

  private async creditableInvoice(accountId: string, id: string): Promise<repo.DocumentRow> {
    const invoice = await repo.findDocument(this.ctx.db, accountId, id);
    if (!invoice) throw notFound('Document');
    if (invoice.document_type !== 'INVOICE' || invoice.invoice_type !== 'INVOICE')
      throw conflict(`Document ${id} is not an invoice; only invoices are credited.`);
    if (invoice.status !== 'FINAL')
      throw conflict(`Invoice ${id} is a DRAFT: change or delete it instead of crediting it.`);
    if (invoice.source !== 'GENERATED' || invoice.einvoice_parties === null)
      throw conflict(`Invoice ${id} was uploaded, not issued by Kontor.`);
    if (invoice.cancelled_by_document_id !== null)
      throw conflict(`Invoice ${id} is already cancelled by ${invoice.cancelled_by_document_id}.`);
    await assertNotDeducted(this.ctx.db, invoice);
    return invoice;
  }

  private async issue(
    actor: Actor,
    invoice: repo.DocumentRow,
    spec: CreditSpec,
  ): Promise<DocumentView> {
    const { accountId } = actor;
    const now = this.ctx.clock.now();
    assertCreditNoteDate(spec.date ?? isoDate(now), invoice, now);
    const template = await ensureSystemTemplate(this.ctx.db, accountId, 'CREDIT_NOTE');
    const draft = creditNoteDraft(invoice, spec, template.id, now);
    const trial = await this.deps.trialFinal(draft);
    let final: repo.DocumentRow;
    try {
      final = await this.ctx.db.transaction().execute(async (trx) => {
        await checkUncredited(trx, invoice, spec);
        // A down payment a FINAL final invoice deducts stays as it is: 409 naming that invoice.
        await assertNotDeducted(trx, invoice);
        await repo.insertDocument(trx, draft);
        await appendAudit(
          trx,
          actor,
          {
            action: 'document.created',
            resourceType: 'document',
            resourceId: draft.id,
            changes: presentDocument(draft),
          },
          now,
        );
        const row = await this.deps.finalizeInTransaction(trx, actor, draft, trial);
        if (spec.full) await this.markCancelled(trx, actor, invoice, row.id, now);
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('A concurrent credit note won; try again.');
      throw err;
    }
    this.ctx.jobs.kick();
    const rendered = await this.deps.renderFinalQuietly(final, trial);
    return presentDocument(
      (await repo.findDocument(this.ctx.db, accountId, rendered.id)) ?? rendered,
    );
  }

  /** Storno: marks the invoice cancelled by the credit note, with its audit event and webhook. */
  private async markCancelled(
    trx: Transaction<DB>,
    actor: Actor,
    invoice: repo.DocumentRow,
    creditNoteId: string,
    now: Date,
  ): Promise<void> {
    const cancelled = await repo.markCancelled(trx, actor.accountId, invoice.id, creditNoteId, now);
    if (!cancelled) throw conflict(`Invoice ${invoice.id} is already cancelled.`);
    await appendAudit(
      trx,
      actor,
      {
        action: 'document.cancelled',
        resourceType: 'document',
        resourceId: invoice.id,
        changes: diff(presentDocument(invoice), presentDocument(cancelled)),
      },
      now,
    );
    await emitEvent(
      this.ctx,
      trx,
      actor.accountId,
      'document.cancelled',
      presentDocument(cancelled),
    );
  }
}

/**
 * A credit note corrects an invoice that exists, so it is not dated before it (its number,
 * `GS-{YYYY}-…`, would also go before the invoice's year); and, like every document, not
 * more than a year after today. 400 at `/body/creationDate` otherwise.
 */
function assertCreditNoteDate(date: string, invoice: repo.DocumentRow, now: Date): void {
  assertDocumentDate(date, now);
  if (date < invoice.creation_date)
    throw new AppError(
      'validation_failed',
      `creationDate must not be before the invoice's date ${invoice.creation_date}.`,
      bodyFieldError(
        'creationDate',
        `must not be before ${invoice.creation_date}, the date of the invoice it corrects`,
        'out_of_range',
      ),
    );
}

/** What a credit note credits: all of the invoice (`full`, Storno) or priced lines of it. */
interface CreditSpec {
  date: string | undefined;
  note: string | null;
  lines: string;
  taxes: string;
  totals: Pick<repo.DocumentRow, 'net_total' | 'tax_total' | 'gross_total'>;
  full: boolean;
}

/**
 * The credit note as a DRAFT: the invoice's parties, currency and settings as they were, with
 * the credited lines and totals, the credit-note template, and a reference to the invoice.
 */
function creditNoteDraft(
  invoice: repo.DocumentRow,
  spec: CreditSpec,
  templateId: string,
  now: Date,
): repo.DocumentRow {
  // Only the stored columns: reads add derived figures that are not columns.
  const {
    settled_minor: _s,
    credited_minor: _c,
    as_of: _a,
    preceding_number: _n,
    preceding_date: _d,
    ...stored
  } = invoice as repo.DocumentWithFigures;
  const name = `${creditNoteTitle(spec.full)} zu ${invoice.document_number ?? invoice.name}`;
  return {
    ...stored,
    id: newId('document'),
    name,
    search_name: searchText(name),
    document_number: null,
    creation_date: spec.date ?? isoDate(now),
    due_date: null,
    status: 'DRAFT',
    template_id: templateId,
    file_id: null,
    file_type: null,
    pdf_sha256: null,
    line_items: spec.lines,
    tax_breakdown: spec.taxes,
    ...spec.totals,
    fields: '{}',
    processing_status: null,
    ...repo.NEW_DOCUMENT_HISTORY,
    payment_terms: null,
    skonto_bp: null,
    skonto_days: null,
    note: spec.note,
    invoice_type: 'CREDIT_NOTE',
    preceding_document_id: invoice.id,
    cancelled_by_document_id: null,
    storno: spec.full ? 1 : 0,
    // The credit note corrects the invoice between the same parties as they were then.
    einvoice_parties: invoice.einvoice_parties,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

/**
 * Locks the invoice (serialising credit notes of one invoice) and checks, under the lock, that
 * it is not cancelled, that a Storno finds nothing credited yet, and that the credit note does
 * not exceed what remains uncredited.
 */
async function checkUncredited(
  trx: Transaction<DB>,
  invoice: repo.DocumentRow,
  spec: CreditSpec,
): Promise<void> {
  const locked = await repo.lockFinalDocument(trx, invoice.account_id, invoice.id);
  if (!locked || locked.cancelled_by_document_id !== null)
    throw conflict(`Invoice ${invoice.id} is already cancelled.`);
  const credited = await repo.creditedTotal(trx, invoice.account_id, invoice.id);
  if (spec.full && credited > 0)
    throw conflict(
      `Invoice ${invoice.id} is already partly credited; credit the rest with /credit-notes.`,
    );
  const remaining = Number(invoice.gross_total) - credited;
  if (Number(spec.totals.gross_total) > remaining)
    throw new AppError(
      'business_rule_violated',
      `The credit note exceeds what remains uncredited of invoice ${invoice.document_number ?? invoice.id}.`,
      {
        errors: [
          {
            path: '/body/lineItems',
            message: `must total at most the uncredited ${remaining} minor units`,
            code: 'too_large',
          },
        ],
        members: { remainingMinor: remaining },
      },
    );
}

function conflict(message: string): AppError {
  return new AppError('state_conflict', message);
}
