/**
 * Which account a booking goes to (docs/datev.md, "Accounts"). DATEV's standard charts SKR03
 * and SKR04 have four-digit general-ledger accounts; with a longer account length DATEV pads
 * them with zeros on the right (8400 → 84000 at length 5). Debtors (Personenkonten) have one
 * digit more than the general ledger and lie in 10000–69999 at length 4.
 */

export const CHARTS = ['SKR03', 'SKR04'] as const;
export type Chart = (typeof CHARTS)[number];

interface ChartAccounts {
  bank: number;
  /** Revenue accounts by VAT category (and for S by rate in basis points). */
  standard: Record<number, number>;
  byCategory: Partial<Record<string, number>>;
}

/**
 * The default revenue accounts are DATEV automatic accounts (Automatikkonten): DATEV takes
 * the VAT out of the gross amount by itself, so their bookings carry no BU-Schlüssel.
 * - S 19 % / 7 %: Erlöse 19 % / 7 % USt (8400/8300, 4400/4300)
 * - K: steuerfreie innergemeinschaftliche Lieferungen § 4 Nr. 1b UStG (8125, 4125)
 * - AE: Erlöse aus Leistungen, für die der Leistungsempfänger die Steuer nach § 13b UStG
 *   schuldet (8337, 4337)
 * - G: steuerfreie Umsätze § 4 Nr. 1a UStG, Ausfuhr (8120, 4120)
 * - E: Erlöse als Kleinunternehmer § 19 UStG (8195, 4185), Kontor's seeded E rate
 * Every other rate (another S rate, Z, O, an E rate for another exemption) needs a mapping.
 */
const ACCOUNTS: Record<Chart, ChartAccounts> = {
  SKR03: {
    bank: 1200,
    standard: { 1900: 8400, 700: 8300 },
    byCategory: { K: 8125, AE: 8337, G: 8120, E: 8195 },
  },
  SKR04: {
    bank: 1800,
    standard: { 1900: 4400, 700: 4300 },
    byCategory: { K: 4125, AE: 4337, G: 4120, E: 4185 },
  },
};

/** A four-digit chart account at `length` digits (DATEV pads on the right). */
export function padAccount(account: number, length: number): number {
  return account * 10 ** (length - 4);
}

/** The default revenue account of a rate, or undefined when the rate must be mapped. */
export function defaultRevenueAccount(
  chart: Chart,
  length: number,
  category: string,
  rateBp: number,
): number | undefined {
  const accounts = ACCOUNTS[chart];
  const account = category === 'S' ? accounts.standard[rateBp] : accounts.byCategory[category];
  return account === undefined ? undefined : padAccount(account, length);
}

export function defaultBankAccount(chart: Chart, length: number): number {
  return padAccount(ACCOUNTS[chart].bank, length);
}

/** The collective debtor (Sammeldebitor): the first debtor account, 1 and `length` zeros. */
export function defaultDebtorAccount(length: number): number {
  return 10 ** length;
}

/** A general-ledger account has exactly `length` digits. */
export function isLedgerAccount(account: number, length: number): boolean {
  return Number.isInteger(account) && account >= 10 ** (length - 1) && account < 10 ** length;
}

/** A debtor account has `length + 1` digits and starts with 1–6 (7–9 are creditors). */
export function isDebtorAccount(account: number, length: number): boolean {
  return Number.isInteger(account) && account >= 10 ** length && account < 7 * 10 ** length;
}
