import { sql, type Kysely } from 'kysely';
import {
  DOCUMENT_DATE_MAX,
  DOCUMENT_DATE_MIN,
  isIsoDate,
  isoDate,
  latestDocumentDate,
} from '../shared/dates.js';
import type { DB } from './schema.js';

/**
 * The stored dates the API refuses today but may have accepted before dates were checked
 * (`2026-02-30`, `2026-13-45`, a credit note of 1900), or that someone wrote by hand: what
 * `kontor doctor` lists and what every start counts (docs/operations.md, "Dates").
 */

/** A date-only column: its table, the columns that name a row, whether it is a document's. */
interface DateColumn {
  table: keyof DB;
  key: string[];
  column: string;
  /** `own`: a document's date (2000-01-01 to one year ahead); `document`: 2000 to 2099. */
  range?: 'own' | 'document';
}

const DATE_COLUMNS: DateColumn[] = [
  { table: 'documents', key: ['id'], column: 'creation_date', range: 'own' },
  ...['due_date', 'delivery_date', 'service_period_from', 'service_period_to'].map(
    (column): DateColumn => ({ table: 'documents', key: ['id'], column, range: 'document' }),
  ),
  { table: 'payments', key: ['id'], column: 'payment_date' },
  ...[
    'start_date',
    'end_date',
    'cancellation_deadline',
    'next_renewal_date',
    'billing_next_date',
  ].map((column): DateColumn => ({ table: 'contracts', key: ['id'], column })),
  ...['period_start', 'period_end', 'invoice_date'].map((column): DateColumn => ({
    table: 'contract_invoices',
    key: ['contract_id', 'period_start'],
    column,
  })),
  { table: 'notes', key: ['id'], column: 'due_date' },
  { table: 'budget_entries', key: ['id'], column: 'entry_date' },
  { table: 'cash_anchors', key: ['account_id'], column: 'effective_date' },
  { table: 'bank_imports', key: ['id'], column: 'period_from' },
  { table: 'bank_imports', key: ['id'], column: 'period_to' },
  ...['booking_date', 'value_date'].map((column): DateColumn => ({
    table: 'bank_import_transactions',
    key: ['import_id', 'idx'],
    column,
  })),
  { table: 'dunning_notices', key: ['invoice_id', 'level'], column: 'as_of' },
];

/** One stored date the API would refuse. */
export interface BadDate {
  table: string;
  /** The row's id (or its key columns joined by `/`). */
  id: string;
  accountId: string;
  column: string;
  value: string;
  reason: string;
}

const MONTHS = Array.from({ length: 12 }, (_, i) => String(i + 1).padStart(2, '0'));

/**
 * The rows worth a look, chosen by the database: anything not shaped like a date of a month
 * 01–12 and a day 01–28, and for documents anything outside their range. Days 29–31 come too
 * (`2026-02-30`); the calendar check in JavaScript decides, so a large table costs one scan
 * and few rows, not all of them.
 */
function suspicious(c: DateColumn, latest: string) {
  const col = sql.ref(c.column);
  const range =
    c.range === undefined
      ? sql`false`
      : sql`${col} < ${DOCUMENT_DATE_MIN} or ${col} > ${c.range === 'own' ? latest : DOCUMENT_DATE_MAX}`;
  return sql<boolean>`${col} is not null and (
    length(${col}) <> 10 or ${col} not like '____-__-__'
    or substr(${col}, 6, 2) not in (${sql.join(MONTHS)})
    or substr(${col}, 9, 2) < '01' or substr(${col}, 9, 2) > '28'
    or ${range})`;
}

/** Why `value` of `c` is refused, or undefined when it is a good date after all. */
function problemOf(c: DateColumn, value: string, latest: string): string | undefined {
  if (!isIsoDate(value)) return 'not a calendar date';
  if (c.range === undefined) return undefined;
  const max = c.range === 'own' ? latest : DOCUMENT_DATE_MAX;
  if (value < DOCUMENT_DATE_MIN || value > max)
    return `outside ${DOCUMENT_DATE_MIN} to ${max}${c.range === 'own' ? ' (one year after today)' : ''}`;
  return undefined;
}

/** Credit notes dated before the invoice they correct. */
async function creditNotesBeforeInvoice(
  db: Kysely<DB>,
  accountId: string | undefined,
): Promise<BadDate[]> {
  let q = db
    .selectFrom('documents as cn')
    .innerJoin('documents as inv', (j) =>
      j
        .onRef('inv.id', '=', 'cn.preceding_document_id')
        .onRef('inv.account_id', '=', 'cn.account_id'),
    )
    .select(['cn.id', 'cn.account_id', 'cn.creation_date', 'inv.creation_date as invoice_date'])
    .where('cn.invoice_type', '=', 'CREDIT_NOTE')
    .whereRef('cn.creation_date', '<', 'inv.creation_date');
  if (accountId !== undefined) q = q.where('cn.account_id', '=', accountId);
  return (await q.execute()).map((r) => ({
    table: 'documents',
    id: r.id,
    accountId: r.account_id,
    column: 'creation_date',
    value: r.creation_date,
    reason: `before ${r.invoice_date}, the date of the invoice it corrects`,
  }));
}

/**
 * Every stored date the API would refuse: impossible dates in every date column, documents
 * outside their range, credit notes before their invoice; of one account or of all.
 */
export async function findBadDates(
  db: Kysely<DB>,
  now: Date,
  accountId?: string,
): Promise<BadDate[]> {
  const latest = latestDocumentDate(isoDate(now));
  const out: BadDate[] = [];
  for (const c of DATE_COLUMNS) {
    const rows = await sql<Record<string, string>>`
      select ${sql.join(c.key.map((k) => sql.ref(k)))}, account_id, ${sql.ref(c.column)} as value
      from ${sql.table(c.table)}
      where ${suspicious(c, latest)}
      ${accountId === undefined ? sql`` : sql`and account_id = ${accountId}`}`.execute(db);
    for (const row of rows.rows) {
      const reason = problemOf(c, row.value!, latest);
      if (reason === undefined) continue;
      out.push({
        table: c.table,
        id: c.key.map((k) => String(row[k])).join('/'),
        accountId: row.account_id!,
        column: c.column,
        value: row.value!,
        reason,
      });
    }
  }
  return [...out, ...(await creditNotesBeforeInvoice(db, accountId))];
}
