/**
 * What every bank statement parser answers (decisions §11). Parsers are pure functions over
 * the file's bytes: they never throw on one bad entry (it becomes an `errors` item and the
 * rest is kept); a file that is not a statement at all is refused by `detectFormat` /
 * `parseStatementFile` with 422 `file_unprocessable` and a reason.
 */

export const STATEMENT_FORMATS = ['MT940', 'CAMT053', 'CAMT052', 'CAMT054', 'CSV'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

export interface ParsedEntry {
  /** Booking date, YYYY-MM-DD. */
  bookingDate: string;
  /** Value date, YYYY-MM-DD, when the file states one. */
  valueDate: string | null;
  /** Signed amount in integer minor units of `currency`: credits positive, debits negative. */
  amountMinor: number;
  currency: string;
  counterpartyName: string | null;
  counterpartyIban: string | null;
  counterpartyBic: string | null;
  /** Remittance information (SVWZ / Ustrd / Verwendungszweck), whitespace normalised. */
  purpose: string;
  /** SEPA end-to-end reference (EREF / EndToEndId), without NOTPROVIDED. */
  endToEndId: string | null;
  /** SEPA mandate reference (MREF / MndtId). */
  mandateReference: string | null;
  /** The bank's own reference of the entry (CAMT AcctSvcrRef or NtryRef, MT940 bank reference). */
  bankReference: string | null;
  /** Booking text / transaction type as the bank names it (e.g. `SEPA-Überweisung`, GVC text). */
  bookingText: string | null;
  /** A reversal (MT940 RC/RD, CAMT RvslInd): the sign of `amountMinor` already accounts for it. */
  reversal: boolean;
  /**
   * Set on a returned payment (CAMT `RtrInf`; MT940 return GVC 108/109/159 or `/RTRN/`): the
   * ISO return reason code (`AC04`, `MD06`, …), or null when the file gives none. Absent for
   * entries that are not returns.
   */
  returnReason?: string | null;
  /**
   * Set on a batch booking (Sammelbuchung): one line for a whole collection or transfer file
   * or one of its `PmtInf` blocks. Absent for single bookings.
   */
  batch?: BatchInfo;
}

export interface BatchInfo {
  /**
   * The references the file gives for the batch, most specific first: camt `Btch/PmtInfId`,
   * `Btch/MsgId` and the transactions' `Refs/PmtInfId`/`MsgId`; MT940 the `KREF+` customer
   * reference and the id-like words of the purpose.
   */
  references: string[];
  /** How many transactions the batch holds, when the file says (camt `Btch/NbOfTxs`). */
  count: number | null;
  /** The transactions' EndToEndIds, when the file lists them without booking them singly. */
  endToEndIds: string[];
}

export interface ParsedStatement {
  format: StatementFormat;
  /** Statement number / id as the file states it. */
  statementId: string | null;
  /** IBAN of the statement's account, or another account identification (`BLZ/Konto`). */
  account: string | null;
  currency: string;
  openingBalanceMinor: number | null;
  openingDate: string | null;
  closingBalanceMinor: number | null;
  closingDate: string | null;
  entries: ParsedEntry[];
}

export interface ParseError {
  /** 0-based statement index, when the problem belongs to one. */
  statement?: number;
  /** 1-based line of the file (MT940, CSV), when known. */
  line?: number;
  /** 0-based entry index within its statement, when known. */
  entry?: number;
  message: string;
}

export interface ParseResult {
  format: StatementFormat;
  statements: ParsedStatement[];
  errors: ParseError[];
}

export interface ParseOptions {
  /**
   * How a single signed amount column of a CSV is read (decisions §11): HABEN (default) —
   * positive is a credit (incoming); SOLL — positive is a debit (outgoing).
   */
  incomingPaymentTerm?: 'SOLL' | 'HABEN';
}
