import { Type } from 'typebox';
import type { App } from '../../http/types.js';
import type { AppContext } from '../../context.js';
import { readIfMatch, setEtag } from '../../http/concurrency.js';
import { PageOf } from '../../http/pagination.js';
import { IdParams, IdempotencyHeaders, IfMatchHeaders, problems } from '../../http/schemas.js';
import { actorOf } from '../../http/types.js';
import { createHash } from 'node:crypto';
import { attachmentDisposition } from '../files/index.js';
import {
  CancelDocumentBody,
  ConvertDocumentBody,
  CreateDownPaymentBody,
  CreateDocumentBody,
  CreditNoteBody,
  EInvoiceQuery,
  DocumentSchema,
  DunningBlockBody,
  ListDocumentsQuery,
  QuoteDecisionBody,
  RasterizeBody,
  RasterizedSchema,
  SendDocumentBody,
  UpdateDocumentBody,
} from './documents.schemas.js';
import { DocumentsService } from './documents.service.js';
import {
  DocumentLineSchema,
  DocumentTaxSchema,
  documentLines,
  documentTaxes,
} from './documents.lines.js';
import { setDunningBlock } from './documents.dunning.js';
import {
  FinalizeCheckSchema,
  InvoiceReadinessSchema,
  SendPreviewQuery,
  SendPreviewSchema,
} from './documents.checks.schemas.js';
import { InvoiceNumberingSchema, PutInvoiceNumberingBody } from './numbering.schemas.js';
import { getNumbering, putNumbering } from './numbering.service.js';
import { registerQuoteAnswerMailJob } from './documents.quote-mail.js';

const Params = IdParams('documentId', 'doc');
const tags = ['documents'];

/** `/v1/documents`: HTTP only — input, one service call, status, ETag and body. */
export function documentRoutes(app: App, ctx: AppContext): void {
  const service = new DocumentsService(ctx);
  service.output.registerJobs();
  registerQuoteAnswerMailJob(ctx);
  collectionRoutes(app, service);
  linesRoutes(app, service);
  einvoiceRoute(app, service);
  correctionRoutes(app, service);
  quoteRoutes(app, service);
  recordRoutes(app, service);
  dunningBlockRoute(app, ctx);
  sendRoute(app, service);
  checkRoutes(app, service);
  numberingRoutes(app, ctx);
}

/**
 * The account's invoice number formats: a setting of the documents module (it alone writes
 * numbers and their table), beside `/v1/partners/numbering` for partner numbers.
 */
function numberingRoutes(app: App, ctx: AppContext): void {
  app.get(
    '/v1/documents/numbering',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Get the invoice and credit note number formats and the next numbers',
        description:
          'The defaults `{YYYY}-{0000}` and `GS-{YYYY}-{0000}` at version 0 until a format is saved. `nextInvoiceNumber` / `nextCreditNoteNumber`: what a document dated today would get if it became FINAL now. See docs/invoicing.md §8.',
        response: { 200: InvoiceNumberingSchema, ...problems(401) },
      },
    },
    async (req, reply) => {
      const saved = await getNumbering(ctx, req.principal!.accountId);
      setEtag(reply, saved.version);
      return saved;
    },
  );

  app.put(
    '/v1/documents/numbering',
    {
      config: { access: 'admin' },
      schema: {
        tags,
        summary: 'Change the invoice and credit note number formats',
        description:
          'Sets what it names (an omitted format stays). Invoices finalized afterwards get numbers in the new format, counted in a sequence of its own (restarting each year when the format shows the year); FINAL invoices keep theirs, and a number already used is skipped. A format the rules refuse is 400 `validation_failed` naming the field (`/body/invoiceFormat`, `/body/creditNoteFormat`). `version` (0 while nothing is saved) or `If-Match` make the change conditional (409/412 when stale). Admins only; audited as `invoice_numbering.created` / `invoice_numbering.updated`.',
        headers: IfMatchHeaders,
        body: PutInvoiceNumberingBody,
        response: { 200: InvoiceNumberingSchema, ...problems(400, 401, 403, 409, 412) },
      },
    },
    async (req, reply) => {
      const saved = await putNumbering(ctx, actorOf(req), req.body, readIfMatch(req));
      setEtag(reply, saved.version);
      return saved;
    },
  );
}

/**
 * What the server knows before a write, for clients that must not re-implement it: the
 * finalize checks of a draft, the account's setup checklist for invoicing (its rules are the
 * documents module's, so it lives here under the account path), and what a send will do.
 */
function checkRoutes(app: App, service: DocumentsService): void {
  app.get(
    '/v1/documents/:documentId/finalize-check',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Check whether a draft may become FINAL (§14 UStG / EN 16931), writing nothing',
        description:
          'Answers exactly the items the 422 `invoice_incomplete` of finalizing (`PUT` with `status: FINAL`, or send of the draft) would list now, computed with the seller and buyer data finalizing would freeze, each with `fixAt` naming where it is fixed. A FINAL document answers 200 with `status: FINAL`, `finalizable: false` and no problems, so a client may ask for any document. Contract documents and uploaded invoices are not checked (`finalizable: true`). Not covered: whether the PDF renders and concurrent changes.',
        params: Params,
        response: { 200: FinalizeCheckSchema, ...problems(401, 404) },
      },
    },
    (req) => service.finalizeCheck(req.principal!.accountId, req.params.documentId),
  );

  app.get(
    '/v1/account/invoice-readiness',
    {
      config: { access: 'user' },
      schema: {
        tags: ['account'],
        summary: 'The setup checklist for issuing invoices',
        description:
          'The account’s part of the finalize checks, in a fixed order: `company` (legal name, full address, tax number or VAT id), `bankAccount` (a first bank account with a valid IBAN, named for payment by transfer), `logo` (optional: never holds `ready` back), `taxRates` (at least one), `invoiceNumbering` (always done: the account’s formats or the defaults, set with `PUT /v1/documents/numbering`; `detail` names them and the next number). Problems carry the paths finalizing uses (`/company/…`). Partner-, invoice- and category-specific rules (e.g. the seller’s phone for XRechnung buyers, a VAT id for reverse charge) are checked per invoice: `GET /v1/documents/{documentId}/finalize-check`.',
        response: { 200: InvoiceReadinessSchema, ...problems(401) },
      },
    },
    (req) => service.invoiceReadiness(req.principal!.accountId),
  );

  app.get(
    '/v1/documents/:documentId/send-preview',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'What sending the document would mail, sending nothing',
        description:
          'Recipients, Reply-To, sender, default subject and text, attachment and where the mail goes (`delivery`: `outbox` when no SMTP_URL is configured, then the mail does not leave the machine), computed by the code `POST /v1/documents/{documentId}/send` uses. `to` previews other recipients and is checked as the send checks it (422 `business_rule_violated` at `/querystring/to/…`); without `to`, a partner without a BILLING address email is 422 at `/querystring/to`. A draft is previewed as it would be sent once FINAL (`finalizesFirst`).',
        params: Params,
        querystring: SendPreviewQuery,
        response: { 200: SendPreviewSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    (req) => service.sendPreview(req.principal!.accountId, req.params.documentId, req.query),
  );
}

/**
 * The lines and the tax breakdown of the listed documents, one record per line (per rate),
 * for spreadsheets.
 */
function linesRoutes(app: App, service: DocumentsService): void {
  app.get(
    '/v1/documents/lines',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the lines of documents (one record per line; for CSV exports)',
        description:
          'The lines of the documents that `GET /v1/documents` selects with the same filters, each with its document’s number, date, partner and currency, in list order. A page holds the lines of up to `limit` documents, so it may hold more or fewer than `limit` lines (none for documents without lines) while `nextCursor` is not null. With `Accept: text/csv` every line of every selected document is one row.',
        querystring: ListDocumentsQuery,
        response: { 200: PageOf(DocumentLineSchema), ...problems(400, 401) },
      },
    },
    async (req) => {
      const page = await service.list(req.principal!.accountId, req.query);
      return { data: documentLines(page.data), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/v1/documents/taxes',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'List the tax breakdown of documents (one record per rate; for CSV exports)',
        description:
          'The net and VAT per tax rate of the documents that `GET /v1/documents` selects with the same filters, each with its document’s number, date, partner and currency, in list order. A page holds the rates of up to `limit` documents. With `Accept: text/csv` every rate of every selected document is one row.',
        querystring: ListDocumentsQuery,
        response: { 200: PageOf(DocumentTaxSchema), ...problems(400, 401) },
      },
    },
    async (req) => {
      const page = await service.list(req.principal!.accountId, req.query);
      return { data: documentTaxes(page.data), nextCursor: page.nextCursor };
    },
  );
}

/** The collection: list, create (at once or in the background), and rasterize a PDF. */
function collectionRoutes(app: App, service: DocumentsService): void {
  app.get(
    '/v1/documents',
    {
      // Lines and rates are rows of their own in CSV: GET /v1/documents/lines and /taxes.
      config: { access: 'user', builtAnswers: true, csv: { omit: ['lineItems', 'taxes'] } },
      schema: {
        tags,
        summary: 'List documents',
        querystring: ListDocumentsQuery,
        response: { 200: PageOf(DocumentSchema), ...problems(400, 401) },
      },
    },
    (req) => service.list(req.principal!.accountId, req.query),
  );

  app.post(
    '/v1/documents',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Create a document (FINAL: numbered, rendered and immutable)',
        headers: IdempotencyHeaders,
        body: CreateDocumentBody,
        response: { 201: DocumentSchema, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.create(actorOf(req), req.body);
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(201).send(doc);
    },
  );

  app.post(
    '/v1/documents/processing',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Create a document and render or analyse it in the background (202)',
        headers: IdempotencyHeaders,
        body: CreateDocumentBody,
        response: { 202: DocumentSchema, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.create(actorOf(req), req.body, { processing: true });
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(202).send(doc);
    },
  );

  app.post(
    '/v1/documents/rasterize',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Render pages of a PDF as PNG files',
        headers: IdempotencyHeaders,
        body: RasterizeBody,
        response: { 200: RasterizedSchema, ...problems(400, 401, 404, 409, 413, 422) },
      },
    },
    (req) => service.rasterize(actorOf(req), req.body),
  );
}

/** A FINAL invoice's e-invoice, with an ETag of its bytes. */
function einvoiceRoute(app: App, service: DocumentsService): void {
  app.get(
    '/v1/documents/:documentId/einvoice',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'The e-invoice of a FINAL invoice (XRechnung CII/UBL XML or ZUGFeRD PDF)',
        description:
          'XRechnung 3.0 (CII D16B or UBL 2.1, `application/xml`) or the stored ZUGFeRD 2.3 / Factur-X PDF/A-3 (EN 16931) of a FINAL invoice or credit note issued by Kontor. Built from the stored FINAL document and the seller and buyer data frozen when it became FINAL: the same bytes every time (strong ETag = SHA-256). A DRAFT, a contract document or an uploaded invoice answers 409.',
        params: Params,
        querystring: EInvoiceQuery,
        response: {
          200: {
            description: 'The XML (`application/xml`) or the PDF (`application/pdf`).',
            content: {
              // The bytes are sent as they are; the schemas only document them.
              'application/xml': { schema: Type.Unsafe<Buffer>({ type: 'string' }) },
              'application/pdf': {
                schema: Type.Unsafe<Buffer>({ type: 'string', format: 'binary' }),
              },
            },
          },
          // Sent without a payload (`send()`), so neither a body nor a content type goes out.
          304: Type.Unsafe<undefined>({
            type: 'null',
            description: 'Not modified (If-None-Match matched the ETag).',
          }),
          ...problems(400, 401, 404, 409),
        },
      },
    },
    async (req, reply) => {
      const file = await service.einvoice(
        req.principal!.accountId,
        req.params.documentId,
        req.query.format,
      );
      const etag = `"${createHash('sha256').update(file.bytes).digest('hex')}"`;
      reply.header('etag', etag);
      reply.header('content-disposition', attachmentDisposition(file.filename));
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.type(file.contentType).send(file.bytes);
    },
  );
}

/** Corrections of a FINAL invoice: cancellation (Storno) and partial credit notes. */
function correctionRoutes(app: App, service: DocumentsService): void {
  app.post(
    '/v1/documents/:documentId/cancel',
    {
      config: { access: 'admin', builtAnswers: true },
      schema: {
        tags,
        summary: 'Cancel a FINAL invoice (Storno) with a FINAL credit note for the full amount',
        description:
          'Creates a FINAL credit note (type code 381, number `GS-{YYYY}-{0000}` from its own gapless sequence) mirroring every line, referring to the invoice (BT-25/26); the invoice answers `cancelledByDocumentId` and is no longer open or overdue. A second cancel, a DRAFT, a credit note or a partly credited invoice answers 409. Needs the admin role: a cancellation corrects the books.',
        params: Params,
        headers: IdempotencyHeaders,
        body: CancelDocumentBody,
        response: { 201: DocumentSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.cancel(actorOf(req), req.params.documentId, req.body);
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(201).send(doc);
    },
  );

  app.post(
    '/v1/documents/:documentId/credit-notes',
    {
      config: { access: 'admin', builtAnswers: true },
      schema: {
        tags,
        summary: 'Credit part of a FINAL invoice with a FINAL credit note',
        description:
          'The lines given are credited (positive amounts, priced like invoice lines); all credit notes of an invoice together may not exceed its gross total (422 with `remainingMinor`). Needs the admin role: a credit note corrects the books.',
        params: Params,
        headers: IdempotencyHeaders,
        body: CreditNoteBody,
        response: { 201: DocumentSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.credit(actorOf(req), req.params.documentId, req.body);
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(201).send(doc);
    },
  );
}

/** Quotes and order confirmations: a quote's answer, and converting into the next document. */
function quoteRoutes(app: App, service: DocumentsService): void {
  app.post(
    '/v1/documents/:documentId/decision',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Record the customer’s answer to a quote (accepted or declined)',
        description:
          'An OPEN quote (FINAL, not past `validUntil`) becomes ACCEPTED or DECLINED with `quoteDecidedAt` and `quoteDecidedBy`, audited and announced (`quote.accepted` / `quote.declined`). A draft, another document, an expired or already answered quote answers 409 `state_conflict`.',
        params: Params,
        body: QuoteDecisionBody,
        response: { 200: DocumentSchema, ...problems(400, 401, 404, 409) },
      },
    },
    async (req, reply) => {
      const doc = await service.decide(actorOf(req), req.params.documentId, req.body);
      setEtag(reply, doc.version);
      return doc;
    },
  );

  app.post(
    '/v1/documents/:documentId/convert',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary:
          'Convert a quote or an order confirmation into a DRAFT order confirmation or invoice',
        description:
          'Copies the chosen lines (`linePositions`, default all), partner, contract, currency, references, payment terms and note into a new DRAFT of `documentType`, with `originDocumentId` set; the source lists it in `convertedToDocumentIds`. An invoice cites the quote as its contract reference (BT-12, `contractReference`); with `final` (default: when FINAL down payments exist) it is a final invoice (Schlussrechnung) deducting the PAID down-payment invoices (`downPaymentDeductions`, `prepaidAmount`). The source must be a FINAL quote or order confirmation; a DECLINED or EXPIRED quote answers 409 `state_conflict`. A quote converted in full while OPEN becomes ACCEPTED.',
        params: Params,
        headers: IdempotencyHeaders,
        body: ConvertDocumentBody,
        response: { 201: DocumentSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.convert(actorOf(req), req.params.documentId, req.body);
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(201).send(doc);
    },
  );

  app.post(
    '/v1/documents/:documentId/down-payments',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Bill a down payment (Abschlagsrechnung) on a quote or an order confirmation',
        description:
          'Creates a DRAFT invoice with `invoiceType` DOWN_PAYMENT (type code 386, numbered in the invoice range, checked as every invoice when it becomes FINAL): one line per VAT rate of the order, its net scaled by `percent` or its share of the gross `amount` (split across the rates in proportion to their gross; rounding half-up to the cent per rate), so each rate keeps its own VAT. Partner, references, delivery date or service period and payment terms are copied; `originDocumentId` is the order, which lists it in `convertedToDocumentIds`. The final invoice (`POST …/convert` with `final`) deducts every down payment that is PAID. The source must be a FINAL quote or order confirmation (a draft, a DECLINED or EXPIRED quote: 409 `state_conflict`); neither or both of `percent` and `amount`, or an amount above the gross total: 400.',
        params: Params,
        headers: IdempotencyHeaders,
        body: CreateDownPaymentBody,
        response: { 201: DocumentSchema, ...problems(400, 401, 404, 409, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.downPayment(actorOf(req), req.params.documentId, req.body);
      setEtag(reply, doc.version);
      reply.header('location', `/v1/documents/${doc.id}`);
      return reply.code(201).send(doc);
    },
  );
}

/** One document: read, update (a DRAFT, or finalize it) and delete (a DRAFT). */
function recordRoutes(app: App, service: DocumentsService): void {
  app.get(
    '/v1/documents/:documentId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Get a document',
        params: Params,
        response: { 200: DocumentSchema, ...problems(401, 404) },
      },
    },
    async (req, reply) => {
      const doc = await service.get(req.principal!.accountId, req.params.documentId);
      setEtag(reply, doc.version);
      return doc;
    },
  );

  app.put(
    '/v1/documents/:documentId',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Update a DRAFT document (partial; status FINAL finalizes it)',
        params: Params,
        headers: IfMatchHeaders,
        body: UpdateDocumentBody,
        response: { 200: DocumentSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const doc = await service.update(
        actorOf(req),
        req.params.documentId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, doc.version);
      return doc;
    },
  );

  app.delete(
    '/v1/documents/:documentId',
    {
      config: { access: 'user' },
      schema: {
        tags,
        summary: 'Delete a DRAFT document (409 state_conflict when FINAL)',
        params: Params,
        headers: IfMatchHeaders,
        response: { 204: Type.Null({ description: 'Deleted.' }), ...problems(401, 404, 409, 412) },
      },
    },
    async (req, reply) => {
      await service.remove(actorOf(req), req.params.documentId, readIfMatch(req));
      return reply.code(204).send(null);
    },
  );
}

/** The dunning block (Mahnsperre) of an invoice. */
function dunningBlockRoute(app: App, ctx: AppContext): void {
  app.put(
    '/v1/documents/:documentId/dunning-block',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Block an invoice from dunning (Mahnsperre) or lift the block',
        description:
          'Dunning runs skip a blocked invoice. Allowed on FINAL invoices: the block is about the claim, the invoice stays as issued. `version` or `If-Match` make the change conditional (409/412 when stale). See docs/dunning.md.',
        params: Params,
        headers: IfMatchHeaders,
        body: DunningBlockBody,
        response: { 200: DocumentSchema, ...problems(400, 401, 404, 409, 412, 422) },
      },
    },
    async (req, reply) => {
      const doc = await setDunningBlock(
        ctx,
        actorOf(req),
        req.params.documentId,
        req.body,
        readIfMatch(req),
      );
      setEtag(reply, doc.version);
      return doc;
    },
  );
}

/** Mailing a document with its PDF. */
function sendRoute(app: App, service: DocumentsService): void {
  app.post(
    '/v1/documents/:documentId/send',
    {
      config: { access: 'user', builtAnswers: true },
      schema: {
        tags,
        summary: 'Mail the document with its PDF (finalizes a DRAFT first)',
        params: Params,
        headers: IdempotencyHeaders,
        body: SendDocumentBody,
        response: { 200: DocumentSchema, ...problems(400, 401, 404, 409, 422, 429) },
      },
    },
    async (req, reply) => {
      const doc = await service.send(actorOf(req), req.params.documentId, req.body ?? {});
      setEtag(reply, doc.version);
      return doc;
    },
  );
}
