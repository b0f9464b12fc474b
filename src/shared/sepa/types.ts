/**
 * Input of the SEPA payment-file writers: plain data, amounts in integer euro cents, dates as
 * `YYYY-MM-DD`. Texts may hold any Unicode; the writers transliterate them to the EPC basic
 * Latin character set and cut them to the field's maximum length. Identifiers (message,
 * payment-information, end-to-end, mandate ids) are written as given and must already obey the
 * EPC rules (see `isValidSepaId`); the writers refuse them otherwise.
 */

/** An account holder: name, IBAN and, optionally, the BIC of the bank (IBAN-only is allowed). */
export interface SepaParty {
  name: string;
  iban: string;
  bic?: string | null;
}

/** FRST first, RCUR recurrent, FNAL final collection of a recurrent mandate, OOFF one-off. */
export type SequenceType = 'FRST' | 'RCUR' | 'FNAL' | 'OOFF';

/** CORE (consumers and businesses) or B2B (businesses only, separate mandate). */
export type LocalInstrument = 'CORE' | 'B2B';

/**
 * What changed on a mandate since the previous collection (`AmdmntInd` = true). Only the parts
 * that changed are given; at least one must be.
 */
export interface MandateAmendment {
  /** The mandate id used before, when the mandate id changed. */
  originalMandateId?: string | null;
  /** The creditor id (and, optionally, creditor name) used before, when it changed. */
  originalCreditorId?: string | null;
  originalCreditorName?: string | null;
  /** The debtor's IBAN before, when the debtor changed accounts at the same bank. */
  originalDebtorIban?: string | null;
  /**
   * The debtor moved to another bank (`SMNDA`, "same mandate, new debtor agent"); the DK rules
   * allow RCUR for the next collection.
   */
  debtorBankChanged?: boolean;
}

/** One collection (`DrctDbtTxInf`). */
export interface DirectDebit {
  /** ≤ 35 characters, unique in the file; reaches the debtor's statement. */
  endToEndId: string;
  /** Amount in cents, 1 … 99 999 999 999. */
  amountMinor: number;
  /** Unique mandate reference, ≤ 35 characters. */
  mandateId: string;
  /** Date the mandate was signed, `YYYY-MM-DD`, not after the collection date. */
  mandateSignedOn: string;
  amendment?: MandateAmendment | null;
  debtor: SepaParty;
  /** Unstructured remittance information, cut to 140 characters. */
  remittance: string;
}

/** One payment information block (`PmtInf`): one sequence type, one collection date. */
export interface DirectDebitBatch {
  /** ≤ 35 characters, unique in the file. */
  paymentInfoId: string;
  sequenceType: SequenceType;
  localInstrument: LocalInstrument;
  /** Requested collection date, `YYYY-MM-DD`. */
  collectionDate: string;
  /** One booking for the whole batch on the creditor's statement (default true). */
  batchBooking?: boolean;
  debits: DirectDebit[];
}

/** A pain.008.001.08 file: one creditor, one or more batches. */
export interface DirectDebitFile {
  /** ≤ 35 characters, unique per initiating party across all submissions. */
  messageId: string;
  createdAt: Date;
  initiatingPartyName: string;
  /** The creditor and its SEPA creditor identifier (e.g. `DE98ZZZ09999999999`). */
  creditor: SepaParty & { creditorId: string };
  batches: DirectDebitBatch[];
}

/** One transfer (`CdtTrfTxInf`). */
export interface CreditTransfer {
  /** ≤ 35 characters, unique in the file; reaches the creditor's statement. */
  endToEndId: string;
  /** Amount in cents, 1 … 99 999 999 999. */
  amountMinor: number;
  creditor: SepaParty;
  /** Unstructured remittance information, cut to 140 characters. */
  remittance: string;
}

/** One payment information block (`PmtInf`): one execution date. */
export interface CreditTransferBatch {
  /** ≤ 35 characters, unique in the file. */
  paymentInfoId: string;
  /** Requested execution date, `YYYY-MM-DD`. */
  executionDate: string;
  /** One booking for the whole batch on the debtor's statement (default true). */
  batchBooking?: boolean;
  transfers: CreditTransfer[];
}

/** A pain.001.001.09 file: one debtor account, one or more batches. */
export interface CreditTransferFile {
  /** ≤ 35 characters, unique per initiating party across all submissions. */
  messageId: string;
  createdAt: Date;
  initiatingPartyName: string;
  debtor: SepaParty;
  batches: CreditTransferBatch[];
}
