import { sepaId } from './text.js';
import type {
  CreditTransfer,
  CreditTransferBatch,
  DirectDebit,
  DirectDebitBatch,
  LocalInstrument,
  SequenceType,
} from './types.js';

/** A debit not yet in a batch: it carries its batch's sequence type and collection date. */
export interface PendingDirectDebit extends DirectDebit {
  sequenceType: SequenceType;
  collectionDate: string;
}

/** A transfer not yet in a batch: it carries its execution date. */
export interface PendingCreditTransfer extends CreditTransfer {
  executionDate: string;
}

/** `prefix-suffix` as a SEPA id, the prefix cut so that the whole suffix fits in 35. */
function withSuffix(prefix: string, suffix: string): string {
  const head = sepaId([prefix]).slice(0, 35 - suffix.length - 1);
  return sepaId([head, suffix]);
}

/**
 * The `PmtInfId` `groupDirectDebits` gives the batch of one sequence type and collection date
 * (`prefix-SEQ-YYYYMMDD`); a bank statement that books the batch as one line quotes it.
 */
export function directDebitPaymentInfoId(
  prefix: string,
  sequenceType: string,
  collectionDate: string,
): string {
  return withSuffix(prefix, `${sequenceType}-${collectionDate.replaceAll('-', '')}`);
}

/** The `PmtInfId` `groupCreditTransfers` gives the batch of one execution date. */
export function creditTransferPaymentInfoId(prefix: string, executionDate: string): string {
  return withSuffix(prefix, executionDate.replaceAll('-', ''));
}

const SEQUENCE_ORDER: Record<SequenceType, number> = { FRST: 0, RCUR: 1, FNAL: 2, OOFF: 3 };

/**
 * The debits in batches, one per sequence type and collection date (the EPC rule: one
 * `PmtInf` carries one of each), ordered by date, then FRST, RCUR, FNAL, OOFF; the debits keep
 * their order within a batch. Payment-information ids are `prefix-SEQ-YYYYMMDD`, the prefix
 * cut when the whole would be longer than 35 characters, so the distinguishing tail survives.
 */
export function groupDirectDebits(
  debits: readonly PendingDirectDebit[],
  paymentInfoIdPrefix: string,
  localInstrument: LocalInstrument = 'CORE',
  batchBooking = true,
): DirectDebitBatch[] {
  const batches = new Map<string, DirectDebitBatch>();
  for (const { sequenceType, collectionDate, ...debit } of debits) {
    const key = `${collectionDate} ${SEQUENCE_ORDER[sequenceType]}`;
    let batch = batches.get(key);
    if (batch === undefined) {
      batch = {
        paymentInfoId: directDebitPaymentInfoId(paymentInfoIdPrefix, sequenceType, collectionDate),
        sequenceType,
        localInstrument,
        collectionDate,
        batchBooking,
        debits: [],
      };
      batches.set(key, batch);
    }
    batch.debits.push(debit);
  }
  return [...batches.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, batch]) => batch);
}

/**
 * The transfers in batches, one per execution date, ordered by date; payment-information ids
 * are `prefix-YYYYMMDD` (the prefix cut beyond 35 characters).
 */
export function groupCreditTransfers(
  transfers: readonly PendingCreditTransfer[],
  paymentInfoIdPrefix: string,
  batchBooking = true,
): CreditTransferBatch[] {
  const batches = new Map<string, CreditTransferBatch>();
  for (const { executionDate, ...transfer } of transfers) {
    let batch = batches.get(executionDate);
    if (batch === undefined) {
      batch = {
        paymentInfoId: creditTransferPaymentInfoId(paymentInfoIdPrefix, executionDate),
        executionDate,
        batchBooking,
        transfers: [],
      };
      batches.set(executionDate, batch);
    }
    batch.transfers.push(transfer);
  }
  return [...batches.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, batch]) => batch);
}
