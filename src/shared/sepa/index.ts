/**
 * SEPA payment files, pure (no database, no modules): `buildPain008` writes a pain.008.001.08
 * direct-debit file (CORE or B2B), `buildPain001` a pain.001.001.09 credit-transfer file;
 * both transliterate texts to the EPC basic Latin set and throw `SepaFileError` (with the
 * input field's JSON pointer) for input no valid file can carry. See docs/sepa.md.
 */
export type * from './types.js';
export { SepaFileError } from './errors.js';
export { buildPain008, PAIN_008_NAMESPACE } from './pain008.js';
export { buildPain001, PAIN_001_NAMESPACE } from './pain001.js';
export { formatAmount, MAX_AMOUNT_MINOR } from './common.js';
export {
  creditTransferPaymentInfoId,
  directDebitPaymentInfoId,
  groupCreditTransfers,
  groupDirectDebits,
  type PendingCreditTransfer,
  type PendingDirectDebit,
} from './group.js';
export {
  creditorIdProblem,
  debtorBankChanged,
  isValidBic,
  isValidCreditorId,
  normalizeBic,
  normalizeCreditorId,
  sepaIbanProblem,
} from './identifiers.js';
export { isSepaText, isValidSepaId, sepaId, sepaText } from './text.js';
