import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { isUniqueViolation } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { readAhead } from '../../db/transactions.js';
import type { DB } from '../../db/schema.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { appendAudit, appendAudits, diff, type Actor } from '../../shared/audit.js';
import { createInOneRound, withoutWebhookEvent } from '../../shared/one-round.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { registerReference } from '../../shared/references.js';
import { findAccount, findAccountLater } from '../account/index.js';
import {
  findTemplate,
  type TemplateRow,
  ensureSystemTemplate,
} from '../document-templates/index.js';
import { lockUploadedFile, onFileDelete } from '../files/index.js';
import { presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type {
  CancelDocument,
  ConvertDocument,
  CreateDownPayment,
  CreateDocument,
  CreditNote,
  DocumentView,
  EInvoiceOutputFormat,
  ListDocuments,
  QuoteDecisionInput,
  Rasterize,
  Rasterized,
  SendDocument,
  UpdateDocument,
} from './documents.schemas.js';

import { CreditNotes } from './documents.credit-notes.js';
import {
  convertDocument,
  decideQuote,
  isQuoteOrConfirmation,
  quoteNumberOf,
  withChain,
} from './documents.quotes.js';
import {
  changedColumns,
  EMPTY_INVOICE_FIELDS,
  newDocumentRow,
  pricedValues,
  sourceOf,
  type Links,
  type Origin,
} from './documents.rows.js';
import {
  createDownPayment,
  withCurrentDeduction,
  withCurrentDeductions,
} from './documents.down-payments.js';
import { DocumentLifecycle, duplicateNumber } from './documents.lifecycle.js';
import { einvoiceParties, xrechnungFile, type EInvoiceFile } from './documents.einvoice.js';
import { DocumentOutput, pdfFileName } from './documents.output.js';
import { rasterizeDocument } from './documents.rasterize.js';
import { sendDocument, sendPreview } from './documents.send.js';
import {
  contentLater,
  linkRowsLater,
  publishedTemplate,
  resolveLinks,
} from './documents.references.js';
import { linesAsInputs, priceLines, startPricing, type Priced } from './pricing.js';
import { isoDate } from '../../shared/dates.js';
import { assertDocumentDate, invalid, invoiceValues, isSalesType } from './invoice-rules.js';
import { finalizeCheck, invoiceReadiness } from './documents.checks.js';
import type {
  FinalizeCheck,
  InvoiceReadiness,
  SendPreview,
  SendPreviewInput,
} from './documents.checks.schemas.js';

registerReference('document_template', {
  table: 'documents',
  column: 'template_id',
  label: 'documents',
});
registerReference('partner', { table: 'documents', column: 'partner_id', label: 'documents' });
registerReference('contract', { table: 'documents', column: 'contract_id', label: 'documents' });

// A file a document uses (its upload or its rendered PDF) is kept while the document exists.
onFileDelete(async (trx, accountId, fileId) => {
  const using = await repo.documentsUsingFile(trx, accountId, fileId);
  if (using.length > 0)
    throw new AppError(
      'in_use',
      `The file is still referenced by ${using.length} document${using.length > 1 ? 's' : ''}.`,
      { members: { referencedBy: [`${using.length} documents`] } },
    );
});

function immutable(id: string): AppError {
  return new AppError('state_conflict', `Document ${id} is FINAL and can no longer be changed.`);
}

/**
 * Documents (decisions §7, §9): contract documents and invoices, generated from a template or
 * uploaded; a FINAL document is numbered, keeps its PDF and never changes again.
 */
export class DocumentsService {
  readonly output: DocumentOutput;

  readonly lifecycle: DocumentLifecycle;

  private readonly creditNotes: CreditNotes;

  constructor(private readonly ctx: AppContext) {
    this.output = new DocumentOutput(ctx);
    this.lifecycle = new DocumentLifecycle(ctx, this.output);
    this.creditNotes = new CreditNotes(ctx, {
      finalizeInTransaction: (trx, actor, row, trial) =>
        this.lifecycle.finalizeInTransaction(trx, actor, row, trial),
      trialFinal: (row) => this.lifecycle.trialFinal(row),
      renderFinalQuietly: (row, trial) => this.output.renderFinalQuietly(row, trial),
    });
  }

  // ---- reads -------------------------------------------------------------------------------

  async get(accountId: string, id: string): Promise<DocumentView> {
    const today = isoDate(this.ctx.clock.now());
    const stored = await repo.findDocument(this.ctx.db, accountId, id, today);
    if (!stored) throw notFound('Document');
    // A draft final invoice answers what it would deduct today.
    const row = await withCurrentDeduction(this.ctx.db, stored, today);
    const view = await withChain(this.ctx, accountId, row);
    // The customer's views of its page: one aggregate over its links, on this read only.
    const views =
      row.status === 'FINAL' ? await this.ctx.customerLinks?.views(accountId, id) : undefined;
    return views ? { ...view, customerViews: views } : view;
  }

  async list(
    accountId: string,
    query: ListDocuments,
  ): Promise<{ data: DocumentView[]; nextCursor: string | null }> {
    const limit = query.limit ?? 25;
    const rows = await repo.listDocuments(this.ctx.db, accountId, {
      today: isoDate(this.ctx.clock.now()),
      limit,
      afterId: decodeCursor(query.cursor),
      documentType: query.documentType,
      status: query.status,
      source: query.source,
      partnerId: query.partnerId,
      contractId: query.contractId,
      from: query.from,
      to: query.to,
      q: query.q,
      open: query.open,
      overdue: query.overdue,
      paymentStatus: query.paymentStatus,
      cancelled: query.cancelled,
      quoteStatus: query.quoteStatus,
    });
    const page = toPage(rows, limit);
    // Draft final invoices answer what they would deduct today.
    const current = await withCurrentDeductions(
      this.ctx.db,
      page.rows,
      isoDate(this.ctx.clock.now()),
    );
    // The conversion chain: which of these were converted into later documents.
    const chain = await repo.convertedFrom(
      this.ctx.db,
      accountId,
      page.rows.filter((r) => isQuoteOrConfirmation(r.document_type)).map((r) => r.id),
    );
    return {
      data: current.map((r) => presentDocument({ ...r, converted_to: chain.get(r.id) ?? [] })),
      nextCursor: page.nextCursor,
    };
  }

  // ---- create ------------------------------------------------------------------------------

  /**
   * `POST /v1/documents`; with `processing`, the 202 variant that queues `document.process`;
   * `within` runs in the creating transaction after the insert (a caller's own bookkeeping
   * that must commit or roll back with the document); `renderLater` leaves a FINAL
   * document's PDF to the `document.render` job instead of rendering it in the call (a batch
   * of invoices is not held up by Chromium).
   */
  async create(
    actor: Actor,
    input: CreateDocument,
    opts: {
      processing?: boolean;
      within?: (trx: Transaction<DB>, documentId: string) => Promise<void>;
      renderLater?: boolean;
      /** A converted document: the quote or order confirmation it comes from. */
      origin?: Origin;
    } = {},
  ): Promise<DocumentView> {
    const { accountId } = actor;
    const db = this.ctx.db;
    const now = this.ctx.clock.now();
    const { row, source, template, file, ...read } = await this.newRow(actor, input, opts, now);
    const final = input.status === 'FINAL';
    const renderNow = final && opts.renderLater !== true;
    // A generated document must render with its data: checked now, the PDF comes later (a
    // document finalized now is checked by its trial render, in the same visit to the output).
    const trial = renderNow ? await this.lifecycle.trialFinal(row, template) : undefined;
    // The check's context: what this request has read; a new row has no payments.
    if (template && !renderNow)
      await this.output.checkRenders(row, template, { ...read, keptFigures: true });
    let stored: repo.DocumentRow;
    let view: DocumentView | undefined;
    try {
      // A plain draft on PostgreSQL: the row and its event in one round trip.
      if (!final && !file && !opts.processing && !opts.within) {
        view = presentDocument(row);
        if (await this.createInOneRound(actor, row, view, now)) return view;
      }
      stored = await db.transaction().execute(async (trx) => {
        if (file) await lockUploadedFile(trx, accountId, file.id, 'fileId');
        if (final)
          Object.assign(row, await this.lifecycle.finalValues(trx, row, file?.sha256 ?? null));
        await repo.insertDocument(trx, row);
        await opts.within?.(trx, row.id);
        if (opts.processing)
          await this.ctx.jobs.enqueue(trx, 'document.process', { documentId: row.id }, accountId);
        if (final && source === 'GENERATED')
          await this.output.queueRender(trx, accountId, row.id, { inRequest: renderNow });
        await appendAudit(
          trx,
          actor,
          {
            action: 'document.created',
            resourceType: 'document',
            resourceId: row.id,
            changes: (view ??= presentDocument(row)),
          },
          now,
        );
        if (final) await this.lifecycle.announceFinal(trx, actor, row, { settle: false, trial });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateNumber(row.document_number);
      throw err;
    }
    // Only a FINAL document, a processing one or a caller's own writes may have queued jobs.
    if (final || opts.processing || opts.within) this.ctx.jobs.kick();
    if (renderNow && source === 'GENERATED')
      stored = await this.output.renderFinalQuietly(stored, trial);
    // A draft answers the view its audit event holds; a FINAL one what its announcement left.
    return !final && view ? view : presentDocument(stored);
  }

  /** The row `create` inserts, and what it read to make it (the account, partner, contract). */
  private async newRow(
    actor: Actor,
    input: CreateDocument,
    opts: { processing?: boolean; origin?: Origin },
    now: Date,
  ) {
    // Its reads in one round trip on PostgreSQL; what they answer is checked after.
    const make = await readAhead(this.ctx.db, (ahead) =>
      this.startRow(ahead, actor, input, opts, now),
    );
    return make();
  }

  /**
   * `newRow` in two steps: the reads started on `ahead` (`readAhead`: one round trip on
   * PostgreSQL), the row made when the answered function is called, checking what they found
   * and reading through the app's executor what only they name.
   */
  private async startRow(
    ahead: Executor,
    actor: Actor,
    input: CreateDocument,
    opts: { processing?: boolean; origin?: Origin },
    now: Date,
  ) {
    const { accountId } = actor;
    const db = this.ctx.db;
    const found = await findAccountLater(ahead, accountId);
    const source = sourceOf(input);
    const content = await contentLater(this.ctx, ahead, actor, input, source, (key) =>
      ensureSystemTemplate(db, accountId, key),
    );
    const linked = await linkRowsLater(ahead, db, accountId, {
      contractId: input.contractId,
      contractName: input.contractName,
      partnerId: input.partnerId,
      partnerName: input.partnerName,
    });
    const pricing = await startPricing(ahead, db, accountId, input.lineItems ?? []);
    return async () => {
      const account = await found();
      if (!account) throw notFound('Account');
      assertDocumentDate(input.creationDate, now);
      const invoice = invoiceValues(input, input.documentType);
      const { template, file } = await content();
      const { links, partner, contract } = await linked();
      const currency = input.currency ?? account.currency;
      const priced = await pricing(currency);
      const row = newDocumentRow(input, {
        accountId,
        source,
        template,
        file,
        links,
        currency,
        priced,
        invoice,
        processing: opts.processing === true,
        now,
        ...(opts.origin ? { origin: opts.origin } : {}),
      });
      return { row, source, template, file, account, partner, contract };
    };
  }

  /**
   * PostgreSQL: a draft's create as one round trip and one statement, the row and its audit
   * event (`createInOneRound`); a draft's create has no webhook event, so nothing stands in for
   * reading endpoints. False where it wrote nothing (on SQLite): the transaction of `create`
   * writes it.
   */
  private createInOneRound(
    actor: Actor,
    row: repo.DocumentRow,
    view: DocumentView,
    now: Date,
  ): Promise<boolean> {
    return createInOneRound(
      this.ctx.db,
      actor,
      {
        action: 'document.created',
        resourceType: 'document',
        resourceId: row.id,
        guard: withoutWebhookEvent,
      },
      now,
      view,
      (trx, write) => repo.insertDocumentAudited(trx, row, write),
    );
  }

  // ---- many FINAL documents at once (a dunning run's letters) ------------------------------

  /**
   * What `create` checks and builds before its transaction, for many GENERATED FINAL
   * documents from PUBLISHED templates (no lines, PDFs left to the `document.render` job): the
   * account, each template and each partner or contract read once for the batch, and each
   * template's render checked once (the documents of a batch are made by one caller with one
   * shape of fields; the render job renders each). Answers, per input, the row to insert or
   * the problem (4xx) that refuses it.
   */
  async prepareFinals(
    actor: Actor,
    inputs: readonly CreateDocument[],
  ): Promise<(repo.DocumentRow | AppError)[]> {
    const { accountId } = actor;
    const db = this.ctx.db;
    const account = await findAccount(db, accountId);
    if (!account) throw notFound('Account');
    const templates = new Map<string, Promise<TemplateRow>>();
    const links = new Map<string, Promise<Links>>();
    const checked = new Set<string>();
    const now = this.ctx.clock.now();
    const out: (repo.DocumentRow | AppError)[] = [];
    for (const input of inputs) {
      try {
        const templateId = input.templateId;
        if (
          sourceOf(input) !== 'GENERATED' ||
          input.status !== 'FINAL' ||
          templateId === undefined ||
          (input.lineItems?.length ?? 0) > 0
        )
          throw new Error('prepareFinals: GENERATED FINAL documents from a template, no lines');
        assertDocumentDate(input.creationDate, now);
        const invoice = invoiceValues(input, input.documentType);
        let template = templates.get(templateId);
        if (!template)
          templates.set(templateId, (template = publishedTemplate(db, accountId, templateId)));
        const key = JSON.stringify([
          input.contractId,
          input.contractName,
          input.partnerId,
          input.partnerName,
        ]);
        let linked = links.get(key);
        if (!linked)
          links.set(
            key,
            (linked = resolveLinks(db, accountId, {
              contractId: input.contractId,
              contractName: input.contractName,
              partnerId: input.partnerId,
              partnerName: input.partnerName,
            })),
          );
        const currency = input.currency ?? account.currency;
        const row = newDocumentRow(input, {
          accountId,
          source: 'GENERATED',
          template: await template,
          file: undefined,
          links: await linked,
          currency,
          priced: await priceLines(db, accountId, currency, []),
          invoice,
          processing: false,
          now,
        });
        if (!checked.has(templateId)) {
          // A new row keeps zeros: its figures need no sums.
          await this.output.checkRenders(row, await template, { account, keptFigures: true });
          checked.add(templateId);
        }
        out.push(row);
      } catch (err) {
        if (!(err instanceof AppError) || err.status >= 500) throw err;
        out.push(err);
      }
    }
    return out;
  }

  /**
   * The transaction part of `create` for rows of `prepareFinals`, in the caller's transaction
   * and in a few statements: FINAL values, the rows, their render jobs, the `document.created`
   * audit events and the `document.finalized` announcements. Answers the stored documents.
   */
  async insertFinals(
    trx: Transaction<DB>,
    actor: Actor,
    rows: readonly repo.DocumentRow[],
  ): Promise<DocumentView[]> {
    if (rows.length === 0) return [];
    const now = this.ctx.clock.now();
    const stored: repo.DocumentRow[] = [];
    for (const row of rows)
      stored.push({ ...row, ...(await this.lifecycle.finalValues(trx, row, null)) });
    await repo.insertDocuments(trx, stored);
    // Presented once: the audit events' changes and the events' data are the same view.
    const views = stored.map((row) => presentDocument(row));
    await this.ctx.jobs.enqueueMany(
      trx,
      'document.render',
      stored.map((row) => ({ payload: { documentId: row.id }, accountId: actor.accountId })),
    );
    await appendAudits(
      trx,
      actor,
      stored.map((row, i) => ({
        action: 'document.created',
        resourceType: 'document',
        resourceId: row.id,
        changes: views[i]!,
      })),
      now,
    );
    await this.lifecycle.announceFinals(trx, actor, stored, views);
    return views;
  }

  // ---- update ------------------------------------------------------------------------------

  async update(
    actor: Actor,
    id: string,
    input: UpdateDocument,
    ifMatch: IfMatch,
  ): Promise<DocumentView> {
    const { accountId } = actor;
    const db = this.ctx.db;
    const { before, pricing } = await this.draftAhead(accountId, id, input.lineItems);
    if (!before) throw notFound('Document');
    if (before.status === 'FINAL') throw immutable(id);

    const documentType = input.documentType ?? before.document_type;
    if (input.validUntil && documentType !== 'QUOTE')
      throw invalid('validUntil', 'is only for QUOTE documents');
    if (input.lineItems !== undefined && !isSalesType(documentType))
      throw invalid('lineItems', 'are only for INVOICE, QUOTE and ORDER_CONFIRMATION documents');
    if (input.dueDate && documentType !== 'INVOICE')
      throw invalid('dueDate', 'is only for INVOICE documents');

    const now = this.ctx.clock.now();
    assertDocumentDate(input.creationDate, now);
    const values: Partial<repo.DocumentRow> = {
      ...changedColumns(input, documentType, before, now),
      ...(await this.relinked(accountId, input, before)),
      ...(await this.repriced(accountId, input, documentType, before, pricing)),
    };

    const merged: repo.DocumentRow = { ...before, ...values };
    const template =
      merged.source === 'GENERATED' && merged.template_id
        ? await findTemplate(db, accountId, merged.template_id)
        : undefined;

    const final = input.status === 'FINAL';
    // Finalizing: the template check and the trial render are one visit to the output.
    const trial = final ? await this.lifecycle.trialFinal(merged, template) : undefined;
    // The figures read with `before` hold while the draft keeps its currency.
    if (template && !final)
      await this.output.checkRenders(merged, template, { keptFigures: repo.keepsFigures(values) });
    let after: repo.DocumentRow;
    try {
      after = await db.transaction().execute(async (trx) => {
        if (final) {
          const sha = await this.lifecycle.uploadedSha(trx, merged);
          Object.assign(values, await this.lifecycle.finalValues(trx, merged, sha));
        }
        const updated = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Document',
          run: (version) =>
            version === undefined
              ? Promise.resolve(undefined)
              : repo.updateDocument(trx, accountId, id, version, values, { status: 'DRAFT' }),
          current: () => this.versionOrImmutable(trx, accountId, id),
        });
        if (final && updated.source === 'GENERATED')
          await this.output.queueRender(trx, accountId, id, { inRequest: true });
        await appendAudit(
          trx,
          actor,
          {
            action: final ? 'document.finalized' : 'document.updated',
            resourceType: 'document',
            resourceId: id,
            changes: diff(presentDocument(before), presentDocument(updated)),
          },
          now,
        );
        return final
          ? this.lifecycle.announceFinal(trx, actor, updated, { settle: true, trial })
          : updated;
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateNumber(values.document_number ?? null);
      throw err;
    }
    if (final) {
      this.ctx.jobs.kick();
      if (after.source === 'GENERATED') after = await this.output.renderFinalQuietly(after, trial);
    }
    // A draft final invoice answers what it would deduct today.
    return presentDocument(await withCurrentDeduction(db, after, isoDate(now)));
  }

  /**
   * The draft an update changes, and the reads its new lines need (`startPricing`): in one round
   * trip on PostgreSQL (`readAhead`).
   */
  private async draftAhead(accountId: string, id: string, lines: UpdateDocument['lineItems']) {
    const db = this.ctx.db;
    const { found, pricing } = await readAhead(db, async (ahead) => ({
      found: await repo.findDocumentLater(ahead, accountId, id),
      pricing: lines && (await startPricing(ahead, db, accountId, lines)),
    }));
    return { before: await found(), pricing };
  }

  /** The contract and partner columns when the update names either of them anew. */
  private async relinked(
    accountId: string,
    input: UpdateDocument,
    before: repo.DocumentRow,
  ): Promise<Partial<repo.DocumentRow>> {
    if (
      input.contractId === undefined &&
      input.contractName === undefined &&
      input.partnerId === undefined &&
      input.partnerName === undefined
    )
      return {};
    // A field the update leaves out keeps its value; null clears it.
    const pick = <T>(given: T | null | undefined, kept: T | null) =>
      given === undefined ? (kept ?? undefined) : (given ?? undefined);
    return resolveLinks(this.ctx.db, accountId, {
      contractId: pick(input.contractId, before.contract_id),
      contractName: pick(input.contractName, before.contract_name),
      partnerId: pick(input.partnerId, before.partner_id),
      partnerName: pick(input.partnerName, before.partner_name),
    });
  }

  /**
   * Currency, lines and totals, priced anew when the lines or the currency change (an invoice)
   * or when the document is no invoice (no lines, zero totals).
   */
  private async repriced(
    accountId: string,
    input: UpdateDocument,
    documentType: string,
    before: repo.DocumentRow,
    pricing?: (currency: string) => Promise<Priced>,
  ): Promise<Partial<repo.DocumentRow>> {
    const currency = input.currency ?? before.currency;
    // The currency is written only when it changes: the row's kept figures then stay current.
    const moved = currency === before.currency ? {} : { currency };
    if (!isSalesType(documentType))
      return {
        ...moved,
        ...pricedValues(await priceLines(this.ctx.db, accountId, currency, [])),
      };
    if (input.lineItems === undefined && currency === before.currency) return {};
    // `pricing`: the new lines' reads, started with the draft's (`startPricing`).
    const priced = pricing
      ? await pricing(currency)
      : await priceLines(
          this.ctx.db,
          accountId,
          currency,
          input.lineItems ??
            linesAsInputs(JSON.parse(before.line_items) as repo.StoredLine[], before.currency),
        );
    return { ...moved, ...pricedValues(priced) };
  }

  // ---- quotes and order confirmations -------------------------------------------------------

  /** `POST /v1/documents/{id}/decision`: the seller records a customer's answer to a quote. */
  decide(actor: Actor, id: string, input: QuoteDecisionInput): Promise<DocumentView> {
    return decideQuote(this.ctx, actor.accountId, id, {
      decision: input.decision,
      ...(input.name === undefined ? {} : { name: input.name }),
      via: 'seller',
      actor,
    });
  }

  /** `POST /v1/documents/{id}/convert` (`documents.quotes.ts`). */
  convert(actor: Actor, id: string, input: ConvertDocument): Promise<DocumentView> {
    return convertDocument(
      this.ctx,
      (a, create, origin) => this.create(a, create, { origin }),
      actor,
      id,
      input,
    );
  }

  /** `POST /v1/documents/{id}/down-payments` (`documents.down-payments.ts`). */
  downPayment(actor: Actor, id: string, input: CreateDownPayment): Promise<DocumentView> {
    return createDownPayment(
      this.ctx,
      (a, create, origin) => this.create(a, create, { origin }),
      (source) => quoteNumberOf(this.ctx, actor.accountId, source),
      actor,
      id,
      input,
    );
  }

  // ---- delete ------------------------------------------------------------------------------

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'document',
      what: 'Document',
      id,
      ifMatch,
      run: (trx, version) =>
        repo.deleteDocument(trx, actor.accountId, id, version, { status: 'DRAFT' }),
      current: (trx) => this.versionOrImmutable(trx, actor.accountId, id),
      present: presentDocument,
    });
  }

  // ---- send ------------------------------------------------------------------------------

  /** Mails the document with its file attached (`documents.send.ts`). */
  send(actor: Actor, id: string, input: SendDocument): Promise<DocumentView> {
    return sendDocument(
      this.ctx,
      {
        output: this.output,
        finalizeDraft: (a, draft) => this.lifecycle.finalizeDraft(a, draft),
      },
      actor,
      id,
      input,
    );
  }

  /** `GET /v1/documents/{id}/send-preview`: what a send would mail (`documents.send.ts`). */
  sendPreview(accountId: string, id: string, input: SendPreviewInput): Promise<SendPreview> {
    return sendPreview(this.ctx, accountId, id, input);
  }

  // ---- credit notes and e-invoices -------------------------------------------------------

  /** Storno: a FINAL credit note for the whole invoice (`documents.credit-notes.ts`). */
  cancel(actor: Actor, id: string, input: CancelDocument): Promise<DocumentView> {
    return this.creditNotes.cancel(actor, id, input);
  }

  /** A partial credit note for a FINAL invoice. */
  credit(actor: Actor, id: string, input: CreditNote): Promise<DocumentView> {
    return this.creditNotes.credit(actor, id, input);
  }

  /**
   * The e-invoice of a FINAL invoice: XRechnung XML built from the stored document, or the
   * stored ZUGFeRD PDF (rendered now if the render job has not run yet). 409 for drafts,
   * other documents and uploaded invoices.
   */
  async einvoice(
    accountId: string,
    id: string,
    format: EInvoiceOutputFormat,
  ): Promise<EInvoiceFile> {
    const row = await repo.findDocument(this.ctx.db, accountId, id);
    if (!row) throw notFound('Document');
    einvoiceParties(row);
    const base = pdfFileName(row).replace(/\.pdf$/, '');
    if (format !== 'zugferd') return xrechnungFile(row, format, base);
    const file = await this.output.attachment(row);
    return { filename: file.filename, contentType: file.contentType, bytes: file.content };
  }

  // ---- rasterize ---------------------------------------------------------------------------

  /** PDF pages → PNG files of the account (`documents.rasterize.ts`). */
  rasterize(actor: Actor, input: Rasterize): Promise<Rasterized> {
    return rasterizeDocument(this.ctx, actor, input);
  }

  // ---- checks ------------------------------------------------------------------------------

  /** `GET /v1/documents/{id}/finalize-check` (`documents.checks.ts`). */
  finalizeCheck(accountId: string, id: string): Promise<FinalizeCheck> {
    return finalizeCheck(this.ctx, accountId, id);
  }

  /** `GET /v1/account/invoice-readiness` (`documents.checks.ts`). */
  invoiceReadiness(accountId: string): Promise<InvoiceReadiness> {
    return invoiceReadiness(this.ctx, accountId);
  }

  /** The version for a compare-and-set that found no row; FINAL documents are 409 first. */
  private async versionOrImmutable(
    trx: Transaction<DB>,
    accountId: string,
    id: string,
  ): Promise<number | undefined> {
    const row = await repo.findDocument(trx, accountId, id);
    if (row?.status === 'FINAL') throw immutable(id);
    return row?.version;
  }
}

/** For other modules (recurring invoices): a document made as `POST /v1/documents` makes it. */
export function createDocument(
  ctx: AppContext,
  actor: Actor,
  input: CreateDocument,
  opts: Parameters<DocumentsService['create']>[2] = {},
): Promise<DocumentView> {
  return new DocumentsService(ctx).create(actor, input, opts);
}

/** For other modules: many GENERATED FINAL documents at once (`DocumentsService.prepareFinals`). */
export function prepareFinalDocuments(
  ctx: AppContext,
  actor: Actor,
  inputs: readonly CreateDocument[],
): Promise<(PreparedDocument | AppError)[]> {
  return new DocumentsService(ctx).prepareFinals(actor, inputs);
}

/** For other modules: stores prepared documents in the caller's transaction (`insertFinals`). */
export async function insertFinalDocuments(
  ctx: AppContext,
  trx: Transaction<DB>,
  actor: Actor,
  prepared: readonly PreparedDocument[],
): Promise<DocumentView[]> {
  return new DocumentsService(ctx).insertFinals(trx, actor, prepared);
}

/** A document `prepareFinalDocuments` built, for `insertFinalDocuments`. */
export type PreparedDocument = repo.DocumentRow;

/** For other modules: `POST /v1/documents/{id}/send` with its defaults (the BILLING address). */
export function sendDocumentToPartner(
  ctx: AppContext,
  actor: Actor,
  id: string,
): Promise<DocumentView> {
  return new DocumentsService(ctx).send(actor, id, {});
}

export { EMPTY_INVOICE_FIELDS };
