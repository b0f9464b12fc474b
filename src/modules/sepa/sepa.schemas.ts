import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable, RecordMeta, Timestamp, VersionField } from '../../http/schemas.js';

/** Which sequence type a mandate's next collection uses (docs/sepa.md, "Mandates"). */
export const SEQUENCE_STATES = ['FIRST', 'RECURRING', 'FINAL', 'ONE_OFF', 'COMPLETED'] as const;
export type SequenceState = (typeof SEQUENCE_STATES)[number];
/** What a client may set: COMPLETED is the server's, after a final or one-off collection. */
const WRITABLE_STATES = ['FIRST', 'RECURRING', 'FINAL', 'ONE_OFF'] as const;

/** The SEPA direct-debit scheme of a mandate: CORE (Basis) or B2B (Firmen). */
export const SCHEMES = ['CORE', 'B2B'] as const;
export type Scheme = (typeof SCHEMES)[number];
const SchemeField = Type.Enum(SCHEMES, {
  description:
    'SEPA direct-debit scheme: CORE (Basislastschrift, default) or B2B (Firmenlastschrift, businesses only, a separate mandate the debtor confirms to its bank). Collections take one scheme per file.',
});

const SEPA_TEXT = "^[A-Za-z0-9+?/:().,' -]+$";

const Iban = Type.String({
  minLength: 15,
  maxLength: 42,
  description:
    'IBAN, with or without spaces; checked (country, length, mod 97), stored encrypted and answered masked.',
});
const Bic = Type.String({
  pattern: '^[A-Za-z]{6}[A-Za-z0-9]{2}([A-Za-z0-9]{3})?$',
  description: 'BIC (8 or 11 characters), stored upper-case.',
});

const mandateFields = {
  reference: Type.String({
    minLength: 1,
    maxLength: 35,
    pattern: SEPA_TEXT,
    description:
      'Mandate reference (Mandatsreferenz), up to 35 characters of the SEPA character set; unique in the account (409 duplicate).',
  }),
  signedOn: IsoDate('The day the debtor signed the mandate (Datum der Unterschrift)'),
  iban: Iban,
  bic: Nullable(Bic, 'BIC of the debtor’s bank; null: none (IBAN-only).'),
  debtorName: Type.String({
    minLength: 1,
    maxLength: 140,
    description: 'Name of the account holder (Kontoinhaber) who signed the mandate.',
  }),
  sequenceState: Type.Enum(WRITABLE_STATES, {
    description:
      'Which sequence type the next collection uses: FIRST → FRST, RECURRING → RCUR, FINAL → FNAL (the last collection), ONE_OFF → OOFF. Default FIRST; the first collection moves FIRST to RECURRING.',
  }),
  scheme: SchemeField,
};

export const CreateMandateBody = Type.Object(
  {
    reference: mandateFields.reference,
    signedOn: mandateFields.signedOn,
    iban: mandateFields.iban,
    bic: Type.Optional(mandateFields.bic),
    debtorName: mandateFields.debtorName,
    sequenceState: Type.Optional(mandateFields.sequenceState),
    scheme: Type.Optional(mandateFields.scheme),
  },
  { additionalProperties: false },
);
export type CreateMandate = Static<typeof CreateMandateBody>;

export const UpdateMandateBody = Type.Object(
  {
    version: VersionField,
    reference: Type.Optional(mandateFields.reference),
    signedOn: Type.Optional(mandateFields.signedOn),
    iban: Type.Optional(mandateFields.iban),
    bic: Type.Optional(mandateFields.bic),
    debtorName: Type.Optional(mandateFields.debtorName),
    sequenceState: Type.Optional(mandateFields.sequenceState),
    scheme: Type.Optional(
      Type.Enum(SCHEMES, {
        description:
          'CORE or B2B; changes only while the mandate was never collected on (else 409): a mandate of the other scheme is a new mandate.',
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      'Changes what it names. A new reference or debtor IBAN of a mandate collected on before is an amendment: the next collection carries it (AmdmntInd, the original reference, the original IBAN or SMNDA when the debtor changed banks).',
  },
);
export type UpdateMandate = Static<typeof UpdateMandateBody>;

export const RevokeMandateBody = Type.Object(
  { version: VersionField },
  { additionalProperties: false },
);

export const MandateSchema = Type.Object(
  {
    ...RecordMeta,
    partnerId: Type.String({ description: 'The partner (debtor) the mandate belongs to.' }),
    reference: Type.String({ description: 'Mandate reference (Mandatsreferenz).' }),
    signedOn: Type.String({ description: 'The day the mandate was signed (YYYY-MM-DD).' }),
    iban: Type.String({
      description: 'The debtor’s IBAN, masked: country, check digits and the last four only.',
    }),
    bic: Nullable(Type.String(), 'BIC of the debtor’s bank; null: none.'),
    debtorName: Type.String({ description: 'Name of the account holder.' }),
    scheme: SchemeField,
    amendmentPending: Type.Boolean({
      description:
        'true: the reference or IBAN changed since the last collection; the next collection carries the amendment (AmdmntInd) and clears it.',
    }),
    sequenceState: Type.Enum(SEQUENCE_STATES, {
      description:
        'Which sequence type the next collection uses (FIRST → FRST, RECURRING → RCUR, FINAL → FNAL, ONE_OFF → OOFF); COMPLETED after a final or one-off collection: no further collection.',
    }),
    nextSequenceType: Nullable(
      Type.Enum(['FRST', 'RCUR', 'FNAL', 'OOFF']),
      'The SeqTp of the next collection; null when revoked or completed.',
    ),
    active: Type.Boolean({
      description: 'Whether the mandate can be collected on (not revoked, not completed).',
    }),
    revokedAt: Nullable(Timestamp('When it was revoked (RFC 3339 UTC).'), 'Null: not revoked.'),
    lastCollectionDate: Nullable(
      Type.String({ description: 'YYYY-MM-DD' }),
      'The collection date of the last collection on this mandate; null: never collected.',
    ),
  },
  { additionalProperties: false, description: 'A SEPA direct-debit mandate (CORE or B2B).' },
);
export type Mandate = Static<typeof MandateSchema>;

export const ListMandatesQuery = Type.Object(
  {
    ...PageQuery,
    active: Type.Optional(
      Type.Boolean({
        description: 'true: only active mandates; false: only revoked or completed.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListMandates = Static<typeof ListMandatesQuery>;

export const PutBankAccountBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      description: 'The version you read (1 before anything was set); a stale one answers 409.',
    }),
    holderName: Type.String({
      minLength: 1,
      maxLength: 140,
      description: 'Account holder (Kontoinhaber), the payee name of transfers.',
    }),
    iban: Iban,
    bic: Type.Optional(Nullable(Bic, 'BIC; null or omitted: none (IBAN-only).')),
  },
  { additionalProperties: false },
);
export type PutBankAccount = Static<typeof PutBankAccountBody>;

export const PartnerBankAccountSchema = Type.Object(
  {
    partnerId: Type.String({ description: 'The partner (supplier).' }),
    holderName: Nullable(Type.String(), 'Account holder; null: nothing set.'),
    iban: Nullable(Type.String(), 'The IBAN, masked; null: nothing set.'),
    bic: Nullable(Type.String(), 'BIC; null: none.'),
    version: Type.Integer({
      minimum: 1,
      description: 'Optimistic-locking version (1 before anything was set).',
    }),
    updatedAt: Nullable(Timestamp('When it was last set.'), 'Null: never set.'),
  },
  {
    additionalProperties: false,
    description: 'A partner’s bank account for SEPA transfers, answered masked.',
  },
);
export type PartnerBankAccount = Static<typeof PartnerBankAccountSchema>;

export const SepaSettingsSchema = Type.Object(
  {
    preNotificationDays: Type.Integer({
      minimum: 1,
      maximum: 60,
      description:
        'Calendar days between the pre-notification (the invoice) and the collection date (Vorabankündigung); default 14. The collection date is never earlier than one TARGET2 business day ahead.',
    }),
    autoCollect: Type.Boolean({
      description:
        'true: once a day the server collects the open invoices of direct-debit contracts not collected yet, as POST /v1/sepa/collections {contractInvoices: true} does (a run per scheme); default false.',
    }),
    version: Type.Integer({ minimum: 1, description: 'Optimistic-locking version.' }),
  },
  { additionalProperties: false, description: 'The account’s SEPA settings.' },
);
export type SepaSettings = Static<typeof SepaSettingsSchema>;

export const PutSepaSettingsBody = Type.Object(
  {
    version: VersionField,
    preNotificationDays: SepaSettingsSchema.properties.preNotificationDays,
    autoCollect: Type.Optional(
      Type.Boolean({
        description: 'Automatic daily collection (see the settings); omitted: unchanged.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutSepaSettings = Static<typeof PutSepaSettingsBody>;

const InvoiceIds = Type.Array(
  Type.String({ minLength: 1, maxLength: 64, description: 'An invoice (`doc_…`).' }),
  { minItems: 1, maxItems: 500, uniqueItems: true, description: 'The invoices to pay or collect.' },
);

export const CreateCollectionBody = Type.Object(
  {
    invoiceIds: Type.Optional(InvoiceIds),
    contractInvoices: Type.Optional(
      Type.Boolean({
        description:
          'true: also take every open FINAL invoice of a contract whose billing plan says paymentMethod DIRECT_DEBIT that has not been collected yet, each on its pre-notified date.',
      }),
    ),
    scheme: Type.Optional(
      Type.Enum(SCHEMES, {
        description:
          'The scheme of the file (default CORE): only invoices whose partner’s mandate is of this scheme are collected; the others are refused with other_scheme (German banks take CORE and B2B as separate orders).',
      }),
    ),
    collectionDate: Type.Optional(
      IsoDate(
        'Requested collection date; default: the earliest allowed. An earlier date than allowed answers 422',
      ),
    ),
    dryRun: Type.Optional(
      Type.Boolean({
        description: 'true: answer what would be collected and refused; write nothing.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateCollection = Static<typeof CreateCollectionBody>;

export const CreateTransferBody = Type.Object(
  {
    invoiceIds: InvoiceIds,
    executionDate: Type.Optional(
      IsoDate('Requested execution date; default: the next business day (or the Skonto deadline)'),
    ),
    useSkonto: Type.Optional(
      Type.Boolean({
        description:
          'true: pay the Skonto amount of invoices whose Skonto deadline has not passed, executed on or before that deadline.',
      }),
    ),
    dryRun: Type.Optional(
      Type.Boolean({ description: 'true: answer what would be paid and refused; write nothing.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateTransfer = Static<typeof CreateTransferBody>;

export const REFUSAL_REASONS = [
  'not_found',
  'not_final',
  'not_open',
  'not_eur',
  'not_an_invoice',
  'no_partner',
  'no_mandate',
  'mandate_revoked',
  'mandate_completed',
  'already_in_run',
  'no_creditor_id',
  'no_bank_account',
  'not_a_supplier_invoice',
  'not_direct_debit',
  'date_too_early',
  'other_scheme',
] as const;

const RunItemSchema = Type.Object(
  {
    invoiceId: Type.String({ description: 'The invoice (`doc_…`).' }),
    documentNumber: Nullable(Type.String(), 'The invoice’s number.'),
    partnerId: Nullable(Type.String(), 'Its partner.'),
    mandateId: Nullable(
      Type.String(),
      'The mandate collected on (collections); null for transfers.',
    ),
    mandateReference: Nullable(Type.String(), 'The mandate reference (collections).'),
    endToEndId: Type.String({
      description: 'EndToEndId written to the file; a bank statement line names it.',
    }),
    amount: Type.Number({ description: 'Amount collected or paid, major units.' }),
    sequenceType: Nullable(
      Type.Enum(['FRST', 'RCUR', 'FNAL', 'OOFF']),
      'SeqTp of a collection; null for transfers.',
    ),
    executionDate: Type.String({ description: 'Collection or execution date (YYYY-MM-DD).' }),
    iban: Type.String({ description: 'The debtor’s or payee’s IBAN, masked.' }),
    skonto: Type.Boolean({ description: 'Transfers: the Skonto amount is paid.' }),
    paymentId: Nullable(
      Type.String(),
      'The PENDING payment recorded for it; null in a dry run. A bank statement line confirms it.',
    ),
  },
  { additionalProperties: false },
);

const RefusalSchema = Type.Object(
  {
    invoiceId: Type.String({ description: 'The invoice refused.' }),
    reason: Type.Enum(REFUSAL_REASONS, { description: 'Why it is refused.' }),
    message: Type.String({ description: 'The reason in words.' }),
  },
  { additionalProperties: false },
);
export type Refusal = Static<typeof RefusalSchema>;

export const SepaRunSchema = Type.Object(
  {
    id: Nullable(Type.String(), 'The run (`sep_…`); null in a dry run.'),
    kind: Type.Enum(['COLLECTION', 'TRANSFER'], {
      description: 'COLLECTION (pain.008 direct debits) or TRANSFER (pain.001 credit transfers).',
    }),
    dryRun: Type.Boolean({ description: 'true: nothing was written.' }),
    scheme: Nullable(
      Type.Enum(SCHEMES),
      'The local instrument of a collection’s file (CORE or B2B); null for transfers.',
    ),
    messageId: Nullable(Type.String(), 'MsgId of the file; null in a dry run.'),
    currency: Type.String({ description: 'Always EUR.' }),
    total: Type.Number({ description: 'Sum of the items, major units.' }),
    items: Type.Array(RunItemSchema, { description: 'One per invoice collected or paid.' }),
    refused: Type.Array(RefusalSchema, { description: 'The invoices left out, with the reason.' }),
    createdAt: Nullable(Timestamp('When the run was created.'), 'Null in a dry run.'),
  },
  { additionalProperties: false, description: 'A SEPA collection or transfer run.' },
);
export type SepaRun = Static<typeof SepaRunSchema>;
export type RunItem = Static<typeof RunItemSchema>;

export const ListRunsQuery = Type.Object({ ...PageQuery }, { additionalProperties: false });
