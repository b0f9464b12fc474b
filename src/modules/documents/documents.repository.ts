import { sql, type Selectable } from 'kysely';
import type { Transaction } from 'kysely';
import {
  compiledOnce,
  insertAudited,
  recordQueries,
  type AuditedInsert,
  type Executor,
  type Guard,
} from '../../db/records.js';
import type { DB, DocumentsTable, InvoiceNumberingTable } from '../../db/schema.js';
import { containsText, isPostgres } from '../../db/dialect.js';
import { searchText } from '../../http/pagination.js';
import { systemClock } from '../../shared/clock.js';
import { isoDate } from '../../shared/dates.js';
import { deferFirst, deferRead, type Later } from '../../db/transactions.js';

export type DocumentRow = Selectable<DocumentsTable>;

/**
 * A new document's history: never analysed, finalized, sent, dunned, paid or overdue; version 1.
 * Every row a create writes starts from it (a document, a credit note's draft).
 */
export const NEW_DOCUMENT_HISTORY = {
  processing_error: null,
  page_count: null,
  analysis: null,
  finalized_at: null,
  sent_at: null,
  sent_to: null,
  sent_delivery: null,
  dunning_level: 0,
  last_dunned_at: null,
  dunning_blocked: 0,
  paid_at: null,
  overdue_at: null,
  quote_status: null,
  quote_decided_at: null,
  quote_decided_by: null,
  // Kept by the database's triggers; a new row has no payments, credit notes or deductions.
  settled_net_minor: 0,
  credit_notes_minor: 0,
  deducted_minor: 0,
  version: 1,
} satisfies Partial<DocumentRow>;
const records = recordQueries('documents');

/** What an invoice's derived `paymentStatus` and `overdue` are computed from (decisions §7). */
export interface PaymentFigures {
  /** MARKED payments linked to it in its currency, incoming minus outgoing, in minor units. */
  settled_minor: number;
  /** The gross total of the FINAL credit notes against it, in minor units. */
  credited_minor: number;
  /** The day `overdue` is judged on (YYYY-MM-DD). */
  as_of: string;
}
/** A credit note's invoice: its number and date, as reads answer them. */
export interface PrecedingFigures {
  preceding_number: string | null;
  preceding_date: string | null;
}
/** A row as reads answer it: with its figures (optional, so rows built in code fit too). */
export type DocumentWithFigures = DocumentRow & Partial<PaymentFigures> & Partial<PrecedingFigures>;

/** Today (UTC) by the system clock, for callers that do not pass their own clock's day. */
export const todayUtc = () => isoDate(systemClock.now());

/**
 * Attaches the payment figures to rows with ONE aggregate query over the payments of all
 * the invoices among them (indexed by account and document), however many rows there are.
 */
export async function withPaymentFigures<R extends DocumentRow>(
  db: Executor,
  accountId: string,
  rows: R[],
  today: string = todayUtc(),
): Promise<(R & PaymentFigures & PrecedingFigures)[]> {
  const invoiceIds = rows.filter((r) => r.document_type === 'INVOICE').map((r) => r.id);
  const settled = new Map<string, number>();
  if (invoiceIds.length > 0) {
    const sums = await db
      .selectFrom('payments')
      .select([
        'document_id',
        'currency',
        sql<number | string>`sum(case when direction = 'INCOMING' then amount else -amount end)`.as(
          'net',
        ),
      ])
      .where('account_id', '=', accountId)
      .where('document_id', 'in', invoiceIds)
      .where('status', '=', 'MARKED')
      .groupBy(['document_id', 'currency'])
      .execute();
    // PostgreSQL answers sum(bigint) as numeric, which arrives as a string.
    for (const s of sums) settled.set(`${s.document_id}|${s.currency}`, Number(s.net));
  }
  // What credit notes took off the FINAL invoices among them (their open amount): one query.
  const finalIds = rows
    .filter((r) => r.document_type === 'INVOICE' && r.status === 'FINAL')
    .filter((r) => r.invoice_type !== 'CREDIT_NOTE')
    .map((r) => r.id);
  const credited = await creditedTotals(db, accountId, finalIds);
  const preceding = await precedingOf(db, accountId, rows);
  return rows.map((r) => ({
    ...r,
    settled_minor: settled.get(`${r.id}|${r.currency}`) ?? 0,
    credited_minor: credited.get(r.id) ?? 0,
    as_of: today,
    ...precedingFigures(preceding, r),
  }));
}

type Preceding = Map<string, { number: string | null; date: string }>;

/** A credit note answers its invoice's number and date (BT-25/26): one query for the page. */
async function precedingOf(
  db: Executor,
  accountId: string,
  rows: readonly DocumentRow[],
): Promise<Preceding> {
  const ids = [
    ...new Set(rows.map((r) => r.preceding_document_id).filter((id): id is string => !!id)),
  ];
  const preceding: Preceding = new Map();
  if (ids.length > 0)
    for (const p of await db
      .selectFrom('documents')
      .select(['id', 'document_number', 'creation_date'])
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute())
      preceding.set(p.id, { number: p.document_number, date: p.creation_date });
  return preceding;
}

function precedingFigures(preceding: Preceding, row: DocumentRow): PrecedingFigures {
  const p = row.preceding_document_id ? preceding.get(row.preceding_document_id) : undefined;
  return { preceding_number: p?.number ?? null, preceding_date: p?.date ?? null };
}

/** A row just written, with its figures (`withPaymentFigures`). */
async function oneWithFigures(
  db: Executor,
  accountId: string,
  row: DocumentRow | undefined,
  today?: string,
): Promise<DocumentWithFigures | undefined> {
  return row && (await withPaymentFigures(db, accountId, [row], today))[0];
}

/** A stored invoice line: amounts in integer minor units, the rate in basis points. */
export interface StoredLine {
  productId: string | null;
  description: string;
  /** Thousandths of a unit (1.5 → 1500). */
  quantityMilli: number;
  unitPriceMinor: number;
  taxRateId: string;
  rateBp: number;
  netMinor: number;
  /** VAT category of the rate when priced (absent on lines stored before issue 10: S). */
  taxCategory?: string;
  /** UN/ECE Rec. 20 unit (absent before issue 10: C62). */
  unitCode?: string;
}

export interface StoredTaxLine {
  taxRateId: string;
  rateBp: number;
  netMinor: number;
  taxMinor: number;
  /** VAT category, exemption reason (BT-120) and VATEX code (BT-121) of the rate when priced. */
  category?: string;
  exemptionReason?: string | null;
  exemptionCode?: string | null;
}

/** Document queries; every one is scoped by account (STYLE rule 3). */

export async function insertDocument(trx: Executor, row: DocumentRow): Promise<void> {
  await trx.insertInto('documents').values(row).execute();
}

/**
 * PostgreSQL: the new row and its audit event as one statement (`insertAudited`), sent with the
 * transaction's COMMIT; answers whether it wrote.
 */
export function insertDocumentAudited(
  trx: Transaction<DB>,
  row: DocumentRow,
  write: AuditedInsert,
): Promise<() => Promise<boolean>> {
  return insertAudited(trx, 'documents', row, write);
}

/** Many new rows, a couple of hundred per statement (within the bound-parameter limits). */
export async function insertDocuments(trx: Executor, rows: readonly DocumentRow[]): Promise<void> {
  for (let from = 0; from < rows.length; from += 200)
    await trx
      .insertInto('documents')
      .values(rows.slice(from, from + 200))
      .execute();
}

/** The document with its payment figures; `today` (YYYY-MM-DD) judges `overdue`. */
export async function findDocument(
  db: Executor,
  accountId: string,
  id: string,
  today: string = todayUtc(),
): Promise<DocumentWithFigures | undefined> {
  return figured((await db.executeQuery(readWithPreceding(db, accountId, id))).rows[0], today);
}

/** `findDocument` started now, answered later (`deferFirst`). */
export async function findDocumentLater(
  db: Executor,
  accountId: string,
  id: string,
  today: string = todayUtc(),
): Promise<Later<DocumentWithFigures | undefined>> {
  const found = await deferFirst(db, readWithPreceding(db, accountId, id));
  return async () => figured(await found(), today);
}

/** A row as read, with its figures as its row keeps them, as of `today`. */
function figured(row: DocumentRow, today: string): DocumentRow & PaymentFigures;
function figured(
  row: DocumentRow | undefined,
  today: string,
): (DocumentRow & PaymentFigures) | undefined;
function figured(
  row: DocumentRow | undefined,
  today: string,
): (DocumentRow & PaymentFigures) | undefined {
  return row && { ...row, ...storedFigures(row), as_of: today };
}

/**
 * The payment figures of a row read from the database, from the columns its triggers keep
 * (migration 0039): as `withPaymentFigures` sums them from the payments and credit notes, which
 * `documents.figures.test.ts` holds them to. Settled amounts count on invoices only; credit notes
 * on FINAL invoices that are not credit notes themselves.
 */
function storedFigures(row: DocumentRow): Omit<PaymentFigures, 'as_of'> {
  const invoice = row.document_type === 'INVOICE';
  return {
    settled_minor: invoice ? row.settled_net_minor : 0,
    credited_minor:
      invoice && row.status === 'FINAL' && row.invoice_type !== 'CREDIT_NOTE'
        ? row.credit_notes_minor
        : 0,
  };
}

/** A document with its preceding invoice's number and date (joined by key), one statement. */
const readWithPreceding = compiledOnce((db: Executor, accountId: string, id: string) =>
  db
    .selectFrom('documents')
    .leftJoin('documents as preceding', (join) =>
      join
        .onRef('preceding.account_id', '=', 'documents.account_id')
        .onRef('preceding.id', '=', 'documents.preceding_document_id'),
    )
    .selectAll('documents')
    .select([
      'preceding.document_number as preceding_number',
      'preceding.creation_date as preceding_date',
    ])
    .where('documents.account_id', '=', accountId)
    .where('documents.id', '=', id),
);

/**
 * Rows with their figures as the rows keep them (`storedFigures`) and, for credit notes, their
 * invoices' numbers and dates in one query: rows read from the database (a list's page), or
 * built in code (a new row keeps zeros, and nothing references it yet).
 */
export async function withStoredFigures(
  db: Executor,
  accountId: string,
  rows: DocumentRow[],
  today: string,
): Promise<(DocumentRow & PaymentFigures & PrecedingFigures)[]> {
  const preceding = await precedingOf(db, accountId, rows);
  return rows.map((r) => ({
    ...r,
    ...storedFigures(r),
    as_of: today,
    ...precedingFigures(preceding, r),
  }));
}

/**
 * The invoices (document_type INVOICE) among `ids`, with their payment figures as their rows
 * keep them: read after a payment write in the same transaction, the rows already hold what the
 * database's triggers counted of it.
 */
export async function findInvoices(
  db: Executor,
  accountId: string,
  ids: readonly string[],
  today?: string,
): Promise<(DocumentRow & PaymentFigures & PrecedingFigures)[]> {
  if (ids.length === 0) return [];
  const rows = await invoicesAmong(db, accountId, ids).execute();
  return withStoredFigures(db, accountId, rows, today ?? todayUtc());
}

/** The invoices (document_type INVOICE) among `ids`. */
function invoicesAmong(db: Executor, accountId: string, ids: readonly string[]) {
  return db
    .selectFrom('documents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', [...new Set(ids)])
    .where('document_type', '=', 'INVOICE');
}

/**
 * The invoices among `ids` with their payment figures as their rows keep them (not their
 * preceding invoices'), the read started now and answered later (`deferRead`: in a PostgreSQL
 * write it may go out with the COMMIT, its answer wanted after it).
 */
export async function findInvoicesLater(
  db: Executor,
  accountId: string,
  ids: readonly string[],
  today: string,
): Promise<Later<(DocumentRow & PaymentFigures)[]>> {
  if (ids.length === 0) return () => Promise.resolve([]);
  const rows = await deferRead(db, invoicesAmong(db, accountId, ids));
  return async () => (await rows()).map((row) => figured(row, today));
}

export const documentVersion = records.version;

/**
 * Whether a row's kept figures still hold after an update writing `values`: yes unless it writes
 * the currency (the triggers then recompute them in the new currency). Updates write the
 * currency only when it changes.
 */
export const keepsFigures = (values: Partial<DocumentRow>): boolean =>
  values.currency === undefined;

/**
 * The compare-and-set update (version and guard, e.g. `{ status: 'DRAFT' }`), bumping version.
 * The row it answers carries its figures as it keeps them, unless the update wrote its currency
 * (`keepsFigures`): then they are summed, as SQLite answers the row before its trigger
 * recomputed them.
 */
export async function updateDocument(
  db: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<DocumentRow>,
  guard: Guard = {},
): Promise<DocumentWithFigures | undefined> {
  const row = await records.update(db, accountId, id, version, values, guard);
  if (row === undefined || !keepsFigures(values)) return oneWithFigures(db, accountId, row);
  return (await withStoredFigures(db, accountId, [row], todayUtc()))[0];
}

export const deleteDocument = records.remove;

/**
 * Writes system-derived fields (the rendered PDF, page count, processing state). They are not
 * the client's to edit, but they change what the document answers, so `version` and
 * `updatedAt` move with them (issue 11): an ETag or a cached copy never hides a new PDF.
 */
export async function setDerived(
  db: Executor,
  accountId: string,
  id: string,
  values: Partial<
    Pick<
      DocumentRow,
      | 'file_id'
      | 'file_type'
      | 'pdf_sha256'
      | 'page_count'
      | 'analysis'
      | 'processing_status'
      | 'processing_error'
      // Filled from an uploaded e-invoice (documents.intake.ts), only on drafts:
      | 'document_number'
      | 'creation_date'
      | 'due_date'
      | 'currency'
      | 'net_total'
      | 'tax_total'
      | 'gross_total'
      | 'invoice_type'
      | 'partner_id'
      | 'partner_name'
      | 'search_name'
    >
  >,
  guard: { fileIdIsNull?: boolean; draft?: boolean } = {},
): Promise<DocumentWithFigures | undefined> {
  let query = db
    .updateTable('documents')
    .set((eb) => ({
      ...values,
      version: eb('version', '+', 1),
      updated_at: systemClock.now().toISOString(),
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id);
  if (guard.fileIdIsNull) query = query.where('file_id', 'is', null);
  if (guard.draft) query = query.where('status', '=', 'DRAFT');
  return oneWithFigures(db, accountId, await query.returningAll().executeTakeFirst());
}

/**
 * The next number of the account's sequence for a type and year, taken in the caller's
 * transaction: one upsert that creates the row or increments it and answers the new value;
 * concurrent finalizers serialise on the row (SQLite ≥ 3.35 and PostgreSQL).
 */
export async function nextSequenceValue(
  trx: Executor,
  accountId: string,
  documentType: string,
  year: number,
): Promise<number> {
  const row = await trx
    .insertInto('document_sequences')
    .values({ account_id: accountId, document_type: documentType, year, last_value: 1 })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'document_type', 'year'])
        .doUpdateSet((eb) => ({ last_value: eb('document_sequences.last_value', '+', 1) })),
    )
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return Number(row.last_value);
}

/** Whether a document of the account already uses this number for this type. */
export async function numberTaken(
  db: Executor,
  accountId: string,
  documentType: string,
  number: string,
  exceptId?: string,
): Promise<boolean> {
  let query = db
    .selectFrom('documents')
    .select('id')
    .where('account_id', '=', accountId)
    .where('document_type', '=', documentType)
    .where('document_number', '=', number);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export interface DocumentFilter {
  limit: number;
  afterId?: string;
  documentType?: string;
  status?: string;
  source?: string;
  partnerId?: string;
  contractId?: string;
  from?: string;
  to?: string;
  q?: string;
  /** Only FINAL invoices: open (neither paid nor cancelled), or settled (paid or cancelled). */
  open?: boolean;
  /** Only open FINAL invoices: past their due date on `today`, or not. */
  overdue?: boolean;
  /** Only invoices whose `paymentStatus` is one of these (the presenter's rule, in SQL). */
  paymentStatus?: readonly ('UNPAID' | 'PARTIAL' | 'PAID')[];
  /** Only FINAL invoices (not credit notes): cancelled by a Storno (true), or not (false). */
  cancelled?: boolean;
  /** Only FINAL quotes with this outcome; an OPEN quote past `valid_until` counts as EXPIRED. */
  quoteStatus?: 'OPEN' | 'ACCEPTED' | 'DECLINED' | 'EXPIRED';
  /** The day `overdue` is judged on (YYYY-MM-DD); default today by the system clock. */
  today?: string;
}

/**
 * Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists.
 * The payment figures of the page are the rows' own (`withStoredFigures`).
 */
export async function listDocuments(
  db: Executor,
  accountId: string,
  f: DocumentFilter,
): Promise<DocumentWithFigures[]> {
  let query = db.selectFrom('documents').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.documentType !== undefined) query = query.where('document_type', '=', f.documentType);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.source !== undefined) query = query.where('source', '=', f.source);
  if (f.partnerId !== undefined) query = query.where('partner_id', '=', f.partnerId);
  if (f.contractId !== undefined) query = query.where('contract_id', '=', f.contractId);
  if (f.from !== undefined) query = query.where('creation_date', '>=', f.from);
  if (f.to !== undefined) query = query.where('creation_date', '<=', f.to);
  if (f.open !== undefined || f.overdue !== undefined)
    query = query
      .where('document_type', '=', 'INVOICE')
      .where('invoice_type', '=', 'INVOICE')
      .where('status', '=', 'FINAL');
  const open = f.overdue !== undefined ? true : f.open;
  if (open === true)
    query = query.where('paid_at', 'is', null).where('cancelled_by_document_id', 'is', null);
  if (open === false)
    query = query.where((eb) =>
      eb.or([eb('paid_at', 'is not', null), eb('cancelled_by_document_id', 'is not', null)]),
    );
  if (f.cancelled !== undefined)
    query = query
      .where('document_type', '=', 'INVOICE')
      .where('invoice_type', '=', 'INVOICE')
      .where('status', '=', 'FINAL')
      .where('cancelled_by_document_id', f.cancelled ? 'is not' : 'is', null);
  if (f.paymentStatus !== undefined) {
    const statuses = f.paymentStatus;
    query = query
      .where('document_type', '=', 'INVOICE')
      .where((eb) => eb.or(statuses.map(paymentStatusIs)));
  }
  const today = f.today ?? todayUtc();
  // Past due, written so that no index takes it as a range on due_date: the page is the newest
  // open invoices by id (the open index, which holds the due date), not every invoice ever due
  // read by due date and sorted (paid ones too, on the dunning index). Null is never overdue.
  if (f.overdue === true)
    query = query.where(sql<string>`coalesce(due_date, '9999-12-31')`, '<', today);
  if (f.overdue === false)
    query = query.where((eb) => eb.or([eb('due_date', 'is', null), eb('due_date', '>=', today)]));
  if (f.quoteStatus !== undefined) {
    query = query.where('document_type', '=', 'QUOTE').where('status', '=', 'FINAL');
    if (f.quoteStatus === 'OPEN')
      query = query
        .where('quote_status', '=', 'OPEN')
        .where((eb) => eb.or([eb('valid_until', 'is', null), eb('valid_until', '>=', today)]));
    else if (f.quoteStatus === 'EXPIRED')
      query = query.where((eb) =>
        eb.or([
          eb('quote_status', '=', 'EXPIRED'),
          eb.and([eb('quote_status', '=', 'OPEN'), eb('valid_until', '<', today)]),
        ]),
      );
    else query = query.where('quote_status', '=', f.quoteStatus);
  }
  if (f.q !== undefined) {
    const text = searchText(f.q);
    const raw = f.q;
    query = query.where((eb) =>
      eb.or([containsText('search_name', text), eb('document_number', '=', raw)]),
    );
  }
  const rows = await query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
  return withStoredFigures(db, accountId, rows, f.today ?? todayUtc());
}

/** The settled net's magnitude, from the column the triggers keep, for a filtered page. */
const settledMagnitude = sql<number>`abs(documents.settled_net_minor)`;

/** `paymentStatus` as the presenter derives it (`paymentState`), as a condition. */
function paymentStatusIs(status: 'UNPAID' | 'PARTIAL' | 'PAID') {
  // A final invoice asks for its gross total less what it deducts (`document_deductions`, its
  // sum kept in the row: 0 for every other document).
  const asked = sql<number>`(abs(documents.gross_total) - documents.deducted_minor)`;
  if (status === 'UNPAID') return sql<boolean>`(${settledMagnitude} = 0 and ${asked} > 0)`;
  if (status === 'PARTIAL')
    return sql<boolean>`(${settledMagnitude} > 0 and ${settledMagnitude} < ${asked})`;
  return sql<boolean>`${settledMagnitude} >= ${asked}`;
}

/** Documents of the account that reference a file, by status. */
export async function documentsUsingFile(
  db: Executor,
  accountId: string,
  fileId: string,
): Promise<{ id: string; status: string }[]> {
  return db
    .selectFrom('documents')
    .select(['id', 'status'])
    .where('account_id', '=', accountId)
    .where('file_id', '=', fileId)
    .execute();
}

/**
 * Takes a FINAL document's write lock for the rest of the transaction (a no-op UPDATE: a row
 * lock on PostgreSQL; SQLite serialises writers anyway), so credit notes of one invoice are
 * checked against what remains, and payments of one invoice judged paid, one at a time.
 * Answers the row.
 */
export async function lockFinalDocument(
  trx: Executor,
  accountId: string,
  id: string,
): Promise<DocumentRow | undefined> {
  return trx
    .updateTable('documents')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'FINAL')
    .returningAll()
    .executeTakeFirst();
}

/**
 * `lockFinalDocument` for many documents at once (at most a few hundred ids: one statement),
 * answering the FINAL ones in id order. On PostgreSQL the rows are locked in id order
 * (`FOR NO KEY UPDATE`, the lock the no-op UPDATE takes: payments referencing them can still
 * be inserted), so writers locking ascending runs never wait on each other crosswise; SQLite
 * serialises writers anyway.
 */
export async function lockFinalDocuments(
  trx: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<DocumentRow[]> {
  if (ids.length === 0) return [];
  const query = trx
    .selectFrom('documents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', '=', 'FINAL')
    .orderBy('id');
  return (isPostgres(trx) ? query.forNoKeyUpdate() : query).execute();
}

/** The gross totals of the FINAL credit notes of these invoices, per invoice, in minor units. */
export async function creditedTotals(
  db: Executor,
  accountId: string,
  invoiceIds: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (invoiceIds.length === 0) return out;
  const rows = await db
    .selectFrom('documents')
    .select(['preceding_document_id', sql<number | string>`sum(gross_total)`.as('credited')])
    .where('account_id', '=', accountId)
    .where('preceding_document_id', 'in', invoiceIds)
    .where('invoice_type', '=', 'CREDIT_NOTE')
    .where('status', '=', 'FINAL')
    .groupBy('preceding_document_id')
    .execute();
  for (const r of rows) out.set(r.preceding_document_id!, Number(r.credited));
  return out;
}

/** The gross total of the FINAL credit notes of an invoice, in minor units. */
export async function creditedTotal(
  db: Executor,
  accountId: string,
  invoiceId: string,
): Promise<number> {
  return (await creditedTotals(db, accountId, [invoiceId])).get(invoiceId) ?? 0;
}

/** Marks a FINAL invoice as cancelled by a credit note, once (compare-and-set on the mark). */
export async function markCancelled(
  trx: Executor,
  accountId: string,
  id: string,
  creditNoteId: string,
  now: Date,
): Promise<DocumentWithFigures | undefined> {
  const row = await trx
    .updateTable('documents')
    .set((eb) => ({
      cancelled_by_document_id: creditNoteId,
      version: eb('version', '+', 1),
      updated_at: now.toISOString(),
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('status', '=', 'FINAL')
    .where('cancelled_by_document_id', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return oneWithFigures(trx, accountId, row);
}

/** The last value given by a sequence (0 when none was given yet), without taking one. */
export async function sequenceValue(
  db: Executor,
  accountId: string,
  documentType: string,
  year: number,
): Promise<number> {
  const row = await db
    .selectFrom('document_sequences')
    .select('last_value')
    .where('account_id', '=', accountId)
    .where('document_type', '=', documentType)
    .where('year', '=', year)
    .executeTakeFirst();
  return Number(row?.last_value ?? 0);
}

/** Unscoped: a background job's document, by the id its payload carries (the job is the account's). */
export function findDocumentOfJob(db: Executor, id: string): Promise<DocumentRow | undefined> {
  return db.selectFrom('documents').selectAll().where('id', '=', id).executeTakeFirst();
}

/** An invoice a dunning run may dun, with what its partner says about dunning. */
export interface DunnableInvoiceRow extends DocumentRow {
  /** 1 consumer, 0 business, null not known (or no partner linked). */
  partner_consumer: number | null;
}

/**
 * A page of an account's invoices a dunning run looks at, by id: FINAL
 * invoices Kontor issued (not credit notes, not cancelled) due before `asOf`, neither they nor
 * their partner blocked from dunning, below `maxLevel`, without a SEPA collection under way (a
 * PENDING incoming DIRECT_DEBIT payment). Whether one is still open is judged
 * with its payment figures and credit notes.
 */
export async function dunnableInvoices(
  db: Executor,
  accountId: string,
  f: {
    asOf: string;
    maxLevel: number;
    afterId?: string;
    limit: number;
    /** Only these invoices (a run limited to chosen letters); all when left out. */
    ids?: readonly string[];
  },
): Promise<DunnableInvoiceRow[]> {
  if (f.ids?.length === 0) return [];
  let query = db
    .selectFrom('documents as d')
    .leftJoin('partners as p', (join) =>
      join.onRef('p.id', '=', 'd.partner_id').onRef('p.account_id', '=', 'd.account_id'),
    )
    .selectAll('d')
    .select('p.consumer as partner_consumer')
    .where('d.account_id', '=', accountId)
    .where('d.document_type', '=', 'INVOICE')
    .where('d.status', '=', 'FINAL')
    .where('d.invoice_type', '=', 'INVOICE')
    // Invoices Kontor issued: an uploaded one is a supplier's bill, never dunned.
    .where('d.source', '=', 'GENERATED')
    .where('d.cancelled_by_document_id', 'is', null)
    .where('d.due_date', '<', f.asOf)
    .where('d.dunning_blocked', '=', 0)
    .where('d.dunning_level', '<', f.maxLevel)
    .where((eb) => eb.or([eb('p.dunning_blocked', 'is', null), eb('p.dunning_blocked', '=', 0)]))
    // A SEPA collection under way (its PENDING direct-debit payment) is not dunned meanwhile.
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('payments as pm')
            .select('pm.id')
            .whereRef('pm.account_id', '=', 'd.account_id')
            .whereRef('pm.document_id', '=', 'd.id')
            .where('pm.status', '=', 'PENDING')
            .where('pm.direction', '=', 'INCOMING')
            .where('pm.payment_method', '=', 'DIRECT_DEBIT'),
        ),
      ),
    );
  if (f.afterId !== undefined) query = query.where('d.id', '>', f.afterId);
  if (f.ids !== undefined) query = query.where('d.id', 'in', f.ids);
  return query.orderBy('d.id').limit(f.limit).execute();
}

/**
 * Records that these invoices reached a dunning level on a day, those still standing at
 * `step.from` (another run got to the others first); moves `version` like every system-derived
 * field. Answers the ids it moved.
 */
export async function recordDunnings(
  trx: Executor,
  accountId: string,
  ids: readonly string[],
  step: { from: number; to: number; on: string; at: string },
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('documents')
    .set((eb) => ({
      dunning_level: step.to,
      last_dunned_at: step.on,
      version: eb('version', '+', 1),
      updated_at: step.at,
    }))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('dunning_level', '=', step.from)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** Of the partners of `rows`, those whose dunning is blocked. */
async function blockedPartners(
  trx: Executor,
  accountId: string,
  rows: readonly DocumentRow[],
): Promise<Set<string>> {
  const partnerIds = [
    ...new Set(rows.map((r) => r.partner_id).filter((id): id is string => id !== null)),
  ];
  if (partnerIds.length === 0) return new Set();
  const blocked = await trx
    .selectFrom('partners')
    .select('id')
    .where('account_id', '=', accountId)
    .where('id', 'in', partnerIds)
    .where('dunning_blocked', '=', 1)
    .execute();
  return new Set(blocked.map((r) => r.id));
}

/** A FINAL invoice locked for a dunning letter, with what its re-check needs. */
export interface LockedForDunning extends DocumentRow {
  /** Settled MARKED payments in the invoice's currency, minor units. */
  settled_minor: number;
  /** FINAL credit notes correcting it, minor units. */
  credited_minor: number;
  partner_blocked: boolean;
  /** A PENDING incoming direct debit: a SEPA collection under way. */
  collecting: boolean;
}

/**
 * The re-check of a dunning run's chunk, in its transaction: takes the write lock of each of
 * these FINAL invoices (in id order), then reads for all of
 * them in one query what `openFigures` reads for one, and whether a SEPA collection is under
 * way. Invoices that are gone or not FINAL are not in the answer.
 */
export async function lockForDunning(
  trx: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<LockedForDunning[]> {
  if (ids.length === 0) return [];
  const sorted = [...ids].sort();
  // PostgreSQL: row locks without writing a new version of each row; SQLite: the no-op update
  // takes the database's write lock before the reads (it has no row locks).
  const locked = isPostgres(trx)
    ? await trx
        .selectFrom('documents')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('id', 'in', sorted)
        .where('status', '=', 'FINAL')
        .orderBy('id')
        .forUpdate()
        .execute()
    : await trx
        .updateTable('documents')
        .set((eb) => ({ version: eb.ref('version') }))
        .where('account_id', '=', accountId)
        .where('id', 'in', sorted)
        .where('status', '=', 'FINAL')
        .returningAll()
        .execute();
  if (locked.length === 0) return [];
  const lockedIds = locked.map((r) => r.id);
  // Every payment of these invoices, summed per kind: by (account, document) only, so the
  // planner takes that index (a status or currency term makes SQLite prefer the dashboard's
  // index, which scans all the account's MARKED payments for each invoice).
  const payments = await trx
    .selectFrom('payments')
    .select([
      'document_id',
      'currency',
      'status',
      'direction',
      'payment_method',
      sql<number | string>`sum(amount)`.as('amount'),
    ])
    .where('account_id', '=', accountId)
    .where('document_id', 'in', lockedIds)
    .groupBy(['document_id', 'currency', 'status', 'direction', 'payment_method'])
    .execute();
  const credited = await creditedTotals(trx, accountId, lockedIds);
  const blocked = await blockedPartners(trx, accountId, locked);
  const currencyOf = new Map(locked.map((r) => [r.id, r.currency]));
  const settled = new Map<string, number>();
  const collecting = new Set<string>();
  for (const p of payments) {
    const id = p.document_id!;
    if (p.status === 'MARKED' && p.currency === currencyOf.get(id))
      settled.set(
        id,
        (settled.get(id) ?? 0) + (p.direction === 'INCOMING' ? 1 : -1) * Number(p.amount),
      );
    if (p.status === 'PENDING' && p.direction === 'INCOMING' && p.payment_method === 'DIRECT_DEBIT')
      collecting.add(id);
  }
  return locked
    .map((row) => ({
      ...row,
      settled_minor: settled.get(row.id) ?? 0,
      credited_minor: credited.get(row.id) ?? 0,
      partner_blocked: row.partner_id !== null && blocked.has(row.partner_id),
      collecting: collecting.has(row.id),
    }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Sets or clears when invoices became paid, moving `version` like every derived field (at most
 * a few hundred ids: one statement). Answers the ids updated.
 */
export async function setPaidAtMany(
  trx: Executor,
  accountId: string,
  ids: readonly string[],
  paidAt: string | null,
  now: Date,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await trx
    .updateTable('documents')
    .set((eb) => ({
      paid_at: paidAt,
      version: eb('version', '+', 1),
      updated_at: now.toISOString(),
    }))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * A page of FINAL invoices of every account that fell due before `today` and are neither
 * paid, cancelled nor announced as overdue yet (the partial index holds exactly those).
 */
export function newlyOverdue(
  db: Executor,
  today: string,
  f: { afterId?: string; limit: number },
): Promise<DocumentRow[]> {
  let query = db
    .selectFrom('documents')
    .selectAll()
    .where('document_type', '=', 'INVOICE')
    .where('status', '=', 'FINAL')
    .where('invoice_type', '=', 'INVOICE')
    .where('cancelled_by_document_id', 'is', null)
    .where('paid_at', 'is', null)
    .where('overdue_at', 'is', null)
    .where('due_date', '<', today);
  if (f.afterId !== undefined) query = query.where('id', '>', f.afterId);
  return query.orderBy('id').limit(f.limit).execute();
}

/** Marks an invoice as announced overdue, once: false when another run got there first. */
export async function markOverdue(
  trx: Executor,
  accountId: string,
  id: string,
  today: string,
): Promise<boolean> {
  const result = await trx
    .updateTable('documents')
    .set({ overdue_at: today })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('overdue_at', 'is', null)
    // Paid or cancelled since the scan read it: not overdue after all.
    .where('paid_at', 'is', null)
    .where('cancelled_by_document_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * What a dunning letter re-checks in its transaction, in one round trip: the invoice's settled
 * MARKED payments in its currency, its FINAL credit notes, and whether its partner is blocked
 * from dunning.
 */
export async function openFigures(
  db: Executor,
  invoice: Pick<DocumentRow, 'account_id' | 'id' | 'currency' | 'partner_id'>,
): Promise<{ settledMinor: number; creditedMinor: number; partnerBlocked: boolean }> {
  const { rows } = await sql<{
    settled: number | string;
    credited: number | string;
    partner_blocked: number | string | null;
  }>`select
      (select coalesce(sum(case when direction = 'INCOMING' then amount else -amount end), 0)
         from payments where account_id = ${invoice.account_id} and document_id = ${invoice.id}
           and status = 'MARKED' and currency = ${invoice.currency}) as settled,
      (select coalesce(sum(gross_total), 0) from documents
         where account_id = ${invoice.account_id} and preceding_document_id = ${invoice.id}
           and invoice_type = 'CREDIT_NOTE' and status = 'FINAL') as credited,
      (select dunning_blocked from partners
         where account_id = ${invoice.account_id} and id = ${invoice.partner_id}) as partner_blocked`.execute(
    db,
  );
  const r = rows[0]!;
  return {
    settledMinor: Number(r.settled),
    creditedMinor: Number(r.credited),
    partnerBlocked: Number(r.partner_blocked ?? 0) === 1,
  };
}

export type NumberingRow = Selectable<InvoiceNumberingTable>;

/** The account's saved number formats (none: the defaults). */
export function findNumbering(db: Executor, accountId: string): Promise<NumberingRow | undefined> {
  return db
    .selectFrom('invoice_numbering')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** The first save; undefined when a concurrent first save won (the caller answers 409). */
export function insertNumbering(
  trx: Executor,
  row: NumberingRow,
): Promise<NumberingRow | undefined> {
  return trx
    .insertInto('invoice_numbering')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** The compare-and-set write: applied only where the stored version is `version`. */
export function updateNumbering(
  trx: Executor,
  accountId: string,
  version: number,
  values: Pick<NumberingRow, 'invoice_format' | 'credit_note_format' | 'updated_at'>,
): Promise<NumberingRow | undefined> {
  return trx
    .updateTable('invoice_numbering')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/**
 * FINAL quotes still OPEN whose `valid_until` lies before `today`, across accounts (the
 * expiry schedule), by id.
 */
export function expiredOpenQuotes(
  db: Executor,
  today: string,
  f: { afterId?: string; limit: number },
): Promise<DocumentRow[]> {
  let query = db
    .selectFrom('documents')
    .selectAll()
    .where('document_type', '=', 'QUOTE')
    .where('status', '=', 'FINAL')
    .where('quote_status', '=', 'OPEN')
    .where('valid_until', '<', today);
  if (f.afterId !== undefined) query = query.where('id', '>', f.afterId);
  return query.orderBy('id').limit(f.limit).execute();
}

/**
 * Moves a FINAL quote out of OPEN, once (compare-and-set on `quote_status`): undefined when
 * it is not OPEN any more (another decision or the expiry got there first).
 */
export async function closeQuote(
  trx: Executor,
  accountId: string,
  id: string,
  values: Pick<
    DocumentRow,
    'quote_status' | 'quote_decided_at' | 'quote_decided_by' | 'updated_at'
  >,
): Promise<DocumentWithFigures | undefined> {
  const row = await trx
    .updateTable('documents')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('document_type', '=', 'QUOTE')
    .where('status', '=', 'FINAL')
    .where('quote_status', '=', 'OPEN')
    .returningAll()
    .executeTakeFirst();
  return oneWithFigures(trx, accountId, row);
}

/** The ids of the documents converted from each of `ids`, oldest first. */
export async function convertedFrom(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, string[]>> {
  const map = new Map<string, string[]>();
  if (ids.length === 0) return map;
  const rows = await db
    .selectFrom('documents')
    .select(['id', 'origin_document_id'])
    .where('account_id', '=', accountId)
    .where('origin_document_id', 'in', [...ids])
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  for (const r of rows) {
    const list = map.get(r.origin_document_id!) ?? [];
    list.push(r.id);
    map.set(r.origin_document_id!, list);
  }
  return map;
}

/**
 * The FINAL invoices (not credit notes, not cancelled, not paid) of these contracts, by id:
 * what a collection of contract invoices looks at. Whether each is still open is judged with
 * its payment figures.
 */
export async function unpaidInvoiceIdsOfContracts(
  db: Executor,
  accountId: string,
  contractIds: string[],
): Promise<string[]> {
  if (contractIds.length === 0) return [];
  const rows = await db
    .selectFrom('documents')
    .select('id')
    .where('account_id', '=', accountId)
    .where('contract_id', 'in', contractIds)
    .where('document_type', '=', 'INVOICE')
    .where('invoice_type', '=', 'INVOICE')
    .where('status', '=', 'FINAL')
    .where('paid_at', 'is', null)
    .where('cancelled_by_document_id', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * The down-payment invoices (`billing_role` DOWN_PAYMENT) converted from any of `originIds`,
 * oldest first, with their payment figures.
 */
export async function downPaymentsOf(
  db: Executor,
  accountId: string,
  originIds: readonly string[],
  today?: string,
): Promise<(DocumentRow & PaymentFigures & PrecedingFigures)[]> {
  if (originIds.length === 0) return [];
  const rows = await db
    .selectFrom('documents')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('origin_document_id', 'in', [...originIds])
    .where('billing_role', '=', 'DOWN_PAYMENT')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return withPaymentFigures(db, accountId, rows, today);
}

/**
 * Writes the rows of what a final invoice deducts (`document_deductions`), in the transaction
 * that makes it FINAL: one per down payment, in its order, with the gross it takes off.
 */
export async function insertDeductions(
  trx: Executor,
  accountId: string,
  finalDocumentId: string,
  deductions: readonly { documentId: string; grossMinor: number }[],
  now: string,
): Promise<void> {
  if (deductions.length === 0) return;
  await trx
    .insertInto('document_deductions')
    .values(
      deductions.map((d, position) => ({
        account_id: accountId,
        final_document_id: finalDocumentId,
        down_payment_document_id: d.documentId,
        position,
        gross_minor: d.grossMinor,
        created_at: now,
      })),
    )
    .execute();
}

/**
 * The FINAL, not cancelled final invoices that deduct the down-payment invoice
 * `downPaymentId`, oldest first: by the index on the down payment.
 */
export function finalInvoicesDeducting(
  db: Executor,
  accountId: string,
  downPaymentId: string,
): Promise<Pick<DocumentRow, 'id' | 'document_number'>[]> {
  return db
    .selectFrom('document_deductions as dd')
    .innerJoin('documents as d', (j) =>
      j.onRef('d.account_id', '=', 'dd.account_id').onRef('d.id', '=', 'dd.final_document_id'),
    )
    .select(['d.id', 'd.document_number'])
    .where('dd.account_id', '=', accountId)
    .where('dd.down_payment_document_id', '=', downPaymentId)
    .where('d.status', '=', 'FINAL')
    .where('d.cancelled_by_document_id', 'is', null)
    .orderBy('d.created_at')
    .execute();
}
