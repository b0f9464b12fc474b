import { Type, type Static } from 'typebox';
import { PageQuery } from '../../http/pagination.js';
import { IsoDate, Nullable, RecordMeta, VersionField } from '../../http/schemas.js';
import { MONTH_PATTERN } from '../../shared/dates.js';
import { CURRENCIES } from '../../shared/money.js';

/** The largest amount in major units; keeps minor units of every currency a safe integer. */
export const MAX_AMOUNT = 1_000_000_000_000;
export const ENTRY_SOURCES = ['MANUAL', 'IMPORT'] as const;

const Month = (description: string) => Type.String({ pattern: MONTH_PATTERN, description });

const fields = {
  name: Type.String({
    minLength: 1,
    maxLength: 200,
    description: 'Category name, unique in the account (case- and accent-insensitively).',
  }),
  monthlyLimit: Type.Number({
    minimum: 0,
    maximum: MAX_AMOUNT,
    description:
      'Spending limit per calendar month in major units of `currency`, with no more decimals than the currency has.',
  }),
  currency: Type.Enum(CURRENCIES, {
    description: 'ISO 4217 code of the limit; entries of the category use the same currency.',
  }),
  keywords: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
    maxItems: 50,
    description:
      'Words matched against the counterparty and purpose of bank debits (case- and umlaut-insensitive: `Müller` matches `MUELLER`) to suggest this category in imports.',
  }),
  active: Type.Boolean({
    description: 'Inactive categories keep their entries but are not suggested nor reported.',
  }),
};

export const BudgetCategorySchema = Type.Object(
  {
    ...RecordMeta,
    name: fields.name,
    monthlyLimit: Type.Number({ description: 'Limit per month in major units of `currency`.' }),
    currency: Type.String({ description: 'ISO 4217 currency code.' }),
    keywords: Type.Array(Type.String()),
    active: Type.Boolean(),
    month: Type.String({ description: 'The month `spent` and `remaining` are for (YYYY-MM).' }),
    spent: Type.Number({
      description: 'Sum of the category’s entries dated in `month` (refunds subtract).',
    }),
    remaining: Type.Number({
      description: '`monthlyLimit − spent`; negative when the budget is overrun.',
    }),
    overLimit: Type.Boolean({ description: 'Whether `spent` exceeds `monthlyLimit`.' }),
  },
  { additionalProperties: false, description: 'A budget category with its spending in a month.' },
);
export type BudgetCategory = Static<typeof BudgetCategorySchema>;

export const CreateBudgetCategoryBody = Type.Object(
  {
    name: fields.name,
    monthlyLimit: fields.monthlyLimit,
    currency: fields.currency,
    keywords: fields.keywords,
    active: fields.active,
  },
  { additionalProperties: false },
);
export type CreateBudgetCategory = Static<typeof CreateBudgetCategoryBody>;

/** Partial update: omitted fields stay. */
export const UpdateBudgetCategoryBody = Type.Object(
  {
    version: VersionField,
    name: Type.Optional(fields.name),
    monthlyLimit: Type.Optional(fields.monthlyLimit),
    currency: Type.Optional(fields.currency),
    keywords: Type.Optional(fields.keywords),
    active: Type.Optional(fields.active),
  },
  { additionalProperties: false },
);
export type UpdateBudgetCategory = Static<typeof UpdateBudgetCategoryBody>;

export const MonthQuery = Type.Object(
  {
    month: Type.Optional(
      Month('Month for `spent` and `remaining` (YYYY-MM); default the current month (UTC).'),
    ),
  },
  { additionalProperties: false },
);

export const ListBudgetCategoriesQuery = Type.Object(
  {
    ...PageQuery,
    ...MonthQuery.properties,
    active: Type.Optional(Type.Boolean({ description: 'Only active (true) or inactive (false).' })),
    q: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Text in the name.' }),
    ),
  },
  { additionalProperties: false },
);
export type ListBudgetCategories = Static<typeof ListBudgetCategoriesQuery>;

export const BudgetEntrySchema = Type.Object(
  {
    ...RecordMeta,
    categoryId: Type.String(),
    categoryName: Type.String({ description: 'Name of the category, filled by the server.' }),
    amount: Type.Number({ description: 'Amount spent in major units (negative: a refund).' }),
    currency: Type.String(),
    entryDate: Type.String({ description: 'Day of the expense (YYYY-MM-DD).' }),
    documentId: Nullable(Type.String(), 'The document this expense belongs to, if any.'),
    vendorName: Nullable(Type.String(), 'Who was paid, as free text.'),
    source: Type.Enum(ENTRY_SOURCES, {
      description: 'MANUAL (this API) or IMPORT (a finalized bank statement import).',
    }),
    importId: Nullable(Type.String(), 'The bank statement import that booked it.'),
  },
  { additionalProperties: false, description: 'One expense booked against a budget category.' },
);
export type BudgetEntry = Static<typeof BudgetEntrySchema>;

export const CreateBudgetEntryBody = Type.Object(
  {
    categoryId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'Id of a budget category of this account (`bgc_…`).',
    }),
    categoryName: Type.Optional(
      Type.String({
        maxLength: 200,
        description: 'Ignored: the server fills it from the category (decisions §6).',
      }),
    ),
    amount: Type.Number({
      minimum: -MAX_AMOUNT,
      maximum: MAX_AMOUNT,
      description:
        'Amount in major units of `currency`, not zero; negative books a refund. No more decimals than the currency has.',
    }),
    currency: Type.Enum(CURRENCIES, {
      description: 'ISO 4217 code; must be the category’s currency.',
    }),
    entryDate: IsoDate('Day of the expense'),
    documentId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'Id of a document of this account (`doc_…`), e.g. the invoice paid.',
      }),
    ),
    vendorName: Type.Optional(
      Type.String({ maxLength: 200, description: 'Who was paid, as free text.' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateBudgetEntry = Static<typeof CreateBudgetEntryBody>;

export const ListBudgetEntriesQuery = Type.Object(
  {
    ...PageQuery,
    categoryId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this category.' })),
    documentId: Type.Optional(Type.String({ maxLength: 64, description: 'Only this document.' })),
    source: Type.Optional(Type.Enum(ENTRY_SOURCES, { description: 'Only MANUAL or IMPORT.' })),
    from: Type.Optional(IsoDate('Only entries dated on or after this day')),
    to: Type.Optional(IsoDate('Only entries dated on or before this day')),
  },
  { additionalProperties: false },
);
export type ListBudgetEntries = Static<typeof ListBudgetEntriesQuery>;
