import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import {
  IsoDate,
  LineItemInput,
  Nullable,
  RecordMeta,
  TagsSchema,
  VersionField,
} from '../../http/schemas.js';
import { CURRENCIES } from '../../shared/money.js';
import { PARTNER_TYPES } from '../partners/index.js';

export const CONTRACT_STATUSES = ['DRAFT', 'ACTIVE'] as const;
export type ContractStatus = (typeof CONTRACT_STATUSES)[number];
export const BILLING_CYCLES = ['MONTHLY', 'QUARTERLY', 'YEARLY', 'ONE_TIME'] as const;

/** ContractAdvanced (decisions §7): renewal, notice and billing terms; every field optional. */
export const ContractAdvancedSchema = Type.Object(
  {
    billingCycle: Type.Optional(
      Type.Enum(BILLING_CYCLES, { description: 'How often the contract is billed.' }),
    ),
    autoRenew: Type.Optional(
      Type.Boolean({ description: 'Whether the contract renews by itself at the end of a term.' }),
    ),
    renewalMonths: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 120,
        description: 'Length of each renewal term in months, 1–120 (12 when autoRenew is set).',
      }),
    ),
    noticePeriodDays: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 3650,
        description: 'Days before the term end by which notice must be given, 0–3650.',
      }),
    ),
    reminderDaysBefore: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 365,
        description: 'Days before the cancellation deadline the reminder is mailed, 0–365.',
      }),
    ),
    reminderEmail: Type.Optional(
      Nullable(
        Type.String({ format: 'email', maxLength: 254 }),
        'Where this contract’s reminders go instead of the account’s reminderEmail; only accepted when the account sets allowContractReminderOverride (else 422).',
      ),
    ),
    paymentTermDays: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 365, description: 'Days until payment is due, 0–365.' }),
    ),
  },
  { additionalProperties: false, description: 'ContractAdvanced: renewal and billing terms.' },
);
export type ContractAdvanced = Static<typeof ContractAdvancedSchema>;

export const BILLING_INTERVALS = ['MONTHLY', 'QUARTERLY', 'HALF_YEARLY', 'YEARLY'] as const;
export type BillingInterval = (typeof BILLING_INTERVALS)[number];
export const BILLING_PERIODS = ['IN_ADVANCE', 'IN_ARREARS'] as const;
export const BILLING_PAYMENT_METHODS = ['TRANSFER', 'DIRECT_DEBIT'] as const;

/** The billing plan as written (POST/PUT): recurring invoices from this contract. */
export const ContractBillingInput = Type.Object(
  {
    interval: Type.Enum(BILLING_INTERVALS, { description: 'How often an invoice is made.' }),
    nextInvoiceDate: IsoDate(
      'Date of the next invoice; later invoices keep its day of the month (the 31st becomes the last day of shorter months)',
    ),
    endDate: Type.Optional(
      Nullable(
        IsoDate('No period starting after this day is billed; null: until the contract ends'),
        'No period starting after this day is billed (YYYY-MM-DD); null: until the contract ends.',
      ),
    ),
    lineItems: Type.Array(LineItemInput, {
      minItems: 1,
      maxItems: 100,
      description: 'The lines of every invoice, as on invoices (priced when the invoice is made).',
    }),
    period: Type.Optional(
      Type.Enum(BILLING_PERIODS, {
        description:
          'Which service period an invoice bills: IN_ADVANCE (default) the interval starting on its date, IN_ARREARS the interval ending the day before.',
      }),
    ),
    autoFinalize: Type.Optional(
      Type.Boolean({
        description:
          'Make each invoice FINAL (numbered, PDF) at once; default false (a DRAFT to review).',
      }),
    ),
    autoSend: Type.Optional(
      Type.Boolean({
        description:
          'Mail each FINAL invoice to the partner’s BILLING address; needs autoFinalize. Default false.',
      }),
    ),
    paused: Type.Optional(
      Type.Boolean({
        description:
          'Stop making invoices until set back to false; periods due meanwhile are billed on resume unless nextInvoiceDate is moved. Default false.',
      }),
    ),
    paymentMethod: Type.Optional(
      Type.Enum(BILLING_PAYMENT_METHODS, {
        description:
          'How the invoices are paid: TRANSFER (default, the customer transfers) or DIRECT_DEBIT (SEPA direct debit on the partner’s active mandate: each invoice carries the pre-notification, and a collection with `contractInvoices: true` collects it; docs/sepa.md).',
      }),
    ),
  },
  { additionalProperties: false, description: 'ContractBilling: the plan of recurring invoices.' },
);
export type ContractBillingWrite = Static<typeof ContractBillingInput>;

/** The billing plan as answered: defaults filled in. */
export const ContractBillingSchema = Type.Object(
  {
    interval: Type.Enum(BILLING_INTERVALS),
    nextInvoiceDate: Type.String({
      description:
        'Date of the next invoice (YYYY-MM-DD); moves on as invoices are made. Null once the plan ended.',
    }),
    endDate: Nullable(Type.String(), 'Last day a billed period may start (YYYY-MM-DD), or null.'),
    lineItems: Type.Array(LineItemInput),
    period: Type.Enum(BILLING_PERIODS),
    autoFinalize: Type.Boolean(),
    autoSend: Type.Boolean(),
    paused: Type.Boolean(),
    paymentMethod: Type.Enum(BILLING_PAYMENT_METHODS, {
      description: 'TRANSFER or DIRECT_DEBIT (SEPA direct debit on the partner’s mandate).',
    }),
    ended: Type.Boolean({
      description:
        'Read-only: true once no further period can be billed (past endDate, or the contract ended without renewal).',
    }),
  },
  { additionalProperties: false, description: 'ContractBilling: the plan of recurring invoices.' },
);
export type ContractBilling = Static<typeof ContractBillingSchema>;

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'Name of the contract.' }),
  partnerId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'The partner (`ptr_…`) of this account the contract is with; else 422.',
  }),
  partnerName: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Partner name; the server fills it from the partner, the value sent is ignored.',
  }),
  partnerType: Type.Enum(PARTNER_TYPES, {
    description: 'CUSTOMER or VENDOR; the server fills it from the partner.',
  }),
  startDate: IsoDate('First day of the contract'),
  endDate: IsoDate('Last day of the current term; on or after startDate'),
  totalValue: Type.Number({
    minimum: 0,
    description:
      'Total value in major units of `currency`, with no more decimals than the currency has.',
  }),
  currency: Type.Enum(CURRENCIES, { description: 'ISO 4217 currency code.' }),
  status: Type.Enum(CONTRACT_STATUSES, {
    description: 'DRAFT (default) or ACTIVE; DRAFT → ACTIVE only, never back.',
  }),
  description: Type.String({ maxLength: 10_000, description: 'Free text.' }),
};

export const ContractSchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    partnerId: Type.String({ description: 'The partner (`ptr_…`).' }),
    partnerName: Type.String({ description: 'The partner’s name, copied from the partner.' }),
    partnerType: fields.partnerType,
    startDate: Type.String({ description: 'First day of the contract (YYYY-MM-DD).' }),
    endDate: Nullable(Type.String(), 'Last day of the current term (YYYY-MM-DD), or null.'),
    totalValue: Type.Number({ description: 'Total value in major units of `currency`.' }),
    currency: Type.String({ description: 'ISO 4217 currency code.' }),
    status: fields.status,
    description: Nullable(Type.String(), 'Free text.'),
    tags: TagsSchema,
    advanced: Nullable(ContractAdvancedSchema, 'Renewal and billing terms, or null.'),
    billing: Nullable(ContractBillingSchema, 'The plan of recurring invoices, or null.'),
    cancellationDeadline: Nullable(
      Type.String(),
      'Read-only: last day to give notice for the current term (YYYY-MM-DD): the term end minus noticePeriodDays, as of today; null without endDate.',
    ),
    nextRenewalDate: Nullable(
      Type.String(),
      'Read-only: the end of the current term when autoRenew is set (endDate, rolled forward by renewalMonths until it is today or later); else null.',
    ),
  },
  { additionalProperties: false, description: 'A contract with a partner.' },
);
export type Contract = Static<typeof ContractSchema>;

export const CreateContractBody = Type.Object(
  {
    name: fields.name,
    partnerId: fields.partnerId,
    partnerName: fields.partnerName,
    partnerType: Type.Optional(fields.partnerType),
    startDate: fields.startDate,
    endDate: Type.Optional(fields.endDate),
    totalValue: fields.totalValue,
    currency: fields.currency,
    status: Type.Optional(fields.status),
    description: Type.Optional(fields.description),
    tags: Type.Optional(TagsSchema),
    advanced: Type.Optional(ContractAdvancedSchema),
    billing: Type.Optional(ContractBillingInput),
  },
  { additionalProperties: false },
);
export type CreateContract = Static<typeof CreateContractBody>;

/** Partial update: omitted fields stay, `null` clears an optional one (decisions §6). */
export const UpdateContractBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    partnerId: Type.Optional(fields.partnerId),
    partnerName: Type.Optional(fields.partnerName),
    partnerType: Type.Optional(fields.partnerType),
    startDate: Type.Optional(fields.startDate),
    endDate: Type.Optional(Nullable(fields.endDate, 'Last day of the term; null clears it.')),
    totalValue: Type.Optional(fields.totalValue),
    currency: Type.Optional(fields.currency),
    status: Type.Optional(fields.status),
    description: Type.Optional(Nullable(fields.description, 'Free text; null clears it.')),
    tags: Type.Optional(Nullable(TagsSchema, 'Tags; null clears them.')),
    advanced: Type.Optional(
      Nullable(ContractAdvancedSchema, 'Replaces the whole ContractAdvanced; null clears it.'),
    ),
    billing: Type.Optional(
      Nullable(ContractBillingInput, 'Replaces the whole billing plan; null removes it.'),
    ),
  },
  { additionalProperties: false },
);
export type UpdateContract = Static<typeof UpdateContractBody>;

export const ListContractsQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(
      Type.Enum(CONTRACT_STATUSES, { description: 'Only contracts in this status.' }),
    ),
    partnerId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Only contracts with this partner.',
      }),
    ),
    tag: Type.Optional(
      Type.String({ minLength: 1, maxLength: 50, description: 'Only contracts with this tag.' }),
    ),
    activeOn: Type.Optional(
      IsoDate(
        'Only contracts running on this day: startDate on or before it and endDate null or on or after it',
      ),
    ),
    deadlineBefore: Type.Optional(
      IsoDate(
        'Only contracts whose cancellationDeadline, as computed at their last write, is before this day',
      ),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Case- and accent-insensitive search in the name.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ListContracts = Static<typeof ListContractsQuery>;
