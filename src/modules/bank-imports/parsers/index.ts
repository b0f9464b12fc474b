import { AppError } from '../../../shared/errors.js';
import { parseCamt } from './camt.js';
import { parseGermanCsv } from './csv.js';
import { detectFormat } from './detect.js';
import { parseMt940 } from './mt940.js';
import type { ParseOptions, ParseResult, StatementFormat } from './types.js';

export * from './types.js';
export { detectFormat } from './detect.js';
export { parseCamt } from './camt.js';
export { parseMt940 } from './mt940.js';
export { parseGermanCsv } from './csv.js';

const LABELS: Record<StatementFormat, string> = {
  MT940: 'MT940',
  CAMT052: 'camt.052',
  CAMT053: 'camt.053',
  CAMT054: 'camt.054',
  CSV: 'CSV',
};

/**
 * Reads a bank statement file of any supported format (decisions §11): the format is
 * detected from the content, then the file is parsed. Answers `{format, statements, errors}`;
 * throws 422 `file_unprocessable` with a reason when the file is not a statement or holds
 * no statement at all (a parser's `errors` say why). Bad single entries are `errors` items,
 * never exceptions.
 */
export function parseStatementFile(bytes: Buffer, options: ParseOptions = {}): ParseResult {
  const format = detectFormat(bytes);
  let result: ParseResult;
  switch (format) {
    case 'MT940':
      result = parseMt940(bytes);
      break;
    case 'CSV':
      result = parseGermanCsv(bytes, options);
      break;
    case 'CAMT052':
    case 'CAMT053':
    case 'CAMT054':
      result = parseCamt(bytes);
      break;
  }
  if (result.statements.length === 0) {
    const reasons = result.errors
      .slice(0, 3)
      .map((error) => error.message)
      .join(' ');
    throw new AppError(
      'file_unprocessable',
      `The ${LABELS[format]} file contains no statement${reasons ? `: ${reasons}` : '.'}`,
    );
  }
  return result;
}
