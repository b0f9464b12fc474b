import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import {
  DocumentDate,
  IsoDate,
  LineItemInput,
  Nullable,
  RecordMeta,
  VersionField,
} from '../../http/schemas.js';
import { CURRENCIES } from '../../shared/money.js';

/** What a document is; DUNNING letters (payment reminders, Mahnungen) are made by dunning runs. */
export const DOCUMENT_TYPES = [
  'CONTRACT',
  'INVOICE',
  'DUNNING',
  'QUOTE',
  'ORDER_CONFIRMATION',
] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];
/** The types `POST`/`PUT /v1/documents` take: a DUNNING letter comes only from a dunning run. */
const WRITABLE_TYPES = ['CONTRACT', 'INVOICE', 'QUOTE', 'ORDER_CONFIRMATION'] as const;
/** A quote's outcome once FINAL (sent): open, accepted, declined, or expired after `validUntil`. */
export const QUOTE_STATUSES = ['OPEN', 'ACCEPTED', 'DECLINED', 'EXPIRED'] as const;
export type QuoteStatus = (typeof QUOTE_STATUSES)[number];
/** What a quote or an order confirmation converts into (`POST /v1/documents/{id}/convert`). */
export const CONVERSION_TARGETS = ['ORDER_CONFIRMATION', 'INVOICE'] as const;
export const DOCUMENT_STATUSES = ['DRAFT', 'FINAL'] as const;
export const DOCUMENT_SOURCES = ['GENERATED', 'UPLOADED'] as const;
export const PROCESSING_STATUSES = ['QUEUED', 'RUNNING', 'DONE', 'FAILED'] as const;
export const PAYMENT_STATUSES = ['UNPAID', 'PARTIAL', 'PAID'] as const;
export const INVOICE_TYPES = ['INVOICE', 'CREDIT_NOTE', 'DOWN_PAYMENT'] as const;
/** Where a sending put the mail (shared/mail's `MailDelivery`). */
export const MAIL_DELIVERIES = ['outbox', 'smtp'] as const;
export const EINVOICE_OUTPUT_FORMATS = ['xrechnung-cii', 'xrechnung-ubl', 'zugferd'] as const;
export type EInvoiceOutputFormat = (typeof EINVOICE_OUTPUT_FORMATS)[number];
export type DocumentStatus = (typeof DOCUMENT_STATUSES)[number];

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Name = (description: string) => Type.String({ maxLength: 200, description });

export { LineItemInput };

const LineItem = Type.Object(
  {
    productId: Nullable(Type.String(), 'The product, if the line came from one.'),
    description: Type.String(),
    quantity: Type.Number(),
    unitPrice: Type.Number({ description: 'Net price per unit in major units.' }),
    taxRateId: Type.String(),
    taxRate: Type.Number({ description: 'The rate applied, in percent.' }),
    taxCategory: Type.String({
      description: 'VAT category of the rate (S, Z, E, AE, K, G, O; BT-151).',
    }),
    unitCode: Type.String({ description: 'UN/ECE Rec. 20 unit code (BT-130).' }),
    netAmount: Type.Number({ description: 'quantity × unitPrice, rounded half-up to the cent.' }),
  },
  { additionalProperties: false },
);

const TaxLine = Type.Object(
  {
    taxRateId: Type.String(),
    rate: Type.Number({ description: 'Percent.' }),
    category: Type.String({ description: 'VAT category (BT-118).' }),
    exemptionReason: Nullable(Type.String(), 'Why no VAT is charged (BT-120).'),
    exemptionCode: Nullable(Type.String(), 'VATEX code (BT-121).'),
    net: Type.Number({ description: 'Sum of the nets of the lines at this rate.' }),
    tax: Type.Number({ description: 'VAT on that sum, rounded half-up.' }),
  },
  { additionalProperties: false },
);

const ServicePeriod = Type.Object(
  {
    from: DocumentDate('First day of the service period (BT-73)'),
    to: DocumentDate('Last day of the service period (BT-74)'),
  },
  { additionalProperties: false },
);

const EInvoiceSchema = Type.Object(
  {
    syntax: Type.String({ description: 'CII or UBL.' }),
    profile: Nullable(Type.String(), 'Guideline (profile) id.'),
    documentNumber: Nullable(Type.String(), 'Invoice number.'),
    issueDate: Nullable(Type.String(), 'Issue date (YYYY-MM-DD).'),
    currency: Nullable(Type.String(), 'Invoice currency.'),
    sellerName: Nullable(Type.String(), 'Seller.'),
    buyerName: Nullable(Type.String(), 'Buyer.'),
    netTotal: Nullable(Type.Number(), 'Net total.'),
    taxTotal: Nullable(Type.Number(), 'Tax total.'),
    grossTotal: Nullable(Type.Number(), 'Gross total.'),
    dueAmount: Nullable(Type.Number(), 'Amount due.'),
    payeeIban: Nullable(
      Type.String(),
      'The payee’s IBAN (BT-84) of the first credit transfer, upper-case without spaces; a SEPA transfer of this supplier invoice pays to it when the partner has no bank account. Null: none (or read before it was kept).',
    ),
  },
  {
    additionalProperties: false,
    description: 'An embedded or uploaded e-invoice (ZUGFeRD/Factur-X, XRechnung) as read.',
  },
);

/** A down payment a final invoice deducts (§ 14 (5) UStG: its net and VAT per rate). */
export const Deduction = Type.Object(
  {
    documentId: Type.String({ description: 'The down-payment invoice.' }),
    documentNumber: Type.String({ description: 'Its number (BT-25).' }),
    creationDate: Type.String({ description: 'Its date (BT-26), YYYY-MM-DD.' }),
    net: Type.Number({ description: 'Its net amount.' }),
    tax: Type.Number({ description: 'Its VAT.' }),
    gross: Type.Number({ description: 'Its gross amount, the amount deducted.' }),
    taxes: Type.Array(
      Type.Object(
        {
          rate: Type.Number({ description: 'VAT rate in percent.' }),
          category: Type.String({ description: 'VAT category (UNTDID 5305).' }),
          net: Type.Number({ description: 'Net at this rate.' }),
          tax: Type.Number({ description: 'VAT at this rate.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Its VAT per rate.' },
    ),
  },
  { additionalProperties: false },
);

export const DocumentSchema = Type.Object(
  {
    ...RecordMeta,
    documentType: Type.Enum(DOCUMENT_TYPES, {
      description:
        'CONTRACT, INVOICE, DUNNING (a payment reminder or dunning letter a dunning run made), QUOTE (an Angebot) or ORDER_CONFIRMATION (an Auftragsbestätigung).',
    }),
    name: Type.String(),
    documentNumber: Nullable(
      Type.String(),
      'Number; invoices get `{YYYY}-{0000}`, quotes `AN-{YYYY}-{0000}`, order confirmations `AB-{YYYY}-{0000}` (or the account’s formats) when they become FINAL without one.',
    ),
    contractId: Nullable(Type.String(), 'Linked contract.'),
    contractName: Nullable(Type.String(), 'Name of the contract (filled by the server).'),
    partnerId: Nullable(Type.String(), 'Linked partner.'),
    partnerName: Nullable(Type.String(), 'Name of the partner (filled by the server).'),
    creationDate: Type.String({ description: 'Document date (YYYY-MM-DD).' }),
    dueDate: Nullable(Type.String(), 'Payment due date of an invoice (YYYY-MM-DD).'),
    status: Type.Enum(DOCUMENT_STATUSES),
    source: Type.Enum(DOCUMENT_SOURCES),
    templateId: Nullable(Type.String(), 'Template of a GENERATED document.'),
    fileId: Nullable(Type.String(), 'The uploaded file, or the rendered PDF of a generated one.'),
    fileType: Nullable(Type.String(), 'Content type of `fileId`.'),
    pdfSha256: Nullable(Type.String(), 'SHA-256 of the stored file, fixed when FINAL.'),
    currency: Type.String(),
    lineItems: Type.Array(LineItem),
    taxes: Type.Array(TaxLine),
    netTotal: Type.Number(),
    taxTotal: Type.Number(),
    grossTotal: Type.Number(),
    paymentStatus: Nullable(
      Type.Enum(PAYMENT_STATUSES),
      'Invoices: UNPAID, PARTIAL or PAID, from the MARKED payments linked to it in its currency (incoming minus outgoing, so refunds count back) against grossTotal; null for contract documents.',
    ),
    openAmount: Nullable(
      Type.Number(),
      'FINAL invoices (not credit notes): what is still owed — grossTotal less the down payments a final invoice deducts (`prepaidAmount`), the MARKED payments (as `paymentStatus` counts them) and the FINAL credit notes against it, never below 0; the amount a payment or a dunning letter starts from. Null for drafts, credit notes and contract documents.',
    ),
    overdue: Type.Boolean({
      description: 'Invoices: FINAL, not PAID, and dueDate before today (UTC). Else false.',
    }),
    fields: Type.Record(Type.String(), Type.Unknown(), {
      description: 'Values of the template’s extra fields.',
    }),
    processingStatus: Nullable(
      Type.Enum(PROCESSING_STATUSES),
      'State of the background rendering or analysis, if one was requested.',
    ),
    processingError: Nullable(Type.String(), 'Why processing FAILED.'),
    pageCount: Nullable(Type.Integer(), 'Pages of the PDF.'),
    eInvoice: Nullable(EInvoiceSchema, 'E-invoice data found in the file.'),
    eInvoiceProblems: Type.Array(
      Type.Object(
        {
          code: Type.String({ description: 'Problem code, e.g. `file_unprocessable`.' }),
          message: Type.String({ description: 'Why the e-invoice was refused.' }),
          ruleIds: Type.Array(Type.String(), {
            description: 'EN 16931 / XRechnung / syntax rule ids named, e.g. `BR-CO-16`.',
          }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Uploaded documents: why an embedded or uploaded e-invoice was refused (empty when none was or it was read).',
      },
    ),
    finalizedAt: Nullable(Type.String(), 'When it became FINAL.'),
    sentAt: Nullable(Type.String(), 'When it was last sent.'),
    sentTo: Type.Array(Type.String(), { description: 'Recipients of the last sending.' }),
    delivery: Nullable(
      Type.Enum(MAIL_DELIVERIES),
      'Where the last sending put the mail: `smtp` — a mail server accepted it; `outbox` — it was only written to the local outbox (`DATA_DIR/outbox`, no SMTP_URL configured) and has not left the machine. Null while never sent (or sent before this was recorded).',
    ),
    invoiceType: Nullable(
      Type.Enum(INVOICE_TYPES),
      'Invoices: INVOICE (type code 380; a final invoice, Schlussrechnung, when `finalInvoice`), DOWN_PAYMENT (386, an Abschlags-/Anzahlungsrechnung, `POST /v1/documents/{id}/down-payments`; numbered in the invoice range) or CREDIT_NOTE (381, a Rechnungskorrektur, or a Stornorechnung when it cancels `precedingDocumentId` in full); null for other documents.',
    ),
    deliveryDate: Nullable(Type.String(), 'Date of the supply or service (BT-72), YYYY-MM-DD.'),
    servicePeriod: Nullable(ServicePeriod, 'Period of the service (BG-14).'),
    buyerReference: Nullable(
      Type.String(),
      'Buyer reference (BT-10, e.g. a Leitweg-ID); default the partner’s.',
    ),
    orderReference: Nullable(Type.String(), 'The buyer’s order number (BT-13).'),
    paymentTerms: Nullable(Type.String(), 'Payment terms text (BT-20).'),
    skontoPercent: Nullable(Type.Number(), 'Cash discount (Skonto) in percent.'),
    skontoDays: Nullable(Type.Integer(), 'Days from the invoice date the Skonto applies.'),
    note: Nullable(Type.String(), 'A note printed on the invoice (BT-22).'),
    precedingDocumentId: Nullable(
      Type.String(),
      'Credit notes: the invoice they correct (BT-25/26).',
    ),
    precedingDocumentNumber: Nullable(Type.String(), 'Credit notes: that invoice’s number.'),
    precedingDocumentDate: Nullable(Type.String(), 'Credit notes: that invoice’s date.'),
    cancelledByDocumentId: Nullable(
      Type.String(),
      'Invoices cancelled in full (Storno): the credit note. Such an invoice is neither open nor overdue.',
    ),
    validUntil: Nullable(
      Type.String(),
      'Quotes: the last day the quote can be accepted (gültig bis, YYYY-MM-DD); default 30 days after the document date when it becomes FINAL. Null on other documents.',
    ),
    quoteStatus: Nullable(
      Type.Enum(QUOTE_STATUSES),
      'Quotes: OPEN once FINAL (sent), then ACCEPTED or DECLINED (`POST /v1/documents/{id}/decision`) or EXPIRED (the day after `validUntil`). Null for drafts and other documents; `status` stays DRAFT or FINAL.',
    ),
    quoteDecidedAt: Nullable(
      Type.String({ format: 'date-time' }),
      'Quotes: when the quote was accepted, declined or expired.',
    ),
    quoteDecidedBy: Nullable(
      Type.String(),
      'Quotes: the name of who accepted or declined it (`system` when it expired).',
    ),
    contractReference: Nullable(
      Type.String(),
      'Invoices converted from a quote: the contract reference (BT-12) the e-invoice carries, the quote’s number (set by the conversion, read-only).',
    ),
    originDocumentId: Nullable(
      Type.String(),
      'The quote or order confirmation this document was converted from (`POST /v1/documents/{id}/convert`).',
    ),
    finalInvoice: Type.Boolean({
      description:
        'Invoices: true for a final invoice (Schlussrechnung) that bills the whole job and deducts the paid down payments in `downPaymentDeductions`; false otherwise.',
    }),
    downPaymentDeductions: Type.Array(Deduction, {
      description:
        'A final invoice: the down-payment invoices it deducts (FINAL, not cancelled, PAID when the final invoice became FINAL, or for a draft as of now), oldest first, each with its VAT per rate (§ 14 (5) UStG). Empty otherwise.',
    }),
    prepaidAmount: Nullable(
      Type.Number(),
      'A final invoice: the sum of the deducted down payments’ gross amounts (BT-113); its amount due is `grossTotal` − `prepaidAmount`. Null on other documents.',
    ),
    convertedToDocumentIds: Type.Array(Type.String(), {
      description:
        'Quotes and order confirmations: the documents converted from this one, oldest first (empty otherwise). With `originDocumentId`, the chain quote → order confirmation → invoice is visible from each document.',
    }),
    customerViews: Type.Optional(
      Type.Object(
        {
          firstViewedAt: Nullable(
            Type.String({ format: 'date-time' }),
            'When the customer first opened one of its pages; null while never opened.',
          ),
          lastViewedAt: Nullable(
            Type.String({ format: 'date-time' }),
            'When the customer last opened one of its pages; null while never opened.',
          ),
          viewCount: Type.Integer({
            description: 'How often its pages were opened, over all links.',
          }),
        },
        {
          additionalProperties: false,
          description:
            'Invoices and quotes with customer links (docs/customer-page.md): how the customer viewed the document’s page, over all its links. Only on `GET /v1/documents/{documentId}`, and only when the document has a link.',
        },
      ),
    ),
    paidAt: Nullable(
      Type.String({ format: 'date-time' }),
      'Invoices: when its settled payments first covered the gross total (`document.paid`); null while not paid.',
    ),
    dunningLevel: Type.Integer({
      description:
        'Invoices: the dunning level reached (0 none, 1 payment reminder, 2-4 the first to third dunning letter); 0 for other documents.',
    }),
    lastDunnedAt: Nullable(
      Type.String(),
      'Invoices: the as-of day (YYYY-MM-DD) of the last payment reminder or dunning letter.',
    ),
    dunningBlocked: Type.Boolean({
      description:
        'Invoices: blocked from dunning (Mahnsperre; `PUT /v1/documents/{documentId}/dunning-block`).',
    }),
  },
  { additionalProperties: false, description: 'A contract document or an invoice.' },
);
export type DocumentView = Static<typeof DocumentSchema>;

const common = {
  documentType: Type.Enum(WRITABLE_TYPES, {
    description:
      'CONTRACT, INVOICE, QUOTE or ORDER_CONFIRMATION (DUNNING letters come from dunning runs only).',
  }),
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Document name.' }),
  documentNumber: Type.String({
    minLength: 1,
    maxLength: 64,
    description:
      'Your own number; unique per account and type. Omit it for invoices to get the next of the sequence on finalizing.',
  }),
  contractId: Id('A contract of this account (`ctr_…`).'),
  contractName: Name('Used only without contractId.'),
  partnerId: Id('A partner of this account (`ptr_…`); default the contract’s partner.'),
  partnerName: Name('Used only without partnerId.'),
  templateId: Id('A PUBLISHED template (`tpl_…`), required for GENERATED.'),
  fileId: Id('An uploaded file (`fil_…`), required for UPLOADED.'),
  fileType: Type.String({
    maxLength: 100,
    description: 'Ignored: the server answers the file’s verified content type.',
  }),
  creationDate: DocumentDate(
    'Document date; not more than one year after today (the same day of the next year)',
  ),
  status: Type.Enum(DOCUMENT_STATUSES, {
    description: 'DRAFT, or FINAL (immutable; numbers and stores the PDF).',
  }),
  source: Type.Enum(DOCUMENT_SOURCES, {
    description: 'GENERATED from a template, or UPLOADED.',
  }),
  dueDate: DocumentDate('Payment due date of an invoice'),
  currency: Type.Enum(CURRENCIES, { description: 'Default: the account currency.' }),
  lineItems: Type.Array(LineItemInput, { maxItems: 500, description: 'Invoice lines.' }),
  fields: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), {
    description: 'Values of the template’s extra fields, by key.',
  }),
  deliveryDate: DocumentDate(
    'Invoices: date of the supply or service (§14 (4) Nr. 6 UStG, BT-72); give it or servicePeriod before FINAL',
  ),
  servicePeriod: ServicePeriod,
  buyerReference: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Invoices: buyer reference (BT-10, e.g. a Leitweg-ID); default the partner’s.',
  }),
  orderReference: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Invoices: the buyer’s order number (BT-13).',
  }),
  paymentTerms: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'Invoices: payment terms text (BT-20); default from the due date.',
  }),
  skontoPercent: Type.Number({
    exclusiveMinimum: 0,
    maximum: 50,
    description:
      'Invoices: cash discount (Skonto) in percent, at most 2 decimals; needs skontoDays.',
  }),
  skontoDays: Type.Integer({
    minimum: 1,
    maximum: 365,
    description: 'Invoices: days from the invoice date within which the Skonto applies.',
  }),
  note: Type.String({
    minLength: 1,
    maxLength: 5000,
    description: 'Invoices: a note printed on the invoice and written as BT-22.',
  }),
};

const invoiceInputs = {
  deliveryDate: Type.Optional(common.deliveryDate),
  servicePeriod: Type.Optional(common.servicePeriod),
  buyerReference: Type.Optional(common.buyerReference),
  orderReference: Type.Optional(common.orderReference),
  paymentTerms: Type.Optional(common.paymentTerms),
  skontoPercent: Type.Optional(common.skontoPercent),
  skontoDays: Type.Optional(common.skontoDays),
  note: Type.Optional(common.note),
  validUntil: Type.Optional(
    DocumentDate('Quotes: the last day the quote can be accepted (gültig bis)'),
  ),
};

const nullableInvoiceInputs = {
  deliveryDate: Type.Optional(Nullable(common.deliveryDate, 'null clears it.')),
  servicePeriod: Type.Optional(Nullable(common.servicePeriod, 'null clears it.')),
  buyerReference: Type.Optional(Nullable(common.buyerReference, 'null clears it.')),
  orderReference: Type.Optional(Nullable(common.orderReference, 'null clears it.')),
  paymentTerms: Type.Optional(Nullable(common.paymentTerms, 'null clears it.')),
  skontoPercent: Type.Optional(Nullable(common.skontoPercent, 'null clears it.')),
  skontoDays: Type.Optional(Nullable(common.skontoDays, 'null clears it.')),
  note: Type.Optional(Nullable(common.note, 'null clears it.')),
  validUntil: Type.Optional(
    Nullable(
      DocumentDate('Quotes: the last day the quote can be accepted (gültig bis)'),
      'null clears it (the default applies when the quote becomes FINAL).',
    ),
  ),
};

export const CreateDocumentBody = Type.Object(
  {
    documentType: common.documentType,
    name: common.name,
    documentNumber: Type.Optional(common.documentNumber),
    contractId: Type.Optional(common.contractId),
    contractName: Type.Optional(common.contractName),
    partnerId: Type.Optional(common.partnerId),
    partnerName: Type.Optional(common.partnerName),
    templateId: Type.Optional(common.templateId),
    fileId: Type.Optional(common.fileId),
    fileType: Type.Optional(common.fileType),
    creationDate: common.creationDate,
    status: Type.Optional(common.status),
    source: Type.Optional(common.source),
    dueDate: Type.Optional(common.dueDate),
    currency: Type.Optional(common.currency),
    lineItems: Type.Optional(common.lineItems),
    fields: Type.Optional(common.fields),
    ...invoiceInputs,
  },
  { additionalProperties: false },
);
/** A new document as the route or another module asks for it (dunning runs make DUNNING). */
export type CreateDocument = Omit<Static<typeof CreateDocumentBody>, 'documentType'> & {
  documentType: DocumentType;
};

/** Partial update of a DRAFT: omitted fields stay, `null` clears an optional one. */
export const UpdateDocumentBody = Type.Object(
  {
    version: VersionField,
    documentType: Type.Optional(common.documentType),
    name: Type.Optional(common.name),
    documentNumber: Type.Optional(Nullable(common.documentNumber, 'null clears it.')),
    contractId: Type.Optional(Nullable(common.contractId, 'null unlinks the contract.')),
    contractName: Type.Optional(Nullable(common.contractName, 'null clears it.')),
    partnerId: Type.Optional(Nullable(common.partnerId, 'null unlinks the partner.')),
    partnerName: Type.Optional(Nullable(common.partnerName, 'null clears it.')),
    creationDate: Type.Optional(common.creationDate),
    status: Type.Optional(common.status),
    dueDate: Type.Optional(Nullable(common.dueDate, 'null clears it.')),
    currency: Type.Optional(common.currency),
    lineItems: Type.Optional(common.lineItems),
    fields: Type.Optional(common.fields),
    ...nullableInvoiceInputs,
  },
  { additionalProperties: false },
);
export type UpdateDocument = Static<typeof UpdateDocumentBody>;

export const DunningBlockBody = Type.Object(
  {
    blocked: Type.Boolean({ description: 'true blocks the invoice from dunning, false lifts it.' }),
    version: Type.Optional(VersionField),
  },
  { additionalProperties: false },
);

export const ListDocumentsQuery = Type.Object(
  {
    ...PageQuery,
    documentType: Type.Optional(Type.Enum(DOCUMENT_TYPES)),
    status: Type.Optional(Type.Enum(DOCUMENT_STATUSES)),
    source: Type.Optional(Type.Enum(DOCUMENT_SOURCES)),
    partnerId: Type.Optional(Type.String({ maxLength: 64 })),
    contractId: Type.Optional(Type.String({ maxLength: 64 })),
    from: Type.Optional(IsoDate('Only documents dated on or after this day')),
    to: Type.Optional(IsoDate('Only documents dated on or before this day')),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text in the name or number.' }),
    ),
    open: Type.Optional(
      Type.Boolean({
        description:
          'Only FINAL invoices (not credit notes): open items, neither paid nor cancelled (true; Offene Posten), or settled — paid or cancelled (false).',
      }),
    ),
    overdue: Type.Optional(
      Type.Boolean({
        description:
          'Only open FINAL invoices: past their due date today (true), or not yet due or without a due date (false).',
      }),
    ),
    paymentStatus: Type.Optional(
      Type.Array(Type.Enum(PAYMENT_STATUSES), {
        minItems: 1,
        maxItems: 3,
        uniqueItems: true,
        description:
          'Only invoices (credit notes included, drafts too unless `status` says otherwise) whose `paymentStatus` is one of these; repeat the parameter for several (`?paymentStatus=UNPAID&paymentStatus=PARTIAL`).',
      }),
    ),
    cancelled: Type.Optional(
      Type.Boolean({
        description:
          'Only FINAL invoices (not credit notes): cancelled in full by a Storno, i.e. `cancelledByDocumentId` set (true), or not cancelled (false).',
      }),
    ),
    quoteStatus: Type.Optional(
      Type.Enum(QUOTE_STATUSES, {
        description:
          'Only FINAL quotes with this `quoteStatus`. A quote past its `validUntil` counts as EXPIRED (not OPEN) here even before the expiry scan marks it, as for answers and conversions.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListDocuments = Static<typeof ListDocumentsQuery>;

const Email = Type.String({ format: 'email', maxLength: 254 });

export const SendDocumentBody = Type.Object(
  {
    to: Type.Optional(
      Type.Array(Email, {
        minItems: 1,
        maxItems: 10,
        description:
          'Recipients; default the partner’s BILLING address email. Any of the partner’s addresses may be named; at most 3 recipients (to and cc together) per send may be others (422 beyond). Sends per day are capped by the plan (429 `quota_exceeded`, see `GET /v1/usage`).',
      }),
    ),
    cc: Type.Optional(Type.Array(Email, { maxItems: 10, description: 'Copies.' })),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    message: Type.Optional(Type.String({ maxLength: 10_000, description: 'Mail text.' })),
  },
  { additionalProperties: false },
);
export type SendDocument = Static<typeof SendDocumentBody>;

export const RasterizeBody = Type.Object(
  {
    documentId: Type.Optional(Id('A document with a PDF (`doc_…`).')),
    fileId: Type.Optional(Id('A PDF file (`fil_…`).')),
    pages: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), {
        minItems: 1,
        maxItems: 50,
        description: 'Pages to render (1-based); default the first 10.',
      }),
    ),
    dpi: Type.Optional(
      Type.Integer({ minimum: 72, maximum: 300, description: 'Resolution, default 150.' }),
    ),
  },
  { additionalProperties: false, description: 'Exactly one of documentId and fileId.' },
);
export type Rasterize = Static<typeof RasterizeBody>;

export const RasterizedSchema = Type.Object(
  {
    sourceFileId: Type.String(),
    dpi: Type.Integer(),
    pages: Type.Array(
      Type.Object(
        {
          page: Type.Integer(),
          fileId: Type.String({ description: 'The PNG file.' }),
          width: Type.Integer({ description: 'Pixels.' }),
          height: Type.Integer({ description: 'Pixels.' }),
          size: Type.Integer({ description: 'Bytes.' }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type Rasterized = Static<typeof RasterizedSchema>;

export const CancelDocumentBody = Type.Object(
  {
    creationDate: Type.Optional(
      DocumentDate(
        'Date of the cancelling credit note, not before the invoice’s date nor more than one year after today; default today',
      ),
    ),
    note: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5000,
        description: 'Why the invoice is cancelled; printed on the credit note (BT-22).',
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Storno: a FINAL credit note (381) for the full amount of a FINAL invoice.',
  },
);
export type CancelDocument = Static<typeof CancelDocumentBody>;

export const CreditNoteBody = Type.Object(
  {
    lineItems: Type.Array(LineItemInput, {
      minItems: 1,
      maxItems: 500,
      description:
        'What is credited, as positive amounts (as on invoices); the credit note’s total may not exceed what the invoice still has uncredited.',
    }),
    creationDate: Type.Optional(
      DocumentDate(
        'Date of the credit note, not before the invoice’s date nor more than one year after today; default today',
      ),
    ),
    note: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 5000,
        description: 'Why; printed on the credit note (BT-22).',
      }),
    ),
  },
  { additionalProperties: false, description: 'A partial credit note for a FINAL invoice.' },
);
export type CreditNote = Static<typeof CreditNoteBody>;

export const EInvoiceQuery = Type.Object(
  {
    format: Type.Enum(EINVOICE_OUTPUT_FORMATS, {
      description:
        '`xrechnung-cii`: XRechnung 3.0 in UN/CEFACT CII D16B; `xrechnung-ubl`: XRechnung 3.0 in UBL 2.1 (Invoice or CreditNote); `zugferd`: the stored PDF/A-3 with the embedded `factur-x.xml` (ZUGFeRD 2.3 / Factur-X 1.07, profile EN 16931).',
    }),
  },
  { additionalProperties: false },
);

/** `POST /v1/documents/{documentId}/decision`: the seller records the customer's answer. */
export const QuoteDecisionBody = Type.Object(
  {
    decision: Type.Enum(['ACCEPTED', 'DECLINED'] as const, {
      description: 'ACCEPTED or DECLINED: the customer’s answer to an OPEN quote.',
    }),
    name: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'Who answered, e.g. the customer’s contact (default: the recording user or key).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type QuoteDecisionInput = Static<typeof QuoteDecisionBody>;

/** `POST /v1/documents/{documentId}/convert`: a new DRAFT from a quote or order confirmation. */
export const ConvertDocumentBody = Type.Object(
  {
    documentType: Type.Enum(CONVERSION_TARGETS, {
      description:
        'ORDER_CONFIRMATION (from a quote) or INVOICE (from a quote or an order confirmation).',
    }),
    linePositions: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1, maximum: 1000 }), {
        minItems: 1,
        maxItems: 1000,
        uniqueItems: true,
        description:
          'Partial conversion: the positions (1-based, the `Pos.` column printed, the order of `lineItems`) of the lines to copy; default all. A position the document does not have is 400 naming it.',
      }),
    ),
    creationDate: Type.Optional(DocumentDate('Date of the new document (default today)')),
    final: Type.Optional(
      Type.Boolean({
        description:
          'INVOICE only: make a final invoice (Schlussrechnung) that deducts the paid down payments of this quote or order confirmation. Default: true when the source (or the quote it came from) has a FINAL, not cancelled down-payment invoice, else false.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ConvertDocument = Static<typeof ConvertDocumentBody>;

/** `POST /v1/documents/{id}/down-payments`: a percentage or an amount of the order. */
export const CreateDownPaymentBody = Type.Object(
  {
    percent: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 100,
        multipleOf: 0.01,
        description:
          'Percent of the order (up to 2 decimals): each VAT rate’s net is scaled by it, rounded half-up to the cent. Give `percent` or `amount`.',
      }),
    ),
    amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        description:
          'Gross amount of the down payment in the order’s currency: split across its VAT rates in proportion to their gross amounts; each share’s net is the share divided by (1 + rate), rounded half-up to the cent, so the total may differ from the amount by a cent. At most the order’s gross total.',
      }),
    ),
    creationDate: Type.Optional(DocumentDate('Date of the down-payment invoice (default today)')),
  },
  { additionalProperties: false },
);
export type CreateDownPayment = Static<typeof CreateDownPaymentBody>;
