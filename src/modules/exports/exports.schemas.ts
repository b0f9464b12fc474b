import { Type, type Static } from 'typebox';
import { IsoDate, Nullable, Timestamp } from '../../http/schemas.js';
import { CHARTS } from './datev-accounts.js';

/** The most tax rates a mapping lists (far more than any account has). */
export const MAX_MAPPINGS = 100;

const RevenueAccount = Type.Object(
  {
    taxRateId: Type.String({
      maxLength: 64,
      description: 'A tax rate of the account (`/v1/tax-rates`).',
    }),
    account: Type.Integer({
      minimum: 1000,
      maximum: 99_999_999,
      description:
        'The revenue account its lines are booked to: exactly `accountLength` digits (e.g. 8400 in SKR03 at length 4).',
    }),
    taxKey: Type.Optional(
      Nullable(
        Type.String({ pattern: '^[0-9]{1,4}$' }),
        'BU-Schlüssel written with the booking (1–4 digits, e.g. `3` for 19 % output VAT on a non-automatic account); null or absent for an automatic account, which takes the VAT out by itself.',
      ),
    ),
  },
  { additionalProperties: false },
);

export const DatevSettingsSchema = Type.Object(
  {
    consultantNumber: Type.Integer({
      description: 'DATEV consultant number (Beraternummer) of the tax advisor.',
    }),
    clientNumber: Type.Integer({ description: 'DATEV client number (Mandantennummer).' }),
    chartOfAccounts: Type.Enum(CHARTS, {
      description: 'Standard chart of accounts (Kontenrahmen): SKR03 or SKR04.',
    }),
    fiscalYearStartMonth: Type.Integer({
      description: 'The month (1–12) the fiscal year starts, on its first day.',
    }),
    accountLength: Type.Integer({
      description: 'Digits of a general-ledger account (Sachkontenlänge), 4–8.',
    }),
    debtorAccount: Type.Integer({
      description:
        'The collective debtor account (Sammeldebitor) every invoice and payment is booked against: `accountLength` + 1 digits; the default is 1 followed by `accountLength` zeros (10000).',
    }),
    partnerAccounts: Type.Boolean({
      description:
        'Book each customer on its own debtor account (Personenkonto) instead of the collective debtor: the partner number frozen with the invoice, when it is all digits and a debtor account at `accountLength` (`accountLength` + 1 digits starting with 1–6: 10000–69999 at length 4). An invoice whose number does not fit, and its payments, stay on `debtorAccount`. Default false.',
    }),
    bankAccount: Type.Integer({
      description:
        'The bank account payments are booked to; default SKR03 1200, SKR04 1800 (padded with zeros to `accountLength`).',
    }),
    revenueAccounts: Type.Array(RevenueAccount, {
      description:
        'Revenue account per tax rate, overriding the chart defaults (docs/datev.md): S 19 % → 8400/4400, S 7 % → 8300/4300, K → 8125/4125, AE → 8337/4337, G → 8120/4120, E → 8195/4185. Rates without a default must be listed here before their invoices can be exported.',
    }),
    version: Type.Integer({ minimum: 1, description: 'Optimistic-locking version.' }),
    createdAt: Timestamp('When the settings were first saved (RFC 3339 UTC).'),
    updatedAt: Timestamp('When the settings were last saved (RFC 3339 UTC).'),
  },
  {
    additionalProperties: false,
    description:
      'How Kontor hands the books to the tax advisor: the DATEV header data and accounts (docs/datev.md).',
  },
);
export type DatevSettings = Static<typeof DatevSettingsSchema>;

export const PutDatevSettingsBody = Type.Object(
  {
    consultantNumber: Type.Optional(
      Type.Integer({
        minimum: 1001,
        maximum: 9_999_999,
        description:
          'DATEV consultant number (Beraternummer), 1001–9999999. Required when the settings are first saved.',
      }),
    ),
    clientNumber: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 99_999,
        description:
          'DATEV client number (Mandantennummer), 1–99999. Required when the settings are first saved.',
      }),
    ),
    chartOfAccounts: Type.Optional(Type.Enum(CHARTS, { description: 'SKR03 (default) or SKR04.' })),
    fiscalYearStartMonth: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 12,
        description: 'The month the fiscal year starts (default 1, January).',
      }),
    ),
    accountLength: Type.Optional(
      Type.Integer({
        minimum: 4,
        maximum: 8,
        description: 'Sachkontenlänge, 4–8 (default 4): the account length the advisor uses.',
      }),
    ),
    debtorAccount: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 10_000, maximum: 699_999_999 }),
        'The collective debtor account, `accountLength` + 1 digits starting with 1–6; null: the default (1 followed by `accountLength` zeros).',
      ),
    ),
    partnerAccounts: Type.Optional(
      Type.Boolean({
        description:
          'Book each customer on its own debtor account (Personenkonto) instead of the collective debtor: the partner number frozen with the invoice, when it is all digits and a debtor account at `accountLength` (`accountLength` + 1 digits starting with 1–6: 10000–69999 at length 4). An invoice whose number does not fit, and its payments, stay on `debtorAccount`. Default false.',
      }),
    ),
    bankAccount: Type.Optional(
      Nullable(
        Type.Integer({ minimum: 1000, maximum: 99_999_999 }),
        'The bank account, exactly `accountLength` digits; null: the chart default.',
      ),
    ),
    revenueAccounts: Type.Optional(
      Type.Array(RevenueAccount, {
        maxItems: MAX_MAPPINGS,
        description:
          'Replaces the whole list of revenue accounts per tax rate (each rate at most once).',
      }),
    ),
    version: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          'The version you read; with it (or `If-Match`) a stale version answers 409 and changes nothing. Omitted fields keep their values.',
      }),
    ),
  },
  { additionalProperties: false },
);
export type PutDatevSettings = Static<typeof PutDatevSettingsBody>;

export const DatevExportQuery = Type.Object(
  {
    from: IsoDate('First day of the period (booking dates are invoice and payment dates)'),
    to: IsoDate(
      'Last day of the period, on or after `from` and in the same fiscal year (a DATEV batch belongs to one fiscal year)',
    ),
  },
  { additionalProperties: false },
);
export type DatevExportQueryT = Static<typeof DatevExportQuery>;
