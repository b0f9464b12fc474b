import { toMajor } from '../../shared/money.js';
import type { Counts, ImportRow, TransactionRow } from './bank-imports.repository.js';
import type {
  Decision,
  ImportTransaction,
  ImportView,
  Suggestion,
} from './bank-imports.schemas.js';

export interface StoredStatement {
  index: number;
  statementId: string | null;
  account: string | null;
  currency: string;
  openingMinor: number | null;
  openingDate: string | null;
  closingMinor: number | null;
  closingDate: string | null;
  entries: number;
  balanceOk: boolean | null;
}

export interface StoredProblems {
  parser: ImportView['problems'];
  outsidePeriod: number;
}

const money = (minor: number | null, currency: string) =>
  minor === null ? null : toMajor(minor, currency);

export function presentTransaction(row: TransactionRow): ImportTransaction {
  const duplicate = row.duplicate_of
    ? (JSON.parse(row.duplicate_of) as {
        importId: string;
        index: number;
        paymentId: string | null;
      })
    : null;
  return {
    index: row.idx,
    statementIndex: row.statement_index,
    bookingDate: row.booking_date,
    valueDate: row.value_date,
    amount: toMajor(row.amount, row.currency),
    currency: row.currency,
    direction: row.amount >= 0 ? 'INCOMING' : 'OUTGOING',
    counterpartyName: row.counterparty_name,
    counterpartyIban: row.counterparty_iban,
    counterpartyBic: row.counterparty_bic,
    purpose: row.purpose,
    endToEndId: row.end_to_end_id,
    mandateReference: row.mandate_reference,
    bankReference: row.bank_reference,
    bookingText: row.booking_text,
    reversal: row.reversal === 1,
    returned: row.return_reason !== null,
    returnReason: row.return_reason === null || row.return_reason === '' ? null : row.return_reason,
    decision: row.decision as Decision | null,
    duplicateOf: duplicate,
    suggestions: JSON.parse(row.suggestions) as Suggestion[],
  };
}

export function presentImport(
  row: ImportRow,
  counts: Counts,
  transactions: TransactionRow[],
  nextCursor: string | null,
): ImportView {
  const statements = JSON.parse(row.statements) as StoredStatement[];
  const problems = JSON.parse(row.problems) as StoredProblems;
  const checked = statements.filter((s) => s.balanceOk !== null);
  return {
    id: row.id,
    version: row.version,
    status: row.status as ImportView['status'],
    fileId: row.file_id,
    fileName: row.file_name,
    format: row.format,
    periodFrom: row.period_from,
    periodTo: row.period_to,
    autoApprove: row.auto_approve === 1,
    statements: statements.map((s) => ({
      index: s.index,
      statementId: s.statementId,
      account: s.account,
      currency: s.currency,
      openingBalance: money(s.openingMinor, s.currency),
      openingDate: s.openingDate,
      closingBalance: money(s.closingMinor, s.currency),
      closingDate: s.closingDate,
      entries: s.entries,
      balanceOk: s.balanceOk,
    })),
    balanceOk: checked.length === 0 ? null : checked.every((s) => s.balanceOk === true),
    problems: problems.parser,
    transactionCount: row.transaction_count,
    undecidedCount: row.undecided_count,
    acceptedCount: counts.accepted,
    rejectedCount: counts.rejected,
    duplicateCount: counts.duplicates,
    outsidePeriodCount: problems.outsidePeriod,
    transactions: transactions.map(presentTransaction),
    transactionsNextCursor: nextCursor,
    finalizedAt: row.finalized_at,
    result: row.result ? (JSON.parse(row.result) as ImportView['result']) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
