import { Type, type Static } from 'typebox';
import { IsoDate, Nullable, Timestamp } from '../../http/schemas.js';
import { NOTE_PARENT_TYPES } from '../notes/index.js';
import { INTERVALS } from './buckets.js';

/** The largest opening balance in major units; keeps minor units of every currency safe. */
export const MAX_BALANCE = 1_000_000_000_000;

/** How many items the stats answer lists per kind (reminders, deadlines). */
export const NEXT_ITEMS = 5;
/** Days ahead the stats look for reminders and for cancellation deadlines. */
export const REMINDER_WINDOW_DAYS = 30;
export const DEADLINE_WINDOW_DAYS = 60;
/** The most budget categories the stats list (by name); `truncated` says when there are more. */
export const MAX_BUDGET_CATEGORIES = 100;
/**
 * Dates the dashboard accepts (anchor date, series bounds): four-digit years, far from the
 * ends of the `YYYY-MM-DD` range, where calendar arithmetic would leave it.
 */
export const MIN_DATE = '1900-01-01';
export const MAX_DATE = '2999-12-31';
/** The longest time series: 10 years (at most 3 653 daily buckets). */
export const MAX_RANGE_MONTHS = 120;

const money = (description: string) => Type.Number({ description });

export const CashAnchorSchema = Type.Object(
  {
    openingBalance: money(
      'The bank balance at the end of `effectiveDate`, in major units of `currency` (negative: overdrawn).',
    ),
    currency: Type.String({
      description:
        'The account currency when the anchor was set (ISO 4217). Balances are only computed while it is still the account currency.',
    }),
    effectiveDate: Type.String({
      description:
        'The day the balance was read (YYYY-MM-DD). Payments dated on or before it are inside the balance.',
    }),
    version: Type.Integer({
      minimum: 1,
      description: 'Optimistic-locking version; 1 when first set, +1 per PUT.',
    }),
    createdAt: Timestamp('When the anchor was first set (RFC 3339 UTC).'),
    updatedAt: Timestamp('When the anchor was last set (RFC 3339 UTC).'),
  },
  {
    additionalProperties: false,
    description: 'The cash anchor: a known bank balance on a day, the base of every balance.',
  },
);
export type CashAnchor = Static<typeof CashAnchorSchema>;

export const PutCashAnchorBody = Type.Object(
  {
    openingBalance: Type.Number({
      minimum: -MAX_BALANCE,
      maximum: MAX_BALANCE,
      description:
        'The bank balance at the end of `effectiveDate` in major units of the account currency, with no more decimals than it has; negative when overdrawn.',
    }),
    effectiveDate: IsoDate(
      'The day of that balance, from 1900-01-01, not after tomorrow (UTC); payments dated on or before it are taken as already inside the balance',
    ),
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'Optional: the version you read. When given (or `If-Match`), a stale version answers 409 version_conflict and changes nothing; without it the PUT replaces the anchor unconditionally.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutCashAnchor = Static<typeof PutCashAnchorBody>;

const Flow = Type.Object(
  {
    month: Type.String({ description: 'The calendar month (YYYY-MM).' }),
    income: money('Settled (MARKED) INCOMING payments dated in the month, major units.'),
    expense: money('Settled (MARKED) OUTGOING payments dated in the month, major units.'),
    net: money('`income − expense`.'),
  },
  { additionalProperties: false },
);

const Pending = (what: string, description: string) =>
  Type.Object(
    {
      amount: money(`Sum of PENDING ${what} payments, major units.`),
      count: Type.Integer({ description: `How many PENDING ${what} payments.` }),
    },
    { additionalProperties: false, description },
  );

/** Open invoices of one kind: what is left of them and how many. */
const OpenInvoices = (which: string, description: string) =>
  Type.Object(
    {
      amount: money(
        `What is still open on ${which}, major units of the account currency: each one's gross total less its settled (MARKED) payments and its FINAL credit notes.`,
      ),
      count: Type.Integer({ description: `How many ${which} have something open.` }),
    },
    { additionalProperties: false, description },
  );

const ISSUED = 'the FINAL invoices this account issued (GENERATED), neither paid nor cancelled';
const RECEIVED =
  'the FINAL invoices this account received (UPLOADED: suppliers’ bills), neither paid nor cancelled';

const BudgetUse = Type.Object(
  {
    categoryId: Type.String({ description: 'The budget category (`bgc_…`).' }),
    name: Type.String({ description: 'Name of the category.' }),
    currency: Type.String({ description: 'Currency of the category (ISO 4217).' }),
    limit: money('Monthly limit, major units of the category currency.'),
    spent: money('Entries dated in the current month (refunds subtract), major units.'),
    remaining: money('`limit − spent`; negative when overrun.'),
    overLimit: Type.Boolean({ description: 'Whether `spent` exceeds `limit`.' }),
  },
  { additionalProperties: false },
);

const ReminderItem = Type.Object(
  {
    noteId: Type.String({ description: 'The REMINDER note (`not_…`).' }),
    title: Type.String({ description: 'Title of the reminder.' }),
    dueDate: Type.String({ description: 'Day it is due (YYYY-MM-DD).' }),
    parentType: Type.Enum(NOTE_PARENT_TYPES, { description: 'PARTNER or CONTRACT.' }),
    parentId: Type.String({ description: 'The partner or contract the note is attached to.' }),
  },
  { additionalProperties: false },
);

const DeadlineItem = Type.Object(
  {
    contractId: Type.String({ description: 'The contract (`ctr_…`).' }),
    name: Type.String({ description: 'Name of the contract.' }),
    partnerName: Type.String({ description: 'The partner the contract is with.' }),
    cancellationDeadline: Type.String({
      description: 'Last day to give notice for the current term (YYYY-MM-DD).',
    }),
  },
  { additionalProperties: false },
);

export const StatsSchema = Type.Object(
  {
    asOf: Type.String({ description: 'The day the figures are for: today (UTC, YYYY-MM-DD).' }),
    currency: Type.String({
      description:
        'The account currency: every payment figure is in it; payments in other currencies are left out.',
    }),
    balance: Nullable(
      Type.Number(),
      'Bank balance at the end of `asOf` (major units): the cash anchor plus settled payments after its date (minus those between today and a later anchor date). Null without a cash anchor in the account currency.',
    ),
    cashAnchor: Nullable(
      Type.Object(
        {
          openingBalance: Type.Number({ description: 'Major units of `currency`.' }),
          currency: Type.String({ description: 'Currency of the anchor (ISO 4217).' }),
          effectiveDate: Type.String({ description: 'Day of the anchor balance (YYYY-MM-DD).' }),
        },
        { additionalProperties: false },
      ),
      'The cash anchor the balance is based on, or null when none is set.',
    ),
    receivables: OpenInvoices(
      ISSUED,
      'Receivables: what customers still owe on issued invoices in the account currency (invoices in other currencies are left out). PENDING payments do not reduce it; settled ones and credit notes do.',
    ),
    overdueReceivables: OpenInvoices(
      `${ISSUED}, due before today`,
      'The part of `receivables` past its due date.',
    ),
    payables: OpenInvoices(
      RECEIVED,
      'Payables: what this account still owes on received invoices in the account currency.',
    ),
    overduePayables: OpenInvoices(
      `${RECEIVED}, due before today`,
      'The part of `payables` past its due date.',
    ),
    pendingIncomingPayments: Pending(
      'INCOMING',
      'Expected incoming payments (PENDING, any date), e.g. provider payments not yet reported.',
    ),
    pendingOutgoingPayments: Pending('OUTGOING', 'Expected outgoing payments (PENDING, any date).'),
    thisMonth: Flow,
    lastMonth: Flow,
    budgetsSuppressed: Type.Boolean({
      description: 'The account setting; when true `budgets` is null.',
    }),
    budgets: Nullable(
      Type.Object(
        {
          month: Type.String({ description: 'The month of `spent` (YYYY-MM).' }),
          categories: Type.Array(BudgetUse, { description: 'ACTIVE categories, by name.' }),
          truncated: Type.Boolean({
            description: `True when there are more than ${MAX_BUDGET_CATEGORIES} active categories.`,
          }),
        },
        { additionalProperties: false },
      ),
      'Budget use per ACTIVE category this month; null when the account suppresses budgets.',
    ),
    contracts: Type.Object(
      {
        activeCount: Type.Integer({ description: 'ACTIVE contracts, in any currency.' }),
        monthlyValue: money(
          'Recurring value per month of the ACTIVE contracts in the account currency: MONTHLY totalValue as is, QUARTERLY / 3, YEARLY / 12, summed and rounded half-up to the minor unit once.',
        ),
        recurringCount: Type.Integer({
          description: 'ACTIVE contracts in the account currency counted in `monthlyValue`.',
        }),
        oneTimeCount: Type.Integer({
          description: 'ACTIVE ONE_TIME contracts in the account currency (not in monthlyValue).',
        }),
        oneTimeValue: money('Sum of their totalValue, major units.'),
        withoutBillingCycleCount: Type.Integer({
          description: 'ACTIVE contracts in the account currency without a billingCycle.',
        }),
        otherCurrencyCount: Type.Integer({
          description: 'ACTIVE contracts in another currency (not in any value).',
        }),
      },
      { additionalProperties: false },
    ),
    reminders: Type.Object(
      {
        count: Type.Integer({
          description: `Open REMINDER notes due from today to ${REMINDER_WINDOW_DAYS} days ahead.`,
        }),
        overdueCount: Type.Integer({ description: 'Open REMINDER notes due before today.' }),
        next: Type.Array(ReminderItem, {
          description: `The first ${NEXT_ITEMS} of them by due date.`,
        }),
      },
      { additionalProperties: false },
    ),
    cancellationDeadlines: Type.Object(
      {
        count: Type.Integer({
          description: `ACTIVE contracts whose current cancellation deadline is from today to ${DEADLINE_WINDOW_DAYS} days ahead.`,
        }),
        next: Type.Array(DeadlineItem, {
          description: `The first ${NEXT_ITEMS} of them by deadline.`,
        }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, description: 'The dashboard figures (decisions §12).' },
);
export type Stats = Static<typeof StatsSchema>;

export const TimeseriesQuery = Type.Object(
  {
    from: Type.Optional(
      IsoDate(
        'First day of the series (1900-01-01 to 2999-12-31); default: 30 days, 12 weeks or 12 months back from `to`',
      ),
    ),
    to: Type.Optional(
      IsoDate(
        'Last day of the series (up to 2999-12-31), on or after `from` and at most 10 years after it; default today (UTC)',
      ),
    ),
    interval: Type.Optional(
      Type.Enum(INTERVALS, {
        description: 'Bucket size: day, week (ISO weeks, Monday–Sunday) or month; default month.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TimeseriesParams = Static<typeof TimeseriesQuery>;

const TimeseriesBucket = Type.Object(
  {
    start: Type.String({ description: 'First day of the bucket (YYYY-MM-DD).' }),
    end: Type.String({ description: 'Last day of the bucket (YYYY-MM-DD), inclusive.' }),
    partial: Type.Boolean({
      description:
        'True when the week or month reaches outside `from..to` and the bucket was clipped to it.',
    }),
    income: money('Settled INCOMING payments dated in the bucket, major units.'),
    expense: money('Settled OUTGOING payments dated in the bucket, major units.'),
    net: money('`income − expense`.'),
    balance: Nullable(
      Type.Number(),
      'Closing balance at the end of `end` (major units); null without a cash anchor.',
    ),
  },
  { additionalProperties: false },
);

export const TimeseriesSchema = Type.Object(
  {
    from: Type.String({ description: 'First day of the series (YYYY-MM-DD).' }),
    to: Type.String({ description: 'Last day of the series (YYYY-MM-DD).' }),
    interval: Type.Enum(INTERVALS, { description: 'Bucket size: day, week or month.' }),
    currency: Type.String({ description: 'The account currency every amount is in.' }),
    openingBalance: Nullable(
      Type.Number(),
      'Balance at the end of the day before `from` (major units); null without a cash anchor.',
    ),
    buckets: Type.Array(TimeseriesBucket, { description: 'In calendar order, covering from..to.' }),
  },
  { additionalProperties: false, description: 'Income, expense and balance per bucket.' },
);
export type Timeseries = Static<typeof TimeseriesSchema>;
