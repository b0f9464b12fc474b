import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { finalInvoiceValues, recordDeductions } from './documents.down-payments.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import { AppError, notFound } from '../../shared/errors.js';
import { isoDate } from '../../shared/dates.js';
import { bodyFieldError } from '../../http/field-rules.js';
import { searchText } from '../../http/pagination.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { emitEvent, emitEvents } from '../webhook-endpoints/index.js';
import type { TemplateRow } from '../document-templates/index.js';
import { lockUploadedFile } from '../files/index.js';
import { recordSettlement } from './documents.settlement.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { DocumentOutput, TrialRender } from './documents.output.js';
import type { DocumentView } from './documents.schemas.js';
import { NUMBERED_TYPES, provisionalNumber, takeNumber } from './numbering.js';
import { completeSalesValues, isQuoteOrConfirmation } from './documents.quotes.js';
import { assertFinalizable } from './invoice-rules.js';
import { invoiceAtFinalize } from './documents.checks.js';

/** 409 `duplicate` on `documentNumber`: the number is taken within the document type. */
export function duplicateNumber(number: string | null): AppError {
  return new AppError(
    'duplicate',
    `Another document of this type already has the number ${number ?? ''}.`,
    bodyFieldError(
      'documentNumber',
      'is already used by another document of this type',
      'duplicate',
    ),
  );
}

/**
 * The life cycle of a document from DRAFT to FINAL: the checks a document passes first, its
 * number, the values it is frozen with, the audit event and webhook, and the one trial render
 * before anything is written. Creating, updating, sending and crediting all finalize here.
 */
export class DocumentLifecycle {
  constructor(
    private readonly ctx: AppContext,
    private readonly output: DocumentOutput,
  ) {}

  /** Finalizes a DRAFT in its own transaction (send does this first). */
  async finalizeDraft(actor: Actor, draft: repo.DocumentRow): Promise<repo.DocumentRow> {
    const trial = await this.trialFinal(draft);
    try {
      const row = await this.ctx.db
        .transaction()
        .execute((trx) => this.finalizeInTransaction(trx, actor, draft, trial));
      this.ctx.jobs.kick();
      return row.source === 'GENERATED' ? this.output.renderFinalQuietly(row, trial) : row;
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateNumber(draft.document_number);
      throw err;
    }
  }

  /**
   * Turns a DRAFT FINAL in the caller's transaction (compare-and-set on `version` and status),
   * with its number, and queues the render as a safety net. Answers the FINAL row. `trial` is
   * the render made before (its reserved customer link is the one written now).
   */
  async finalizeInTransaction(
    trx: Transaction<DB>,
    actor: Actor,
    row: repo.DocumentRow,
    trial?: TrialRender,
  ): Promise<repo.DocumentRow> {
    const now = this.ctx.clock.now();
    const values: Partial<repo.DocumentRow> = {
      ...(await this.finalValues(trx, row, await this.uploadedSha(trx, row))),
      updated_at: now.toISOString(),
    };
    const after = await repo.updateDocument(trx, actor.accountId, row.id, row.version, values, {
      status: 'DRAFT',
    });
    if (!after) {
      const current = await repo.findDocument(trx, actor.accountId, row.id);
      if (!current) throw notFound('Document');
      throw new AppError(
        'version_conflict',
        `Document was changed by someone else (current version ${current.version}). Try again.`,
        { members: { currentVersion: current.version } },
      );
    }
    // Every caller renders the PDF in its request after the commit: the job is the safety net.
    if (after.source === 'GENERATED')
      await this.output.queueRender(trx, actor.accountId, row.id, { inRequest: true });
    await appendAudit(
      trx,
      actor,
      {
        action: 'document.finalized',
        resourceType: 'document',
        resourceId: row.id,
        changes: diff(presentDocument(row), presentDocument(after)),
      },
      now,
    );
    return this.announceFinal(trx, actor, after, { settle: true, trial });
  }

  /**
   * The one place a document's becoming FINAL is announced (`document.finalized`), in its
   * transaction. A DRAFT that payments settled already (`settle`) is judged paid now, which may
   * move its version: answers the row as it stands. A document Kontor renders gets its
   * customer page's link here when the account enables links, with the token reserved for the
   * `trial` render, so the PDF rendered before the commit already prints it. A final invoice
   * writes the rows of what it deducts.
   */
  async announceFinal(
    trx: Transaction<DB>,
    actor: Actor,
    row: repo.DocumentRow,
    opts: { settle: boolean; trial?: TrialRender | undefined },
  ): Promise<repo.DocumentRow> {
    const { accountId } = actor;
    await recordDeductions(trx, row, this.ctx.clock.now());
    if (row.source === 'GENERATED')
      await this.ctx.customerLinks?.atFinalize(
        trx,
        actor,
        row.id,
        row.document_type,
        opts.trial?.link,
      );
    await emitEvent(this.ctx, trx, accountId, 'document.finalized', presentDocument(row));
    // Quotes and order confirmations are announced by their own events as well.
    if (row.document_type === 'QUOTE')
      await emitEvent(this.ctx, trx, accountId, 'quote.finalized', presentDocument(row));
    if (row.document_type === 'ORDER_CONFIRMATION')
      await emitEvent(
        this.ctx,
        trx,
        accountId,
        'order_confirmation.finalized',
        presentDocument(row),
      );
    if (isQuoteOrConfirmation(row.document_type)) return row;
    if (!opts.settle || (await recordSettlement(this.ctx, trx, accountId, [row.id])).length === 0)
      return row;
    return (await repo.findDocument(trx, accountId, row.id)) ?? row;
  }

  /**
   * `announceFinal` for many GENERATED documents made FINAL at once (settled by no payment):
   * their links and one `document.finalized` per document, the endpoints read once.
   */
  async announceFinals(
    trx: Transaction<DB>,
    actor: Actor,
    rows: readonly repo.DocumentRow[],
    views: readonly DocumentView[],
  ): Promise<void> {
    const { accountId } = actor;
    for (const row of rows) {
      if (isQuoteOrConfirmation(row.document_type))
        throw new Error('announceFinals: quotes and order confirmations have events of their own');
      if (row.source === 'GENERATED')
        await this.ctx.customerLinks?.atFinalize(trx, actor, row.id, row.document_type);
    }
    await emitEvents(this.ctx, trx, accountId, 'document.finalized', views, (v) => v);
  }

  /** The values a DRAFT gets when it becomes FINAL: number, timestamps, a fresh PDF slot. */
  async finalValues(
    trx: Transaction<DB>,
    row: repo.DocumentRow,
    uploadedSha: string | null,
  ): Promise<Partial<repo.DocumentRow>> {
    const values: Partial<repo.DocumentRow> = {
      status: 'FINAL',
      finalized_at: this.ctx.clock.now().toISOString(),
    };
    // Kontor's own invoices must be lawful before they are numbered: nothing changes otherwise.
    if (row.document_type === 'INVOICE' && row.source === 'GENERATED')
      Object.assign(values, await this.lawfulInvoiceValues(trx, row));
    if (isQuoteOrConfirmation(row.document_type))
      Object.assign(values, await completeSalesValues(trx, row));
    // A final invoice deducts the down payments received by the time it becomes FINAL.
    Object.assign(values, await finalInvoiceValues(trx, row, isoDate(this.ctx.clock.now())));
    let number = row.document_number;
    if (NUMBERED_TYPES.includes(row.document_type) && number === null) {
      number = await takeNumber(trx, row);
      values.document_number = number;
    }
    values.search_name = searchText(`${row.name} ${number ?? ''}`.trim());
    if (row.source === 'UPLOADED') {
      values.pdf_sha256 = uploadedSha;
    } else {
      // A draft's preview shows no number: the FINAL document gets its own PDF.
      values.file_id = null;
      values.file_type = null;
      values.pdf_sha256 = null;
      values.page_count = null;
    }
    return values;
  }

  /**
   * Freezes seller and buyer on an invoice that becomes FINAL, fills the defaults (buyer
   * reference from the partner, due date from the payment term) and refuses it with one 422
   * listing every missing §14 UStG / EN 16931 item.
   */
  private async lawfulInvoiceValues(
    trx: Executor,
    row: repo.DocumentRow,
  ): Promise<Partial<repo.DocumentRow>> {
    const { values, parties } = await invoiceAtFinalize(trx, row);
    assertFinalizable({ ...row, ...values }, parties);
    return values;
  }

  /**
   * Renders a GENERATED document as it will look when FINAL (checked, with the number it is
   * expected to get) before anything is written: a document whose PDF cannot be rendered (page
   * cap, time limit) is refused with 422 and uses no number. The PDF is attached after commit
   * when the number held; otherwise it is rendered again. `template`, when the caller has
   * it, is first checked against the draft's data (422 `template_invalid`) in the same visit
   * to the output, so a finalize enters rendering once before its commit.
   */
  async trialFinal(
    row: repo.DocumentRow,
    template?: TemplateRow,
  ): Promise<TrialRender | undefined> {
    if (row.source !== 'GENERATED') return undefined;
    // The customer page's token is drawn now, so the one render prints its URL.
    const link = await this.ctx.customerLinks?.reserve(row.account_id, row.document_type);
    return this.output.trialFinal(
      row,
      template,
      async () => {
        const lawful =
          row.document_type === 'INVOICE'
            ? await this.lawfulInvoiceValues(this.ctx.db, row)
            : isQuoteOrConfirmation(row.document_type)
              ? await completeSalesValues(this.ctx.db, row)
              : {};
        const number =
          row.document_number ??
          (NUMBERED_TYPES.includes(row.document_type)
            ? await provisionalNumber(this.ctx.db, row)
            : null);
        return {
          ...row,
          ...lawful,
          // A final invoice deducts what is received by now, as finalizing will compute it.
          ...(await finalInvoiceValues(this.ctx.db, row, isoDate(this.ctx.clock.now()))),
          status: 'FINAL',
          document_number: number,
          finalized_at: this.ctx.clock.now().toISOString(),
        };
      },
      link,
    );
  }

  /** The SHA-256 of an UPLOADED document's file, locked for the finalizing transaction. */
  async uploadedSha(trx: Transaction<DB>, row: repo.DocumentRow): Promise<string | null> {
    if (row.source !== 'UPLOADED' || row.file_id === null) return null;
    const file = await lockUploadedFile(trx, row.account_id, row.file_id, 'fileId');
    return file.sha256 ?? null;
  }
}
