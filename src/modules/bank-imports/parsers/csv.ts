/**
 * German online-banking CSV exports. The header row is found by its column names (after
 * any preamble); the delimiter is decided per file, the number format per amount column and
 * per balance (exports mix `-12,34` and `1234.56 EUR`; what reads either way is refused).
 * The sign comes from an S/H column, separate Soll/Haben amount columns or one signed column
 * read per `incomingPaymentTerm`. Balance rows (`Anfangssaldo`, `Endsaldo`, `Kontostand …`)
 * in the preamble or trailer, or a running balance column, give the statement's balances.
 */
import { AppError } from '../../../shared/errors.js';
import {
  type Balance,
  type BalanceRow,
  type Group,
  buildStatements,
  isBare,
  preambleAccount,
  readBalanceRow,
} from './csv-balances.js';
import { isEntryHeader, mapColumns } from './csv-columns.js';
import { type Header, amountOf, cellAt, decideLayout, readEntry } from './csv-rows.js';
import { readRecords } from './csv-values.js';
import { decodeText } from './text.js';
import type { ParseError, ParseOptions, ParseResult } from './types.js';

const DELIMITERS = [';', ',', '\t'] as const;
const HEADER_SEARCH_ROWS = 80;

/** The row that names the columns: most recognised names, needing a date and an amount. */
function findHeader(text: string): Header | null {
  let found: Header | null = null;
  for (const delimiter of DELIMITERS) {
    const rows = readRecords(text, delimiter, HEADER_SEARCH_ROWS);
    for (const [index, row] of rows.entries()) {
      if (row.cells.length < 2) continue;
      const map = mapColumns(row.cells);
      if (!isEntryHeader(map)) continue;
      if (!found || map.score > found.map.score) {
        found = { delimiter, index, map, cells: row.cells };
      }
      break;
    }
  }
  return found;
}

/**
 * Parses a German online-banking CSV export. Never throws for one bad row (it becomes an
 * `errors` item with its line); throws `file_unprocessable` when no header row with a date
 * and an amount column is found, or when no row at all can be read.
 */
export function parseGermanCsv(bytes: Buffer, options: ParseOptions = {}): ParseResult {
  const term = options.incomingPaymentTerm ?? 'HABEN';
  const { text } = decodeText(bytes);
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
  const header = findHeader(clean);
  if (!header) {
    throw new AppError(
      'file_unprocessable',
      'No CSV header row with a booking date and an amount column was found (looked for columns such as Buchungstag/Buchungsdatum/Datum and Betrag/Umsatz/Soll/Haben).',
    );
  }
  const records = readRecords(clean, header.delimiter);
  const preamble = records.slice(0, header.index);
  const rows = records.slice(header.index + 1);
  const layout = decideLayout(header, rows);
  const errors: ParseError[] = [];
  const groups = new Map<string, Group>();
  let opening: Balance | null = null;
  let closing: Balance | null = null;
  // The first opening and the last closing count; an unreadable one is a problem, not a guess.
  const takeBalance = (found: BalanceRow, line: number): void => {
    if ('problem' in found) errors.push({ line, message: found.problem });
    else if (found.kind === 'opening') opening ??= found.balance;
    else closing = found.balance;
  };
  for (const row of preamble) {
    const found = readBalanceRow(row.cells, null);
    if (found) takeBalance(found, row.line);
  }
  const running = layout.col.runningBalance;
  const runningColumn = running === undefined ? undefined : layout.numberColumns.get(running);
  if (runningColumn && runningColumn.decided.separator === null) {
    errors.push({
      message: `running balances not read: the decimal separator of column "${runningColumn.name}" is ambiguous (${runningColumn.decided.reason})`,
    });
  }
  let dataRows = 0;
  let unreadable = 0;
  for (const record of rows) {
    const { cells, line } = record;
    if (cells.every((c) => c.trim() === '')) continue;
    const found = isBare(cells, layout) ? readBalanceRow(cells, layout) : null;
    if (found) {
      takeBalance(found, line);
      continue;
    }
    dataRows++;
    const entry = readEntry(cells, layout, term);
    if (typeof entry === 'string') {
      unreadable++;
      errors.push({ line, message: entry });
      continue;
    }
    if (/vorgemerkt|pending|ausstehend|nicht gebucht/i.test(cellAt(cells, layout.col.status))) {
      errors.push({ line, message: 'pending entry (not booked yet) left out' });
      continue;
    }
    const account = cellAt(cells, layout.col.ownAccount).replace(/\s/g, '') || null;
    const key = account ?? '';
    let group = groups.get(key);
    if (!group) {
      group = { account, entries: [], running: [], currencies: new Map() };
      groups.set(key, group);
    }
    group.entries.push(entry);
    group.currencies.set(entry.currency, (group.currencies.get(entry.currency) ?? 0) + 1);
    const balance = amountOf(cellAt(cells, running), layout, running, entry.currency);
    if (typeof balance === 'number') {
      group.running.push({ balance, amount: entry.amountMinor, date: entry.bookingDate });
    }
  }
  if (dataRows > 0 && unreadable === dataRows) {
    const first = errors[0];
    throw new AppError(
      'file_unprocessable',
      `None of the ${dataRows} CSV rows could be read (line ${first?.line ?? '?'}: ${first?.message ?? 'unreadable'}).`,
    );
  }
  const statements = buildStatements(groups, preambleAccount(preamble), opening, closing);
  return { format: 'CSV', statements, errors };
}
