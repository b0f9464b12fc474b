import { Type, type Static } from 'typebox';
import { Nullable } from '../../http/schemas.js';
import { FIX_AT } from './invoice-rules.js';
import { DOCUMENT_STATUSES, MAIL_DELIVERIES } from './documents.schemas.js';

/**
 * The answers that say what the server already knows before a write: whether a draft may
 * become FINAL, what the account still lacks to issue invoices, and what a send will do. A
 * client shows them; it re-implements none of the rules behind them.
 */

const FixAtSchema = Type.Enum(FIX_AT, {
  description:
    'Where the user fixes it: `company` (`PUT /v1/account/company`, or the logo in the account settings), `bankAccount` (the company’s bank accounts), `partner` (`PUT /v1/partners/{partnerId}`), `document` (the invoice itself), `taxRates` (`/v1/tax-rates`), `numbering` (invoice numbers). Derived from `path`, so a client links without parsing it.',
});

export const InvoiceProblemSchema = Type.Object(
  {
    path: Type.String({
      description:
        'JSON pointer to what is missing or invalid: `/body/…` the invoice (as `PUT /v1/documents/{documentId}` names it), `/company/…` the seller master data, `/partner/…` the buyer, `/taxRates/{taxRateId}/…` a tax rate.',
    }),
    message: Type.String({ description: 'What is wrong, in English, after the path.' }),
    code: Type.String({
      description: 'Field code: `required` (missing) or `invalid` (present but not allowed).',
    }),
    fixAt: FixAtSchema,
  },
  { additionalProperties: false, description: 'One item a FINAL invoice would lack.' },
);
export type InvoiceProblem = Static<typeof InvoiceProblemSchema>;

export const FinalizeCheckSchema = Type.Object(
  {
    status: Type.Enum(DOCUMENT_STATUSES, {
      description: 'The document’s status now. A FINAL one cannot be finalized again.',
    }),
    finalizable: Type.Boolean({
      description:
        'true: finalizing now (`PUT` with `status: FINAL`, or send of the draft) passes the §14 UStG / EN 16931 checks. false for a FINAL document and for a draft with problems.',
    }),
    problems: Type.Array(InvoiceProblemSchema, {
      description:
        'Exactly the `errors` the 422 `invoice_incomplete` of finalizing would list now (empty for FINAL documents, and for contract documents and uploaded invoices, which are not checked).',
    }),
  },
  {
    additionalProperties: false,
    description:
      'The finalize checks of a document, computed with the seller and buyer data finalizing would freeze, without writing anything. Not covered: whether the PDF renders (422 `file_unprocessable`) and concurrent changes (409).',
  },
);
export type FinalizeCheck = Static<typeof FinalizeCheckSchema>;

export const READINESS_KEYS = [
  'company',
  'bankAccount',
  'logo',
  'taxRates',
  'invoiceNumbering',
] as const;

const NumberingDetail = Type.Object(
  {
    invoiceFormat: Type.String({
      description:
        'How invoices are numbered: the account’s format (`GET/PUT /v1/documents/numbering`), by default `{YYYY}-{0000}` (the year, a gapless sequence).',
    }),
    creditNoteFormat: Type.String({
      description:
        'How credit notes are numbered, a sequence of their own: by default `GS-{YYYY}-{0000}`.',
    }),
    nextInvoiceNumber: Type.String({
      description:
        'The number an invoice dated today would get if it became FINAL now (another may take it first).',
    }),
  },
  { additionalProperties: false },
);

export const ReadinessItemSchema = Type.Object(
  {
    key: Type.Enum(READINESS_KEYS, { description: 'The step; always in this order.' }),
    done: Type.Boolean({ description: 'Whether the step is complete.' }),
    required: Type.Boolean({
      description: 'Whether `ready` waits for it; false only for `logo`, which is optional.',
    }),
    fixAt: FixAtSchema,
    problems: Type.Array(InvoiceProblemSchema, {
      description: 'What is missing, as finalizing would name it; empty when done.',
    }),
    detail: Nullable(
      NumberingDetail,
      '`invoiceNumbering`: the number formats and the next number; null for the other steps.',
    ),
  },
  { additionalProperties: false },
);

export const InvoiceReadinessSchema = Type.Object(
  {
    ready: Type.Boolean({
      description:
        'Every required step is done: the account’s own data no longer stops an invoice from becoming FINAL (the invoice and its partner still can).',
    }),
    items: Type.Array(ReadinessItemSchema, {
      description:
        'The steps in a fixed order: `company`, `bankAccount`, `logo`, `taxRates`, `invoiceNumbering`.',
    }),
  },
  {
    additionalProperties: false,
    description:
      'The setup checklist for issuing invoices: the seller rules of the finalize checks applied to the account now.',
  },
);
export type InvoiceReadiness = Static<typeof InvoiceReadinessSchema>;

const Email = Type.String({ format: 'email', maxLength: 254 });

export const SendPreviewQuery = Type.Object(
  {
    to: Type.Optional(
      Type.Array(Email, {
        minItems: 1,
        maxItems: 10,
        description:
          'Recipients to preview instead of the default (repeat the parameter: `?to=a@x.example&to=b@x.example`); checked as `POST /v1/documents/{documentId}/send` checks its `to` (422 beyond 3 addresses that are not the partner’s).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SendPreviewInput = Static<typeof SendPreviewQuery>;

export const SendPreviewSchema = Type.Object(
  {
    to: Type.Array(Type.String(), {
      description: 'Recipients: the `to` asked for, else the partner’s BILLING address email.',
    }),
    cc: Type.Array(Type.String(), { description: 'Copies (none unless the send names them).' }),
    replyTo: Nullable(
      Type.String(),
      'Reply-To: the company’s email (`/v1/account/company`), so answers reach the company; null without one.',
    ),
    from: Type.String({ description: 'The sender (From): the server’s `MAIL_FROM`.' }),
    subject: Type.String({ description: 'The default subject.' }),
    message: Type.String({ description: 'The default mail text.' }),
    delivery: Type.Enum(MAIL_DELIVERIES, {
      description:
        '`smtp`: the mail goes to the configured mail server; `outbox`: no `SMTP_URL` is configured and the mail is only written to the local outbox folder.',
    }),
    deliveryNote: Type.String({
      description: 'The same in words, for the user (English).',
    }),
    finalizesFirst: Type.Boolean({
      description:
        'true for a DRAFT: send makes it FINAL first (numbered, its checks must pass: see `finalize-check`).',
    }),
    attachments: Type.Array(
      Type.Object(
        {
          name: Type.String({
            description:
              'File name; for a draft invoice with the number it is expected to get (another finalization may take it first).',
          }),
          contentType: Type.String({
            description:
              '`application/pdf` (the ZUGFeRD PDF), `application/xml` (XRechnung for partners that want it), or an uploaded file’s type.',
          }),
        },
        { additionalProperties: false },
      ),
      { description: 'What is attached.' },
    ),
  },
  {
    additionalProperties: false,
    description:
      'What `POST /v1/documents/{documentId}/send` without a body (or with these recipients) would send, computed by the same code; nothing is written or sent.',
  },
);
export type SendPreview = Static<typeof SendPreviewSchema>;
