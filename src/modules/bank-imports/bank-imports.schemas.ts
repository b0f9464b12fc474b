import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable, RecordMeta, VersionField } from '../../http/schemas.js';

export const IMPORT_STATUSES = ['ACTIVE', 'FINALIZED', 'DISCARDED'] as const;
export const DECISIONS = ['ACCEPTED', 'REJECTED'] as const;
export const SUGGESTION_TYPES = [
  'PARTNER',
  'PAYMENT',
  'INVOICE',
  'BUDGET_CATEGORY',
  'SEPA_RETURN',
  'SEPA_BATCH',
] as const;
/** Machine-readable kinds of evidence behind a suggestion. */
export const SUGGESTION_CODES = ['end_to_end_id', 'sepa_return', 'sepa_batch'] as const;
export type Decision = (typeof DECISIONS)[number];
export type SuggestionType = (typeof SUGGESTION_TYPES)[number];

/** How many transactions an import answer carries before it pages them. */
export const INLINE_TRANSACTIONS = 1000;

export const SuggestionSchema = Type.Object(
  {
    type: Type.Enum(SUGGESTION_TYPES, {
      description:
        'PARTNER, PAYMENT (an open payment the line confirms), INVOICE, BUDGET_CATEGORY, SEPA_RETURN (the line returns the SEPA collection or transfer whose payment `id` names: finalize marks that payment RETURNED and reopens its invoice), or SEPA_BATCH (the line books a whole SEPA run or one `PmtInf` block of its file, `label` its `PmtInfId` or `MsgId`: finalize confirms the payment of every item; scored below 70 with the reason when amount or items do not agree).',
    }),
    id: Type.String({
      description:
        'The suggested partner, payment, invoice or category; for SEPA_RETURN the payment, for SEPA_BATCH the SEPA run.',
    }),
    label: Type.String({ description: 'Its name or number.' }),
    score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'Confidence 0–100; finalize uses suggestions scoring 70 or more.',
    }),
    reasons: Type.Array(Type.String(), { description: 'Why it was suggested.' }),
    code: Type.Optional(
      Type.Enum(SUGGESTION_CODES, {
        description:
          'The strongest evidence, when it is a SEPA reference: `end_to_end_id` (the line’s EndToEndId is that of a SEPA run item, so it books that item’s payment), `sepa_return` (the line is a return of that item) or `sepa_batch` (the line is a batch booking naming a run’s `PmtInfId` or `MsgId`, or listing its items’ EndToEndIds).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type Suggestion = Static<typeof SuggestionSchema>;

export const ImportTransactionSchema = Type.Object(
  {
    index: Type.Integer({
      description: 'Position in the import; the `{index}` of the PATCH path.',
    }),
    statementIndex: Type.Integer(),
    bookingDate: Type.String(),
    valueDate: Nullable(Type.String(), 'Value date, when the file states one.'),
    amount: Type.Number({ description: 'Signed: credits positive, debits negative.' }),
    currency: Type.String(),
    direction: Type.Enum(['INCOMING', 'OUTGOING'] as const),
    counterpartyName: Nullable(Type.String(), 'Payer or payee.'),
    counterpartyIban: Nullable(Type.String(), 'Their IBAN.'),
    counterpartyBic: Nullable(Type.String(), 'Their BIC.'),
    purpose: Type.String({ description: 'Remittance information.' }),
    endToEndId: Nullable(Type.String(), 'SEPA end-to-end reference.'),
    mandateReference: Nullable(Type.String(), 'SEPA mandate reference.'),
    bankReference: Nullable(Type.String(), 'The bank’s reference of the entry.'),
    bookingText: Nullable(Type.String(), 'Booking text of the bank.'),
    reversal: Type.Boolean(),
    returned: Type.Boolean({
      description:
        'A returned payment (R-transaction): camt `RtrInf`, or an MT940 return GVC (108, 109, 159) or `/RTRN/`.',
    }),
    returnReason: Nullable(
      Type.String(),
      'The ISO return reason code of a returned payment (AC04, MD06, …); null when none is named or the line is no return.',
    ),
    decision: Nullable(Type.Enum(DECISIONS), 'null until decided.'),
    duplicateOf: Nullable(
      Type.Object(
        {
          importId: Type.String(),
          index: Type.Integer(),
          paymentId: Nullable(Type.String(), 'The payment it was booked as.'),
        },
        { additionalProperties: false },
      ),
      'The already imported line this one repeats.',
    ),
    suggestions: Type.Array(SuggestionSchema, { description: 'Best first.' }),
  },
  { additionalProperties: false },
);
export type ImportTransaction = Static<typeof ImportTransactionSchema>;

const StatementSummary = Type.Object(
  {
    index: Type.Integer(),
    statementId: Nullable(Type.String(), 'Statement number.'),
    account: Nullable(Type.String(), 'IBAN or account of the statement.'),
    currency: Type.String(),
    openingBalance: Nullable(Type.Number(), 'As stated in the file.'),
    openingDate: Nullable(Type.String(), 'Date of the opening balance.'),
    closingBalance: Nullable(Type.Number(), 'As stated in the file.'),
    closingDate: Nullable(Type.String(), 'Date of the closing balance.'),
    entries: Type.Integer({ description: 'Entries in the file (before the period filter).' }),
    balanceOk: Nullable(
      Type.Boolean(),
      'Whether opening + entries = closing; null when the file states no balances.',
    ),
  },
  { additionalProperties: false },
);

const Problem = Type.Object(
  {
    statement: Type.Optional(Type.Integer()),
    line: Type.Optional(Type.Integer()),
    entry: Type.Optional(Type.Integer()),
    message: Type.String(),
  },
  { additionalProperties: false },
);

export const ImportSchema = Type.Object(
  {
    ...RecordMeta,
    status: Type.Enum(IMPORT_STATUSES),
    fileId: Type.String(),
    fileName: Type.String(),
    format: Type.String({ description: 'MT940, CAMT053, CAMT052, CAMT054 or CSV.' }),
    periodFrom: Type.String(),
    periodTo: Type.String(),
    autoApprove: Type.Boolean(),
    statements: Type.Array(StatementSummary),
    balanceOk: Nullable(
      Type.Boolean(),
      'false when any statement breaks opening + entries = closing; null without balances.',
    ),
    problems: Type.Array(Problem, { description: 'Lines the parser could not read.' }),
    transactionCount: Type.Integer(),
    undecidedCount: Type.Integer(),
    acceptedCount: Type.Integer(),
    rejectedCount: Type.Integer(),
    duplicateCount: Type.Integer(),
    outsidePeriodCount: Type.Integer({
      description: 'Entries of the file outside periodFrom..periodTo, left out.',
    }),
    transactions: Type.Array(ImportTransactionSchema, {
      description: `The transactions by index; at most ${INLINE_TRANSACTIONS}, the rest through GET …/transactions.`,
    }),
    transactionsNextCursor: Nullable(
      Type.String(),
      'Cursor for GET …/{importId}/transactions when not all transactions are inline.',
    ),
    finalizedAt: Nullable(Type.String(), 'When it was booked.'),
    result: Nullable(
      Type.Object(
        {
          paymentsCreated: Type.Integer(),
          paymentsMarked: Type.Integer(),
          budgetEntries: Type.Integer(),
        },
        { additionalProperties: false },
      ),
      'What finalize booked.',
    ),
  },
  { additionalProperties: false, description: 'A bank statement import under review.' },
);
export type ImportView = Static<typeof ImportSchema>;

export const CreateImportBody = Type.Object(
  {
    fileId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The statement file, uploaded through POST /v1/files/upload-url.',
    }),
    key: Type.String({
      minLength: 1,
      maxLength: 300,
      description: 'The `key` upload-url answered for that file; must match it.',
    }),
    fileName: Type.Optional(
      Type.String({ maxLength: 200, description: 'Shown name; default the file’s name.' }),
    ),
    periodFrom: IsoDate('First booking day to import'),
    periodTo: IsoDate('Last booking day to import, on or after periodFrom'),
    autoApprove: Type.Optional(
      Type.Boolean({
        description:
          'Accept every non-duplicate transaction at once (duplicates are rejected); default false.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateImport = Static<typeof CreateImportBody>;

export const DecisionBody = Type.Object(
  {
    version: VersionField,
    decision: Type.Enum(DECISIONS, { description: 'ACCEPTED books the line at finalize.' }),
  },
  { additionalProperties: false },
);
export type DecisionInput = Static<typeof DecisionBody>;

export const FinalizeBody = Type.Object({ version: VersionField }, { additionalProperties: false });

export const ImportParams = Type.Object(
  { importId: Type.String({ minLength: 1, maxLength: 64, description: 'Import id (`imp_…`).' }) },
  { additionalProperties: false },
);

export const TransactionParams = Type.Object(
  {
    importId: Type.String({ minLength: 1, maxLength: 64 }),
    index: Type.Integer({ minimum: 0, description: 'Index of the transaction.' }),
  },
  { additionalProperties: false },
);

export const ListTransactionsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
    cursor: PageQuery.cursor,
    decision: Type.Optional(
      Type.Enum(['ACCEPTED', 'REJECTED', 'UNDECIDED'] as const, {
        description: 'Only transactions with this decision.',
      }),
    ),
    duplicate: Type.Optional(Type.Boolean({ description: 'Only duplicates (true) or others.' })),
  },
  { additionalProperties: false },
);
export type ListTransactions = Static<typeof ListTransactionsQuery>;
