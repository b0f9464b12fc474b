import { Type, type Static } from 'typebox';
import { COUNTRY_CODES } from '../../shared/countries.js';
import { Nullable, RecordMeta, VersionField } from '../../http/schemas.js';

export const ADDRESS_TYPES = ['BILLING', 'SHIPPING', 'OFFICE', 'OTHER'] as const;

/** A postal and contact address, used by the account and by partners. */
export const AddressSchema = Type.Object(
  {
    type: Type.Enum(ADDRESS_TYPES, {
      description: 'What the address is for. Documents are mailed to the BILLING address’s email.',
    }),
    name: Type.Optional(
      Type.String({ maxLength: 200, description: 'Recipient line, e.g. company or department.' }),
    ),
    street: Type.Optional(Type.String({ maxLength: 200, description: 'Street and house number.' })),
    postalCode: Type.Optional(
      Type.String({ maxLength: 20, pattern: '^[A-Za-z0-9 -]+$', description: 'Postal code.' }),
    ),
    city: Type.Optional(Type.String({ maxLength: 100, description: 'City.' })),
    country: Type.Optional(
      Type.Enum(COUNTRY_CODES, { description: 'ISO 3166-1 alpha-2 country code, e.g. DE.' }),
    ),
    email: Type.Optional(
      Type.String({ format: 'email', maxLength: 254, description: 'Email address.' }),
    ),
    phone: Type.Optional(
      Type.String({
        maxLength: 40,
        pattern: '^\\+?[0-9 ()/.-]{3,40}$',
        description: 'Phone number, e.g. +49 30 1234567.',
      }),
    ),
  },
  { additionalProperties: false, $id: 'Address', description: 'AddressSchema' },
);
export type Address = Static<typeof AddressSchema>;

export const AddressesSchema = Type.Array(Type.Ref('Address'), {
  maxItems: 20,
  description: 'Addresses, at most 20.',
});

export const WIDGETS = [
  'BALANCE',
  'RECEIVABLES',
  'PAYABLES',
  'INCOME_EXPENSE',
  'BUDGETS',
  'CONTRACTS',
  'REMINDERS',
  'CASHFLOW_CHART',
] as const;

/** One dashboard widget's placement. */
export const DashboardWidgetSettingsSchema = Type.Object(
  {
    widget: Type.Enum(WIDGETS, { description: 'Which widget.' }),
    visible: Type.Boolean({ description: 'Whether the dashboard shows it.' }),
    position: Type.Integer({
      minimum: 0,
      maximum: 99,
      description: 'Order on the dashboard, ascending.',
    }),
    size: Type.Enum(['SMALL', 'MEDIUM', 'LARGE'], { description: 'Tile size.' }),
  },
  {
    additionalProperties: false,
    $id: 'DashboardWidgetSettings',
    description: 'DashboardWidgetSettingsSchema',
  },
);
export type DashboardWidgetSettings = Static<typeof DashboardWidgetSettingsSchema>;

const settingsFields = {
  budgetsSuppressed: Type.Boolean({
    description: 'Hide budget use on the dashboard and stop budget reminders.',
  }),
  reminderEmail: Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()], {
    description: 'Where reminders are mailed; null: to the admins.',
  }),
  allowContractReminderOverride: Type.Boolean({
    description: 'Whether a contract’s `advanced.reminderEmail` may override `reminderEmail`.',
  }),
  dashboardWidgets: Type.Array(Type.Ref('DashboardWidgetSettings'), {
    maxItems: 20,
    description: 'Dashboard layout; each widget at most once.',
  }),
  dateFormat: Type.Enum(['DD.MM.YYYY', 'DD/MM/YYYY'], {
    description:
      'How dates are written for people (documents, mail). The API always uses YYYY-MM-DD.',
  }),
  numberFormat: Type.Enum(['1.234,56', '1,234.56'], {
    description: 'How amounts are written for people. The API always uses JSON numbers.',
  }),
  currency: Type.Enum(['EUR', 'GBP'], { description: 'The account’s currency.' }),
  incomingPaymentTerm: Type.Enum(['SOLL', 'HABEN'], {
    description:
      'How a single signed amount column of a bank CSV is read; HABEN: credit = incoming.',
  }),
  logoFileId: Nullable(
    Type.String({ minLength: 1, maxLength: 64 }),
    'Id of an uploaded image file (`fil_…`: PNG, JPEG or WebP) that generated documents show when their template has `showLogo`; null: no logo. The file cannot be deleted while it is the logo.',
  ),
};

export const AccountSettingsSchema = Type.Object(
  {
    ...RecordMeta,
    name: Type.String({ description: 'Company name given at registration.' }),
    addresses: AddressesSchema,
    ...settingsFields,
  },
  {
    additionalProperties: false,
    description: 'The account’s addresses and settings, under one version.',
  },
);

export const PutAddressesBody = Type.Object(
  { version: VersionField, addresses: AddressesSchema },
  { additionalProperties: false },
);

export const PatchSettingsBody = Type.Object(
  {
    version: VersionField,
    budgetsSuppressed: Type.Optional(settingsFields.budgetsSuppressed),
    reminderEmail: Type.Optional(settingsFields.reminderEmail),
    allowContractReminderOverride: Type.Optional(settingsFields.allowContractReminderOverride),
    dashboardWidgets: Type.Optional(settingsFields.dashboardWidgets),
    dateFormat: Type.Optional(settingsFields.dateFormat),
    numberFormat: Type.Optional(settingsFields.numberFormat),
    currency: Type.Optional(settingsFields.currency),
    incomingPaymentTerm: Type.Optional(settingsFields.incomingPaymentTerm),
    logoFileId: Type.Optional(settingsFields.logoFileId),
  },
  { additionalProperties: false },
);
export type PatchSettings = Static<typeof PatchSettingsBody>;
