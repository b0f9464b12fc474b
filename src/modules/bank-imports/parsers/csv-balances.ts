/**
 * Balances of a German bank CSV: balance rows in the preamble or among the entries
 * (`Anfangssaldo`, `Endsaldo`, `Kontostand vom …`), a running balance column, the account
 * named in the preamble, and the statements built from all that.
 */
import { normaliseHeader } from './csv-columns.js';
import {
  type CsvRecord,
  balanceLabel,
  decideColumnSeparator,
  hasCurrencyMark,
  looksLikeAmount,
  parseDate,
  readAmount,
} from './csv-values.js';
import { type Layout, cellAt } from './csv-rows.js';
import { asIban, decimalToMinor } from './text.js';
import type { ParsedEntry, ParsedStatement } from './types.js';

export interface Balance {
  minor: number;
  date: string | null;
}

/** The entries of one account of the export. */
export interface Group {
  account: string | null;
  entries: ParsedEntry[];
  running: { balance: number; amount: number; date: string }[];
  currencies: Map<string, number>;
}

/** What a balance row says: its balance, or why its amount cannot be read. */
export type BalanceRow =
  | { kind: 'opening' | 'closing'; balance: Balance }
  | { kind: 'opening' | 'closing'; problem: string };

/**
 * A balance row (`Anfangssaldo`, `Endsaldo`, `Kontostand vom …`) → which one and its value.
 * The amount is a cell with a separator or a currency (`-0 EUR`); its number format is its
 * column's (a balance row among the entries) or, in a preamble, its own — exports write the
 * balance in another format than the amounts. A value that reads either way is a problem.
 */
export function readBalanceRow(row: string[], layout: Layout | null): BalanceRow | null {
  const labelIndex = row.findIndex((c) => balanceLabel(c) !== null);
  if (labelIndex < 0) return null;
  const label = row[labelIndex] ?? '';
  const kind = balanceLabel(label);
  if (!kind) return null;
  let date: string | null =
    layout && layout.col.bookingDate !== undefined
      ? parseDate(cellAt(row, layout.col.bookingDate))
      : null;
  const dateInLabel = /(\d{1,2}\.\d{1,2}\.\d{2,4})/.exec(label)?.[1];
  if (dateInLabel) date ??= parseDate(dateInLabel);
  const candidates: number[] = [];
  if (layout?.amount !== undefined) candidates.push(layout.amount);
  for (let i = labelIndex + 1; i < row.length; i++) candidates.push(i);
  for (let i = 0; i < labelIndex; i++) candidates.push(i);
  for (const index of candidates) {
    const cell = cellAt(row, index);
    if (cell === '' || parseDate(cell) || !looksLikeAmount(cell)) continue;
    const separated = /[.,]/.test(cell);
    if (!separated && !hasCurrencyMark(cell)) continue;
    const decided = layout?.numberColumns.get(index)?.decided ?? decideColumnSeparator([cell]);
    if (decided.separator === null && separated) {
      const name = label.trim().replace(/:$/, '');
      const problem = `balance "${name}" "${cell}" not read: its decimal separator is ambiguous (${decided.reason})`;
      return { kind, problem };
    }
    const read = readAmount(cell, decided.separator ?? ',');
    if (!read) continue;
    const minor = decimalToMinor(read.decimal, 'EUR');
    if (!minor.ok) continue;
    const marks = row.map((c) => c.trim().toUpperCase());
    const soll = read.indicator === 'S' || marks.includes('S') || marks.includes('SOLL');
    const negative = (soll || read.negative) && minor.minor !== 0;
    date ??= row.map((c) => parseDate(c)).find((d) => d !== null) ?? null;
    return { kind, balance: { minor: negative ? -minor.minor : minor.minor, date } };
  }
  return null;
}

/**
 * A balance row among the entries (VR-Bank `Anfangssaldo`, Deutsche Bank `Kontostand`) has
 * no counterparty and no purpose text (an amount may stand there); an entry whose purpose
 * reads just `Saldo` is an entry. Unmistakable labels (`Endsaldo`) count anywhere.
 */
export function isBare(row: string[], layout: Layout): boolean {
  const { col } = layout;
  const texts = [col.name, col.payer, col.payee, ...layout.purposes].map((i) => cellAt(row, i));
  return texts.every(
    (t) =>
      !/\p{L}/u.test(t) || (balanceLabel(t) !== null && !/^(saldo|kontostand):?$/i.test(t.trim())),
  );
}

/** The statement account named in a preamble: an IBAN, or `BLZ` + `Konto`. */
export function preambleAccount(rows: CsvRecord[]): string | null {
  let blz: string | null = null;
  let konto: string | null = null;
  for (const { cells } of rows) {
    for (const [i, cell] of cells.entries()) {
      const iban = /[A-Z]{2}\d{2}[A-Z0-9]{10,30}/.exec(cell.replace(/\s/g, ''))?.[0];
      if (iban && asIban(iban)) return iban;
      const label = normaliseHeader(cell);
      const next = (cells[i + 1] ?? '').trim();
      if (label === 'blz' && /^\d{8}$/.test(next)) blz = next;
      if (/^(konto|kontonummer|konto-nr\.?)$/.test(label) && /^\d+$/.test(next)) konto = next;
    }
  }
  if (konto) return blz ? `${blz}/${konto}` : konto;
  return null;
}

/**
 * Opening and closing from a running balance column (ING `Saldo`): in file order, ascending
 * or descending, whichever the balances themselves confirm (else the dates decide).
 */
function runningBalances(group: Group): { opening: Balance; closing: Balance } | null {
  const r = group.running;
  if (r.length === 0 || r.length !== group.entries.length) return null;
  const first = r[0];
  const last = r[r.length - 1];
  if (!first || !last) return null;
  let ascending = true;
  let descending = true;
  for (let i = 1; i < r.length; i++) {
    const prev = r[i - 1];
    const cur = r[i];
    if (!prev || !cur) continue;
    if (cur.balance !== prev.balance + cur.amount) ascending = false;
    if (prev.balance !== cur.balance + prev.amount) descending = false;
  }
  const oldestFirst = ascending || (!descending && first.date <= last.date);
  const oldest = oldestFirst ? first : last;
  const newest = oldestFirst ? last : first;
  return {
    opening: { minor: oldest.balance - oldest.amount, date: oldest.date },
    closing: { minor: newest.balance, date: newest.date },
  };
}

/** True when `iban` is the statement's own account (an IBAN, or German `BLZ/Konto`). */
function isOwnAccount(account: string | null, iban: string | null): boolean {
  if (!account || !iban) return false;
  if (account === iban) return true;
  const m = /^(\d{8})\/(\d{1,10})$/.exec(account);
  return (
    m !== null &&
    iban.startsWith('DE') &&
    iban.slice(4) === `${m[1]}${(m[2] ?? '').padStart(10, '0')}`
  );
}

export function buildStatements(
  groups: Map<string, Group>,
  preambleAccountId: string | null,
  opening: Balance | null,
  closing: Balance | null,
): ParsedStatement[] {
  const list = [...groups.values()];
  if (list.length === 0) {
    list.push({ account: null, entries: [], running: [], currencies: new Map() });
  }
  const single = list.length === 1;
  return list.map((group) => {
    const currency = [...group.currencies.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'EUR';
    const running = runningBalances(group);
    // Stated balances belong to the one account of the export; several accounts get none.
    const open = single ? (opening ?? running?.opening ?? null) : (running?.opening ?? null);
    const close = single ? (closing ?? running?.closing ?? null) : (running?.closing ?? null);
    const account = group.account ?? (single ? preambleAccountId : null);
    for (const entry of group.entries) {
      // Some exports fill the counterparty IBAN column with the account's own IBAN.
      if (isOwnAccount(account, entry.counterpartyIban)) entry.counterpartyIban = null;
    }
    return {
      format: 'CSV',
      statementId: null,
      account,
      currency,
      openingBalanceMinor: open?.minor ?? null,
      openingDate: open?.date ?? null,
      closingBalanceMinor: close?.minor ?? null,
      closingDate: close?.date ?? null,
      entries: group.entries,
    };
  });
}
