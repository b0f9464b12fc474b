import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { AppError } from '../../shared/errors.js';
import { isoDate } from '../../shared/dates.js';
import { analysePdf } from '../../shared/pdf/analyse.js';
import type { EInvoice } from '../../shared/einvoice/index.js';
import { readEInvoiceXml } from '../../shared/pdf/einvoice-off-thread.js';
import type { LetterInput, LogoPosition, Visibility } from '../../shared/pdf/layout.js';
import type { RenderResult } from '../../shared/pdf/renderer.js';
import type { ReservedLink } from '../../shared/customer-links.js';
import {
  buildRenderContext,
  checkTemplateRenders,
  giroCodeRequest,
  renderTemplate,
  type AddressData,
  type DateFormat,
  type NumberFormat,
  type PartnerData,
  type RenderContext,
  type TemplateField,
} from '../../shared/templating/index.js';
import { giroCodeDataUri, giroCodePayload, urlQrDataUri } from '../../shared/girocode.js';
import { directDebitNoticeOf } from './documents.payment-notice.js';
import { toMajor } from '../../shared/money.js';
import { findAccount, readCompany, type AccountRow } from '../account/index.js';
import { findContract, presentContract, type ContractRow } from '../contracts/index.js';
import {
  findTemplate,
  renderLimitOf,
  rendersEveryDocument,
  type TemplateRow,
} from '../document-templates/index.js';
import {
  imageDataUriForPdf,
  requireUploadedFile,
  storeGeneratedFile,
  systemActor,
} from '../files/index.js';
import { findPartner, presentPartner, type PartnerRow } from '../partners/index.js';
import { eInvoiceSummary, presentDocument, type StoredAnalysis } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import { invoiceTableHtml, templateShowsLines } from './invoice-table.js';
import type { FrozenBuyer, FrozenParties } from './invoice-rules.js';
import { zugferdPdf } from './documents.einvoice.js';
import { eInvoiceProblem, intakeValues } from './documents.intake.js';
import { withCurrentDeduction } from './documents.down-payments.js';

/** What an UPLOADED document may be: a PDF, an e-invoice XML, or a scan. */
export const DOCUMENT_FILE_TYPES: readonly string[] = [
  'application/pdf',
  'application/xml',
  'text/xml',
  'image/png',
  'image/jpeg',
  'image/webp',
];

/**
 * What a caller already read of a render context, in the same request: each part given is not
 * read again (an invoice's create reads its account and partner before the check).
 */
export interface ContextReads {
  account?: AccountRow;
  /** The linked partner and contract as the caller resolved them (undefined: read here). */
  partner?: PartnerRow;
  contract?: ContractRow;
  /**
   * The figures the row keeps (`settled_net_minor`, `credit_notes_minor`, kept by the
   * database's triggers) are its figures: a row built in code, which nothing references yet,
   * or one read and not moved to another currency since. Otherwise they are summed from the
   * payments and credit notes.
   */
  keptFigures?: boolean;
}

const TYPE_LABEL: Record<string, string> = {
  INVOICE: 'Rechnung',
  CONTRACT: 'Vertrag',
  DUNNING: 'Mahnung',
  QUOTE: 'Angebot',
  ORDER_CONFIRMATION: 'Auftragsbestätigung',
};

/**
 * The German title of a credit note: "Stornorechnung" when it cancels its invoice in full,
 * "Rechnungskorrektur" otherwise; never "Gutschrift", which § 14 (2) Satz 2 UStG keeps for
 * self-billing.
 */
export function creditNoteTitle(storno: boolean): string {
  return storno ? 'Stornorechnung' : 'Rechnungskorrektur';
}

/** What a document is, in German, for file names and subjects: `Rechnung`, `Stornorechnung`, … */
export function documentTitle(row: repo.DocumentRow): string | undefined {
  if (row.invoice_type === 'CREDIT_NOTE') return creditNoteTitle(row.storno === 1);
  if (row.billing_role === 'DOWN_PAYMENT') return 'Abschlagsrechnung';
  if (row.billing_role === 'FINAL') return 'Schlussrechnung';
  return TYPE_LABEL[row.document_type];
}

/** The name a document's PDF is stored and mailed as, e.g. `Rechnung 2026-0001.pdf`. */
export function pdfFileName(row: repo.DocumentRow): string {
  const type = documentTitle(row);
  const label = row.document_number ? `${type ?? 'Dokument'} ${row.document_number}` : row.name;
  return `${label.replace(/[\\/:*?"<>|]/g, '-')}.pdf`;
}

/** The buyer frozen on a FINAL invoice as template partner data (its address is the billing one). */
function frozenBuyer(buyer: FrozenBuyer): PartnerData {
  return {
    id: buyer.id,
    // Invoices frozen before partners had numbers print the partner's number of today.
    ...(buyer.number === undefined ? {} : { partnerNumber: buyer.number }),
    name: buyer.name,
    addresses: buyer.address ? [{ ...buyer.address, type: 'BILLING' }] : [],
    vatId: buyer.vatId,
    electronicAddress: buyer.electronicAddress,
    einvoiceFormat: buyer.einvoiceFormat,
    language: buyer.language,
  };
}

/** A PDF rendered before the document became FINAL, and what it printed that may change. */
export interface TrialRender {
  number: string | null;
  result: RenderResult;
  /** The deductions it printed (a final invoice's, as stored JSON; null for other documents). */
  deductions: string | null;
  /**
   * The customer page's link it printed: drawn before the render (`reserve`), written with
   * this token by the finalizing transaction. Memory only.
   */
  link?: ReservedLink;
}

/** A stored template as the renderer takes it. */
function templateSources(template: TemplateRow) {
  return {
    headerSource: template.header_source,
    contentSource: template.content_source,
    footerSource: template.footer_source,
    fields: JSON.parse(template.fields) as TemplateField[],
  };
}

/** How long past RENDER_TIMEOUT_MS the safety-net render job of a finalize waits. */
const RENDER_MARGIN_MS = 10_000;

interface JobPayload {
  documentId?: unknown;
}

/**
 * The files of documents: rendering a GENERATED document's PDF (in the request that makes it
 * FINAL, and as the `document.render` job), and the `document.process` job that renders a
 * preview or analyses an uploaded file.
 */
export class DocumentOutput {
  constructor(private readonly ctx: AppContext) {}

  /** Registers the job handlers (once per app). */
  registerJobs(): void {
    this.ctx.jobs.register('document.render', {
      run: async (payload, job) => {
        const row = await this.jobDocument(payload, job.id);
        if (!row || row.status !== 'FINAL' || row.source !== 'GENERATED' || row.file_id) return;
        await this.renderAndAttach(row);
      },
    });
    this.ctx.jobs.register('document.process', {
      run: async (payload, job) => {
        const row = await this.jobDocument(payload, job.id);
        if (row) await this.process(row);
      },
      failed: async (payload, error) => {
        const row = await this.jobDocument(payload, 'failed');
        if (row)
          await repo.setDerived(this.ctx.db, row.account_id, row.id, {
            processing_status: 'FAILED',
            processing_error: error.slice(0, 1000),
          });
      },
    });
  }

  private async jobDocument(
    payload: JobPayload,
    jobId: string,
  ): Promise<repo.DocumentRow | undefined> {
    if (typeof payload.documentId !== 'string') return undefined;
    const row = await repo.findDocumentOfJob(this.ctx.db, payload.documentId);
    if (!row) this.ctx.logger.info({ jobId, documentId: payload.documentId }, 'document is gone');
    return row;
  }

  /**
   * Throws 422 `template_invalid` when the template cannot render this document's data. Kontor's
   * own layouts render every document (`rendersEveryDocument`): nothing to try.
   */
  async checkRenders(
    row: repo.DocumentRow,
    template: TemplateRow,
    reads: ContextReads = {},
  ): Promise<void> {
    if (rendersEveryDocument(template)) return;
    checkTemplateRenders(
      templateSources(template),
      await this.renderContext(row, reads),
      renderLimitOf(template, this.ctx.config.templateRenderLimitMs),
    );
  }

  /**
   * The render context of a document: the account, its company (the seller), partner,
   * contract, the presented document with its payments, and for an invoice its GiroCode. A
   * FINAL invoice prints seller and buyer as they were frozen when it became FINAL, like its
   * e-invoice, so the PDF and the XML never disagree.
   */
  private async renderContext(
    row: repo.DocumentRow,
    reads: ContextReads = {},
  ): Promise<RenderContext> {
    const db = this.ctx.db;
    const today = isoDate(this.ctx.clock.now());
    const { account, partner, contract, document } = await this.contextRows(row, reads, today);
    const frozen = row.einvoice_parties
      ? (JSON.parse(row.einvoice_parties) as FrozenParties)
      : null;
    const current: PartnerData | null = partner
      ? { ...presentPartner(partner), addresses: JSON.parse(partner.addresses) as AddressData[] }
      : row.partner_name
        ? { name: row.partner_name }
        : null;
    const context = buildRenderContext({
      account: {
        name: account.name,
        currency: account.currency,
        dateFormat: account.date_format as DateFormat,
        numberFormat: account.number_format as NumberFormat,
        addresses: JSON.parse(account.addresses) as AddressData[],
      },
      company: frozen?.seller ?? readCompany(account),
      partner: frozen ? { ...current, ...frozenBuyer(frozen.buyer) } : current,
      contract: contract
        ? presentContract(contract, today)
        : row.contract_name
          ? { name: row.contract_name }
          : null,
      // The presented document: its lines, taxes and totals in major units of its currency;
      // a converted one also names the quote or order confirmation it came from.
      document: {
        ...presentDocument(document),
        originDocumentNumber: row.origin_document_id
          ? ((await repo.findDocument(db, row.account_id, row.origin_document_id))
              ?.document_number ?? null)
          : null,
      },
      invoice: {
        paidAmount: toMajor(document.settled_minor, row.currency),
        cancellation: row.invoice_type === 'CREDIT_NOTE' && row.storno === 1,
        directDebit: await directDebitNoticeOf(
          this.ctx,
          db,
          row,
          row.finalized_at?.slice(0, 10) ?? today,
        ),
      },
      today,
      fields: JSON.parse(row.fields) as Record<string, unknown>,
    });
    // An invoice collected by direct debit asks for no transfer: no GiroCode.
    const giro = context.invoice?.directDebit ? null : giroCodeRequest(context);
    if (giro && context.invoice) {
      try {
        const { bic, ...rest } = giro;
        context.invoice.giroCode = await giroCodeDataUri(
          giroCodePayload({ ...rest, ...(bic === null ? {} : { bic }) }),
        );
      } catch (err) {
        // Data outside the EPC standard (a name over 70 characters, say) costs the QR code,
        // never the invoice: the bank details are printed anyway.
        if (!(err instanceof RangeError)) throw err;
        this.ctx.logger.warn({ err, documentId: row.id }, 'no GiroCode for this invoice');
      }
    }
    return context;
  }

  /** The rows a render context is made of: those in `reads`, the others read here. */
  private async contextRows(row: repo.DocumentRow, reads: ContextReads, today: string) {
    const db = this.ctx.db;
    const account =
      reads.account?.id === row.account_id ? reads.account : await findAccount(db, row.account_id);
    if (!account) throw new Error(`account ${row.account_id} is gone`);
    const partner = !row.partner_id
      ? undefined
      : reads.partner?.id === row.partner_id
        ? reads.partner
        : await findPartner(db, row.account_id, row.partner_id);
    const contract = !row.contract_id
      ? undefined
      : reads.contract?.id === row.contract_id
        ? reads.contract
        : await findContract(db, row.account_id, row.contract_id);
    const figures = reads.keptFigures ? repo.withStoredFigures : repo.withPaymentFigures;
    const [document] = await figures(db, row.account_id, [row], today);
    return { account, partner, contract, document: document! };
  }

  /**
   * The letter a GENERATED document renders to: its template rendered with the document's
   * context; for an invoice whose template does not lay out `document.lineItems` itself, the
   * standard table of lines, VAT and totals after the content; the account's logo when the
   * template has `showLogo` and the account has one (none set: no logo, no error).
   */
  async letter(stored: repo.DocumentRow, pageUrl?: string): Promise<LetterInput> {
    // A draft final invoice's preview prints what it would deduct today.
    const row = await withCurrentDeduction(this.ctx.db, stored, isoDate(this.ctx.clock.now()));
    if (!row.template_id) throw new Error(`document ${row.id} has no template`);
    const template = await findTemplate(this.ctx.db, row.account_id, row.template_id);
    if (!template) throw new Error(`template ${row.template_id} is gone`);
    const account = await findAccount(this.ctx.db, row.account_id);
    if (!account) throw new Error(`account ${row.account_id} is gone`);
    const context = await this.renderContext(row, { account });
    const html = renderTemplate(
      templateSources(template),
      context,
      renderLimitOf(template, this.ctx.config.templateRenderLimitMs),
    );
    const table = templateShowsLines([
      template.content_source,
      template.header_source,
      template.footer_source,
    ])
      ? undefined
      : invoiceTableHtml(row, {
          numberFormat: account.number_format as NumberFormat,
          dateFormat: account.date_format as DateFormat,
        });
    const logo =
      template.show_logo === 1 && account.logo_file_id !== null
        ? await this.logoDataUri(row.account_id, account.logo_file_id)
        : undefined;
    return {
      contentHtml:
        html.contentHtml + (table ?? '') + (pageUrl ? await pageLinkHtml(row, pageUrl) : ''),
      ...(html.headerHtml ? { headerHtml: html.headerHtml } : {}),
      ...(html.footerHtml ? { footerHtml: html.footerHtml } : {}),
      headerVisibility: template.header_visibility as Visibility,
      footerVisibility: template.footer_visibility as Visibility,
      ...(logo
        ? { logo: { dataUri: logo, position: template.logo_position as LogoPosition } }
        : {}),
      title: row.document_number ? `${row.name} ${row.document_number}` : row.name,
      // An invoice is written in its partner's language (the layout's labels follow it).
      ...(context.invoice ? { lang: context.invoice.language } : {}),
    };
  }

  /**
   * Renders a GENERATED document and attaches the PDF (system-derived fields: `version` stays).
   * A FINAL document keeps the first PDF attached; a DRAFT's preview is replaced.
   */
  async renderAndAttach(row: repo.DocumentRow, trial?: TrialRender): Promise<repo.DocumentRow> {
    const final = row.status === 'FINAL';
    // A FINAL invoice or quote prints its customer page's link, made when it became FINAL.
    const pageUrl = final
      ? await this.ctx.customerLinks?.printedUrl(row.account_id, row.id)
      : undefined;
    // The trial render before FINAL is the PDF when it printed what the document got: its
    // number, its link (the token reserved for the trial is the one the transaction wrote) and
    // a final invoice's deductions (a down payment paid in between changes them).
    const result =
      final &&
      trial &&
      trial.number === row.document_number &&
      trial.link?.url === pageUrl &&
      trial.deductions === row.down_payment_deductions
        ? trial.result
        : await this.ctx.renderer.render(await this.letter(row, pageUrl));
    // The PDF of a FINAL invoice Kontor issued IS its ZUGFeRD e-invoice (PDF/A-3 + XML).
    const bytes =
      final && row.document_type === 'INVOICE' && row.einvoice_parties !== null
        ? Buffer.from(
            await zugferdPdf(row, result.pdf, pdfFileName(row).replace(/\.pdf$/, ''), {
              subject: `${documentTitle(row) ?? 'Rechnung'} ${row.document_number ?? ''}`.trim(),
            }),
          )
        : result.pdf;
    const file = await storeGeneratedFile(this.ctx, systemActor(row.account_id), {
      fileName: pdfFileName(row),
      contentType: 'application/pdf',
      bytes,
      // GoBD: a FINAL document's PDF is kept whatever the plan; a preview counts as any file.
      enforceLimit: !final,
    });
    const values = {
      file_id: file.id,
      file_type: 'application/pdf',
      pdf_sha256: final ? file.sha256 : null,
      page_count: result.pageCount,
    };
    const after = await repo.setDerived(this.ctx.db, row.account_id, row.id, values, {
      fileIdIsNull: final,
    });
    return after ?? (await repo.findDocument(this.ctx.db, row.account_id, row.id)) ?? row;
  }

  /**
   * The account's logo as an inline image (decisions §9: images only from the account's own
   * files, inlined). The logo is an uploaded image that cannot be deleted while set.
   */
  private async logoDataUri(accountId: string, fileId: string): Promise<string> {
    // Header-checked against the pixel caps and scaled down (issue 11): Chromium decodes an
    // inlined image at full size, and the logo box is at most 60 × 20 mm.
    return imageDataUriForPdf(this.ctx, accountId, fileId);
  }

  /**
   * Renders a document as it will be when FINAL, before it is: the renderer's 422 (page cap,
   * time limit) or 503 reaches the caller while nothing is written yet.
   */
  async trialRender(row: repo.DocumentRow, link?: ReservedLink): Promise<TrialRender> {
    return {
      number: row.document_number,
      result: await this.ctx.renderer.render(await this.letter(row, link?.url)),
      deductions: row.down_payment_deductions,
      ...(link ? { link } : {}),
    };
  }

  /**
   * The one visit to rendering before a GENERATED document becomes FINAL: `template`, when
   * given, is checked against the draft's data first (422 `template_invalid`); then `final`
   * gives the row as it will be when FINAL (it may refuse with the finalize 422) and that row
   * is rendered (the renderer's 422 or 503 reaches the caller while nothing is written), with
   * the customer page's `link` reserved for it when the account prints links.
   */
  async trialFinal(
    draft: repo.DocumentRow,
    template: TemplateRow | undefined,
    final: () => Promise<repo.DocumentRow>,
    link?: ReservedLink,
  ): Promise<TrialRender> {
    if (template) await this.checkRenders(draft, template);
    return this.trialRender(await final(), link);
  }

  /**
   * Queues, in the transaction that makes a GENERATED document FINAL, its `document.render`
   * job. When the request renders the PDF itself right after the commit (`inRequest`), the job
   * is its safety net (a crash in between) and falls due only once that render has had its
   * time (RENDER_TIMEOUT_MS and a margin): due at once, the worker kicked after the commit
   * found no PDF yet and rendered the same document beside the request, two renders per
   * finalize. Otherwise it is due at once.
   */
  async queueRender(
    trx: Executor,
    accountId: string,
    documentId: string,
    { inRequest }: { inRequest: boolean },
  ): Promise<void> {
    const runAt = inRequest
      ? new Date(
          this.ctx.clock.now().getTime() + this.ctx.config.renderTimeoutMs + RENDER_MARGIN_MS,
        )
      : undefined;
    await this.ctx.jobs.enqueue(
      trx,
      'document.render',
      { documentId },
      accountId,
      runAt ? { runAt } : undefined,
    );
  }

  /**
   * The in-request render of a FINAL document; a failure is left to a `document.render` job
   * due at once (the one queued with the finalize waits for the request's render to end).
   */
  async renderFinalQuietly(row: repo.DocumentRow, trial?: TrialRender): Promise<repo.DocumentRow> {
    try {
      return await this.renderAndAttach(row, trial);
    } catch (err) {
      this.ctx.logger.warn({ err, documentId: row.id }, 'rendering failed; the job retries');
      try {
        await this.ctx.jobs.enqueue(
          this.ctx.db,
          'document.render',
          { documentId: row.id },
          row.account_id,
        );
      } catch (queueErr) {
        // The finalize's own job still falls due later.
        this.ctx.logger.warn({ err: queueErr, documentId: row.id }, 'render retry not queued');
      }
      this.ctx.jobs.kick();
      return row;
    }
  }

  /** The `document.process` job: preview render, or analysis of the uploaded file. */
  async process(row: repo.DocumentRow): Promise<void> {
    const db = this.ctx.db;
    await repo.setDerived(db, row.account_id, row.id, {
      processing_status: 'RUNNING',
      processing_error: null,
    });
    try {
      if (row.source === 'GENERATED') {
        if (row.status === 'DRAFT' || !row.file_id) await this.renderAndAttach(row);
      } else if (row.file_id) {
        const uploaded = await requireUploadedFile(this.ctx, row.account_id, row.file_id);
        const bytes = await uploaded.read();
        const type = uploaded.file.contentType;
        let analysis: StoredAnalysis | null = null;
        let pageCount: number | null = null;
        let read: EInvoice | undefined;
        if (type === 'application/pdf') {
          const result = await analysePdf(bytes);
          pageCount = result.pageCount;
          read = result.eInvoice;
          analysis = {
            eInvoice: result.eInvoice ? eInvoiceSummary(result.eInvoice) : null,
            eInvoiceFile: result.eInvoiceFile ?? null,
            eInvoiceError: result.eInvoiceError ?? null,
            eInvoiceProblems: result.eInvoiceError
              ? [eInvoiceProblem('file_unprocessable', result.eInvoiceError)]
              : [],
            textExcerpt: result.text.slice(0, 2000),
          };
        } else if (type === 'application/xml' || type === 'text/xml') {
          try {
            read = await readEInvoiceXml(bytes);
          } catch (err) {
            // The refusal is kept on the document, then processing ends FAILED below.
            if (err instanceof AppError && err.status < 500)
              await repo.setDerived(db, row.account_id, row.id, {
                analysis: JSON.stringify({
                  eInvoice: null,
                  eInvoiceError: err.message,
                  eInvoiceProblems: [eInvoiceProblem(err.code, err.message)],
                } satisfies StoredAnalysis),
              });
            throw err;
          }
          analysis = { eInvoice: eInvoiceSummary(read), eInvoiceProblems: [] };
        } else pageCount = 1;
        await repo.setDerived(db, row.account_id, row.id, {
          page_count: pageCount,
          analysis: analysis && JSON.stringify(analysis),
        });
        // The document takes number, dates, currency, totals and partner from its e-invoice.
        if (read) {
          const values = await intakeValues(db, row, read);
          if (Object.keys(values).length > 0)
            await repo.setDerived(db, row.account_id, row.id, values, { draft: true });
        }
      }
      await repo.setDerived(db, row.account_id, row.id, { processing_status: 'DONE' });
    } catch (err) {
      // A problem with the input will not go away by trying again: FAILED now.
      if (err instanceof AppError && err.status < 500) {
        await repo.setDerived(db, row.account_id, row.id, {
          processing_status: 'FAILED',
          processing_error: err.message.slice(0, 1000),
        });
        return;
      }
      throw err;
    }
  }

  /** The bytes to mail: the PDF (rendered now if missing), or the uploaded file as it is. */
  async attachment(
    row: repo.DocumentRow,
  ): Promise<{ row: repo.DocumentRow; filename: string; content: Buffer; contentType: string }> {
    let current = row;
    if (current.source === 'GENERATED' && !current.file_id)
      current = await this.renderAndAttach(current);
    if (!current.file_id)
      throw new AppError('state_conflict', `Document ${row.id} has no file to send.`);
    const file = await requireUploadedFile(this.ctx, current.account_id, current.file_id);
    return {
      row: current,
      filename: attachmentName(current, file.file.contentType),
      content: await file.read(),
      contentType: file.file.contentType,
    };
  }
}

/**
 * The customer page's link as printed at the end of a FINAL invoice's or quote's content: a QR
 * code of the URL and the URL itself, in the buyer's language (German by default).
 */
async function pageLinkHtml(row: repo.DocumentRow, url: string): Promise<string> {
  const label = pageLinkLabel(row);
  const qr = await urlQrDataUri(url);
  const esc = (text: string) =>
    text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return `<div class="customer-page-link" style="break-inside:avoid;display:flex;align-items:center;gap:4mm;margin-top:6mm;font-size:9pt"><img src="${qr}" alt="QR" style="width:22mm;height:22mm"><div><div>${esc(label)}</div><div>${esc(url)}</div></div></div>`;
}

/**
 * The words before the customer page's link (on the PDF and in the mail), in the buyer's
 * language (German by default): a quote is accepted there, an order confirmation only read,
 * an invoice paid.
 */
export function pageLinkLabel(row: repo.DocumentRow): string {
  const language = row.einvoice_parties
    ? (JSON.parse(row.einvoice_parties) as FrozenParties).buyer.language
    : 'de';
  const en = language.toLowerCase().startsWith('en');
  switch (row.document_type) {
    case 'QUOTE':
      return en ? 'View and accept online:' : 'Online ansehen und annehmen:';
    case 'ORDER_CONFIRMATION':
      return en ? 'View and download online:' : 'Online ansehen und herunterladen:';
    default:
      return en ? 'View, download and pay online:' : 'Online ansehen, herunterladen und bezahlen:';
  }
}

/** The name a document's file is mailed under: its title and number, by its content type. */
export function attachmentName(row: repo.DocumentRow, contentType: string): string {
  return contentType === 'application/pdf'
    ? pdfFileName(row)
    : `${pdfFileName(row).replace(/\.pdf$/, '')}${extensionOf(contentType)}`;
}

function extensionOf(contentType: string): string {
  return (
    {
      'application/xml': '.xml',
      'text/xml': '.xml',
      'image/png': '.png',
      'image/jpeg': '.jpg',
      'image/webp': '.webp',
    }[contentType] ?? ''
  );
}
