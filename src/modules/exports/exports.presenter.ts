import { defaultBankAccount, defaultDebtorAccount, type Chart } from './datev-accounts.js';
import type { DatevSettingsRow } from './exports.repository.js';
import type { DatevSettings } from './exports.schemas.js';

/** A revenue account of a tax rate, as stored (JSON) and answered. */
export interface RevenueMapping {
  taxRateId: string;
  account: number;
  taxKey: string | null;
}

export const mappingsOf = (row: Pick<DatevSettingsRow, 'account_mapping'>): RevenueMapping[] =>
  JSON.parse(row.account_mapping) as RevenueMapping[];

/**
 * Row → response, field by field. Debtor and bank account answer the value in force: the
 * stored one, else the chart's default for the account length.
 */
export function presentSettings(row: DatevSettingsRow): DatevSettings {
  const chart = row.chart as Chart;
  return {
    consultantNumber: Number(row.consultant_number),
    clientNumber: Number(row.client_number),
    chartOfAccounts: chart,
    fiscalYearStartMonth: Number(row.fiscal_year_start_month),
    accountLength: Number(row.account_length),
    debtorAccount:
      row.debtor_account === null
        ? defaultDebtorAccount(Number(row.account_length))
        : Number(row.debtor_account),
    partnerAccounts: Number(row.partner_accounts) === 1,
    bankAccount:
      row.bank_account === null
        ? defaultBankAccount(chart, Number(row.account_length))
        : Number(row.bank_account),
    revenueAccounts: mappingsOf(row).map((m) => ({
      taxRateId: m.taxRateId,
      account: m.account,
      taxKey: m.taxKey,
    })),
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
