/**
 * SEPA payment files, pure (no database, no modules): `buildPain008` writes a pain.008.001.08
 * direct-debit file (CORE or B2B), `buildPain001` a pain.001.001.09 credit-transfer file.
 * See docs/sepa.md.
 */
export type * from './types.js';
export { SepaFileError } from './errors.js';
