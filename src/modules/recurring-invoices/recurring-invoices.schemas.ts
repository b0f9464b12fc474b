import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable } from '../../http/schemas.js';

const ServicePeriod = Type.Object(
  {
    from: Type.String({ description: 'First day of the billed period (YYYY-MM-DD).' }),
    to: Type.String({ description: 'Last day of the billed period (YYYY-MM-DD).' }),
  },
  { additionalProperties: false },
);

export const BillingRunBody = Type.Object(
  {
    until: Type.Optional(
      IsoDate(
        'Bill every period whose invoice date is on or before this day; default today. Later than today only with dryRun',
      ),
    ),
    dryRun: Type.Optional(
      Type.Boolean({
        description:
          'Only list the invoices the run would make; nothing is written. Default false.',
      }),
    ),
    contractId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Only this contract.' }),
    ),
  },
  { additionalProperties: false },
);
export type BillingRun = Static<typeof BillingRunBody>;

export const RUN_INVOICE_STATUSES = ['PROPOSED', 'DRAFT', 'FINAL'] as const;

const RunInvoice = Type.Object(
  {
    contractId: Type.String(),
    contractName: Type.String(),
    partnerId: Type.String(),
    invoiceDate: Type.String({ description: 'The invoice’s date (YYYY-MM-DD).' }),
    servicePeriod: ServicePeriod,
    status: Type.Enum(RUN_INVOICE_STATUSES, {
      description:
        'PROPOSED (dry run: not made), or the status of the invoice made: DRAFT or FINAL.',
    }),
    documentId: Nullable(Type.String(), 'The invoice made, or null in a dry run.'),
    sendQueued: Type.Boolean({ description: 'Whether the invoice will be mailed (autoSend).' }),
  },
  { additionalProperties: false },
);

const RunProblem = Type.Object(
  {
    contractId: Type.String(),
    invoiceDate: Type.String({
      description: 'The invoice date that could not be billed as planned.',
    }),
    code: Type.String({ description: 'The problem code (as in RFC 9457 answers).' }),
    detail: Type.String(),
    outcome: Type.Enum(['DRAFT_MADE', 'NOT_BILLED'] as const, {
      description:
        'DRAFT_MADE: the invoice could not be made FINAL and was made as a DRAFT to fix and finalize; NOT_BILLED: the period stays due for the next run.',
    }),
  },
  { additionalProperties: false },
);

export const BillingRunResultSchema = Type.Object(
  {
    dryRun: Type.Boolean(),
    until: Type.String({ description: 'The day the run billed up to (YYYY-MM-DD).' }),
    invoices: Type.Array(RunInvoice, {
      description: 'Invoices made (or proposed), in the order they were made.',
    }),
    problems: Type.Array(RunProblem, {
      description: 'Periods that could not be billed as planned.',
    }),
  },
  { additionalProperties: false, description: 'What a billing run made or would make.' },
);
export type BillingRunResult = Static<typeof BillingRunResultSchema>;
export type RunInvoiceView = Static<typeof RunInvoice>;
export type RunProblemView = Static<typeof RunProblem>;

export const ContractInvoiceSchema = Type.Object(
  {
    documentId: Type.String({ description: 'The invoice (`doc_…`).' }),
    documentNumber: Nullable(Type.String(), 'Its number once FINAL, else null.'),
    status: Type.String({ description: 'DRAFT or FINAL.' }),
    invoiceDate: Type.String({ description: 'The invoice’s date (YYYY-MM-DD).' }),
    servicePeriod: ServicePeriod,
    grossTotal: Type.Number({ description: 'Gross total in major units of `currency`.' }),
    currency: Type.String(),
    createdAt: Type.String({ description: 'When the run made it (RFC 3339 UTC).' }),
  },
  { additionalProperties: false, description: 'An invoice made from a contract’s billing plan.' },
);
export type ContractInvoice = Static<typeof ContractInvoiceSchema>;

export const ListContractInvoicesQuery = Type.Object(
  { ...PageQuery },
  { additionalProperties: false },
);
export type ListContractInvoices = Static<typeof ListContractInvoicesQuery>;
