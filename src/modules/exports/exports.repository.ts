import type { Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { DatevSettingsTable } from '../../db/schema.js';

export type DatevSettingsRow = Selectable<DatevSettingsTable>;

/**
 * The exports module's queries, each scoped by account (STYLE rule 3). It writes only its own
 * table (`datev_settings`); the export reads documents, payments, tax rates and files of the
 * account read-only (architecture.md: reads may join other modules' tables in a repository).
 */

export function findSettings(
  db: Executor,
  accountId: string,
): Promise<DatevSettingsRow | undefined> {
  return db
    .selectFrom('datev_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

export async function insertSettings(trx: Executor, row: DatevSettingsRow): Promise<void> {
  await trx.insertInto('datev_settings').values(row).execute();
}

/** The compare-and-set write: applied only where the stored version is `version`. */
export function updateSettings(
  trx: Executor,
  accountId: string,
  version: number,
  values: Omit<DatevSettingsRow, 'account_id' | 'version' | 'created_at'>,
): Promise<DatevSettingsRow | undefined> {
  return trx
    .updateTable('datev_settings')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** Which of `ids` are tax rates of the account. */
export async function existingTaxRateIds(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('tax_rates')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', [...ids])
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** A tax rate as the mapping check names it. */
export interface RateFacts {
  id: string;
  name: string;
  rate_bp: number;
  category: string;
}

export async function taxRates(db: Executor, accountId: string): Promise<RateFacts[]> {
  return db
    .selectFrom('tax_rates')
    .select(['id', 'name', 'rate_bp', 'category'])
    .where('account_id', '=', accountId)
    .execute();
}

/** What a booking needs of an invoice or credit note. */
export interface ExportDocumentRow {
  id: string;
  document_number: string | null;
  invoice_type: string;
  /** 1: a credit note that cancels its invoice in full (Stornorechnung). */
  storno: number;
  creation_date: string;
  partner_name: string | null;
  currency: string;
  tax_breakdown: string;
  gross_total: number;
  einvoice_parties: string | null;
  /** The stored PDF's storage key, when the PDF exists. */
  file_key: string | null;
  /** Its size in bytes (what the export reads ahead is bounded by it). */
  file_size: number | null;
}

/** Rows per query of the paged reads: bounded memory per step, few round trips. */
export const PAGE = 1000;

/** The documents the export books: FINAL invoices and credit notes Kontor issued. */
const bookedDocuments = (db: Executor, accountId: string) =>
  db
    .selectFrom('documents as d')
    .where('d.account_id', '=', accountId)
    .where('d.document_type', '=', 'INVOICE')
    .where('d.status', '=', 'FINAL')
    .where('d.source', '=', 'GENERATED');

/** The payments the export books: settled (MARKED) and linked to a booked document. */
const bookedPayments = (db: Executor, accountId: string) =>
  db
    .selectFrom('payments as p')
    .innerJoin('documents as d', (j) =>
      j.onRef('d.id', '=', 'p.document_id').onRef('d.account_id', '=', 'p.account_id'),
    )
    .where('p.account_id', '=', accountId)
    .where('p.status', '=', 'MARKED')
    .where('d.document_type', '=', 'INVOICE')
    .where('d.status', '=', 'FINAL')
    .where('d.source', '=', 'GENERATED');

/**
 * FINAL invoices and credit notes Kontor issued (GENERATED) dated `from..to`, in date order,
 * one page after the `after` key (`[creation_date, id]`). Uploaded documents are someone's
 * file (a purchase invoice as often as a sales one) and are not booked.
 */
export function issuedDocuments(
  db: Executor,
  accountId: string,
  from: string,
  to: string,
  after: [string, string] | null,
  limit = PAGE,
): Promise<ExportDocumentRow[]> {
  let q = bookedDocuments(db, accountId)
    .leftJoin('files as f', (j) =>
      j.onRef('f.id', '=', 'd.file_id').onRef('f.account_id', '=', 'd.account_id'),
    )
    .select([
      'd.id',
      'd.document_number',
      'd.invoice_type',
      'd.storno',
      'd.creation_date',
      'd.partner_name',
      'd.currency',
      'd.tax_breakdown',
      'd.gross_total',
      'd.einvoice_parties',
      'f.key as file_key',
      'f.size as file_size',
    ])
    .where('d.creation_date', '>=', from)
    .where('d.creation_date', '<=', to);
  if (after) {
    const [date, id] = after;
    q = q.where((eb) =>
      eb.or([
        eb('d.creation_date', '>', date),
        eb.and([eb('d.creation_date', '=', date), eb('d.id', '>', id)]),
      ]),
    );
  }
  return q.orderBy('d.creation_date').orderBy('d.id').limit(limit).execute();
}

/** What a booking needs of a payment. */
export interface ExportPaymentRow {
  id: string;
  direction: string;
  amount: number;
  currency: string;
  payment_date: string;
  partner_name: string | null;
  document_number: string | null;
  /** The parties frozen with the invoice paid: its debtor is the invoice's. */
  einvoice_parties: string | null;
}

/**
 * Settled (MARKED) payments dated `from..to` that are linked to an invoice or credit note
 * Kontor issued: money between the business and its customers on the debtor account. Other
 * payments (purchase invoices, unlinked money) are not debtor bookings.
 */
export function debtorPayments(
  db: Executor,
  accountId: string,
  from: string,
  to: string,
  after: [string, string] | null,
  limit = PAGE,
): Promise<ExportPaymentRow[]> {
  let q = bookedPayments(db, accountId)
    .select([
      'p.id',
      'p.direction',
      'p.amount',
      'p.currency',
      'p.payment_date',
      'p.partner_name',
      'd.document_number',
      'd.einvoice_parties',
    ])
    .where('p.payment_date', '>=', from)
    .where('p.payment_date', '<=', to);
  if (after) {
    const [date, id] = after;
    q = q.where((eb) =>
      eb.or([
        eb('p.payment_date', '>', date),
        eb.and([eb('p.payment_date', '=', date), eb('p.id', '>', id)]),
      ]),
    );
  }
  return q.orderBy('p.payment_date').orderBy('p.id').limit(limit).execute();
}

/** A booking's record whose stored date may be no calendar date (the export checks it). */
export interface DatedRecord {
  kind: 'document' | 'payment';
  id: string;
  number: string | null;
  date: string;
}

/**
 * The invoices, credit notes and debtor payments the export would book whose date text
 * starts with one of the years `fromYear..toYear` (`2026-13-45` does, and sorts after every
 * real date of 2026, so a period's `from..to` never finds it). The caller keeps those that
 * are no calendar date: rows written before dates were checked, or by hand.
 */
export async function recordsDatedInYears(
  db: Executor,
  accountId: string,
  fromYear: string,
  toYear: string,
): Promise<DatedRecord[]> {
  // From the first year's `YYYY-` to before the next year's: the bounds hold under any
  // collation, as the period's own `from..to` do.
  const low = `${fromYear}-`;
  const high = `${String(Number(toYear) + 1).padStart(4, '0')}-`;
  const documents = await bookedDocuments(db, accountId)
    .select(['d.id', 'd.document_number', 'd.creation_date'])
    .where('d.creation_date', '>=', low)
    .where('d.creation_date', '<', high)
    .execute();
  const payments = await bookedPayments(db, accountId)
    .select(['p.id', 'd.document_number', 'p.payment_date'])
    .where('p.payment_date', '>=', low)
    .where('p.payment_date', '<', high)
    .execute();
  return [
    ...documents.map((d) => ({
      kind: 'document' as const,
      id: d.id,
      number: d.document_number,
      date: d.creation_date,
    })),
    ...payments.map((p) => ({
      kind: 'payment' as const,
      id: p.id,
      number: p.document_number,
      date: p.payment_date,
    })),
  ];
}
