import { sql, type Insertable, type Selectable } from 'kysely';
import type { Transaction } from 'kysely';
import { insertChunked, recordQueries, type Executor } from '../../db/records.js';
import type { BankImportsTable, BankImportTransactionsTable, DB } from '../../db/schema.js';

export type ImportRow = Selectable<BankImportsTable>;
export type TransactionRow = Selectable<BankImportTransactionsTable>;

const imports = recordQueries('bank_imports');

/** Ids per `IN (…)` list. */
const CHUNK = 500;

/** The staged lines of an import. */
export async function insertLines(
  trx: Executor,
  rows: Insertable<DB['bank_import_transactions']>[],
): Promise<void> {
  await insertChunked(trx, 'bank_import_transactions', rows, 22);
}

/** The ledger of imported lines (what makes a re-import of the same line a duplicate). */
export async function insertLedger(
  trx: Executor,
  rows: Insertable<DB['imported_transactions']>[],
): Promise<void> {
  await insertChunked(trx, 'imported_transactions', rows, 8);
}

/** The lines the user accepted, in statement order. */
export function acceptedLines(
  trx: Transaction<DB>,
  importId: string,
): Promise<Selectable<BankImportTransactionsTable>[]> {
  return trx
    .selectFrom('bank_import_transactions')
    .selectAll()
    .where('import_id', '=', importId)
    .where('decision', '=', 'ACCEPTED')
    .orderBy('idx')
    .execute();
}

/** Which of `ids` still exist in the account's `table` (suggested records may be gone). */
export async function existingIds(
  trx: Transaction<DB>,
  table: 'partners' | 'payments' | 'documents' | 'budget_categories' | 'sepa_runs',
  accountId: string,
  ids: string[],
): Promise<string[]> {
  const found: string[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await trx
      .selectFrom(table)
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) found.push(r.id);
  }
  return found;
}

export const findImport = imports.find;
export const importVersion = imports.version;
export const updateImport = imports.update;

export function findActive(db: Executor, accountId: string): Promise<ImportRow | undefined> {
  return db
    .selectFrom('bank_imports')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'ACTIVE')
    .executeTakeFirst();
}

export interface TransactionFilter {
  limit: number;
  afterIndex?: number;
  decision?: 'ACCEPTED' | 'REJECTED' | 'UNDECIDED';
  duplicate?: boolean;
}

/** Transactions by index; `limit + 1` rows so the caller can tell whether more exist. */
export function listTransactions(
  db: Executor,
  accountId: string,
  importId: string,
  f: TransactionFilter,
): Promise<TransactionRow[]> {
  let query = db
    .selectFrom('bank_import_transactions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('import_id', '=', importId);
  if (f.afterIndex !== undefined) query = query.where('idx', '>', f.afterIndex);
  if (f.decision === 'UNDECIDED') query = query.where('decision', 'is', null);
  else if (f.decision !== undefined) query = query.where('decision', '=', f.decision);
  if (f.duplicate !== undefined)
    query = query.where('duplicate_of', f.duplicate ? 'is not' : 'is', null);
  return query
    .orderBy('idx')
    .limit(f.limit + 1)
    .execute();
}

export interface Counts {
  accepted: number;
  rejected: number;
  duplicates: number;
}

export async function countDecisions(
  db: Executor,
  accountId: string,
  importId: string,
): Promise<Counts> {
  const row = await db
    .selectFrom('bank_import_transactions')
    .select((eb) => [
      eb.fn
        .sum<number | string>(eb.case().when('decision', '=', 'ACCEPTED').then(1).else(0).end())
        .as('accepted'),
      eb.fn
        .sum<number | string>(eb.case().when('decision', '=', 'REJECTED').then(1).else(0).end())
        .as('rejected'),
      eb.fn.count<number | string>('duplicate_of').as('duplicates'),
    ])
    .where('account_id', '=', accountId)
    .where('import_id', '=', importId)
    .executeTakeFirstOrThrow();
  return {
    accepted: Number(row.accepted ?? 0),
    rejected: Number(row.rejected ?? 0),
    duplicates: Number(row.duplicates ?? 0),
  };
}

/** The ledger rows of identities already booked (in chunks: IN lists stay small). */
export async function bookedIdentities(
  db: Executor,
  accountId: string,
  identities: string[],
): Promise<Map<string, { import_id: string; idx: number; payment_id: string | null }>> {
  const found = new Map<string, { import_id: string; idx: number; payment_id: string | null }>();
  for (let i = 0; i < identities.length; i += CHUNK) {
    const rows = await db
      .selectFrom('imported_transactions')
      .select(['identity', 'import_id', 'idx', 'payment_id'])
      .where('account_id', '=', accountId)
      .where('identity', 'in', identities.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) found.set(r.identity, r);
  }
  return found;
}

export function deleteTransactions(trx: Executor, importId: string): Promise<unknown> {
  return trx.deleteFrom('bank_import_transactions').where('import_id', '=', importId).execute();
}

/** The imports made from a file: id, status and when each was finalized. */
export function importsOfFile(
  db: Executor,
  accountId: string,
  fileId: string,
): Promise<Pick<ImportRow, 'id' | 'status' | 'finalized_at' | 'updated_at'>[]> {
  return db
    .selectFrom('bank_imports')
    .select(['id', 'status', 'finalized_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('file_id', '=', fileId)
    .orderBy('id')
    .execute();
}

/** Deletes DISCARDED imports (and any staged line left of them); answers their ids. */
export async function deleteDiscardedImports(
  trx: Executor,
  accountId: string,
  ids: string[],
): Promise<string[]> {
  if (ids.length === 0) return [];
  await trx
    .deleteFrom('bank_import_transactions')
    .where('account_id', '=', accountId)
    .where('import_id', 'in', ids)
    .execute();
  const deleted = await trx
    .deleteFrom('bank_imports')
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where('status', '=', 'DISCARDED')
    .returning('id')
    .execute();
  return deleted.map((r) => r.id);
}

/**
 * What a statement's lines are matched against (suggestions.ts): the account's partners, the
 * IBANs earlier imports booked to a partner (oldest first), payments awaiting a statement (open
 * ones, and those recorded by hand as settled), open invoices with
 * what is paid of them, and active budget categories.
 */
export async function matchingCandidates(db: Executor, accountId: string) {
  const [partners, ibans, payments, invoices, categories] = await Promise.all([
    db.selectFrom('partners').select(['id', 'name']).where('account_id', '=', accountId).execute(),
    db
      .selectFrom('imported_transactions as t')
      .innerJoin('partners as p', 'p.id', 't.partner_id')
      .select(['t.counterparty_iban', 'p.id', 'p.name', 't.created_at'])
      .where('t.account_id', '=', accountId)
      .where('t.counterparty_iban', 'is not', null)
      .orderBy('t.created_at')
      .execute(),
    db
      .selectFrom('payments')
      .select([
        'id',
        'direction',
        'amount',
        'currency',
        'partner_id',
        'partner_name',
        'document_number',
        'payment_date',
        'status',
      ])
      .where('account_id', '=', accountId)
      // What the payments module lets a line settle (its markImported): PENDING, or recorded
      // by hand as settled and not yet confirmed by a statement — never booked twice.
      .where((eb) =>
        eb.or([
          eb('status', '=', 'PENDING'),
          eb.and([
            eb('status', '=', 'MARKED'),
            eb('source', '=', 'MANUAL'),
            eb('import_id', 'is', null),
          ]),
        ]),
      )
      .execute(),
    db
      .selectFrom('documents as d')
      .select([
        'd.id',
        'd.document_number',
        'd.currency',
        'd.partner_id',
        'd.partner_name',
        'd.gross_total',
        (eb) =>
          eb
            .selectFrom('payments as p')
            .select(sql<number | string>`coalesce(sum(p.amount), 0)`.as('paid'))
            .whereRef('p.document_id', '=', 'd.id')
            .where('p.account_id', '=', accountId)
            .where('p.status', '=', 'MARKED')
            .where('p.direction', '=', 'INCOMING')
            .as('paid'),
        // A final invoice asks for its gross total less the down payments it deducts.
        (eb) =>
          eb
            .selectFrom('document_deductions as dd')
            .select(sql<number | string>`coalesce(sum(dd.gross_minor), 0)`.as('prepaid'))
            .whereRef('dd.final_document_id', '=', 'd.id')
            .where('dd.account_id', '=', accountId)
            .as('prepaid'),
      ])
      .where('d.account_id', '=', accountId)
      .where('d.document_type', '=', 'INVOICE')
      // Credit notes and cancelled invoices (Storno) are not open receivables.
      .where('d.invoice_type', '=', 'INVOICE')
      .where('d.cancelled_by_document_id', 'is', null)
      .where('d.status', '=', 'FINAL')
      .where('d.document_number', 'is not', null)
      .execute(),
    db
      .selectFrom('budget_categories')
      .select(['id', 'name', 'keywords', 'currency'])
      .where('account_id', '=', accountId)
      .where('active', '=', 1)
      .execute(),
  ]);
  return { partners, ibans, payments, invoices, categories };
}

export async function insertImport(trx: Executor, row: ImportRow): Promise<void> {
  await trx.insertInto('bank_imports').values(row).execute();
}

/** A staged line's decision so far (null: undecided), or undefined when there is no such line. */
export function findLine(
  trx: Executor,
  importId: string,
  idx: number,
): Promise<{ decision: string | null } | undefined> {
  return trx
    .selectFrom('bank_import_transactions')
    .select('decision')
    .where('import_id', '=', importId)
    .where('idx', '=', idx)
    .executeTakeFirst();
}

export async function decideLine(
  trx: Executor,
  importId: string,
  idx: number,
  decision: string,
): Promise<void> {
  await trx
    .updateTable('bank_import_transactions')
    .set({ decision })
    .where('import_id', '=', importId)
    .where('idx', '=', idx)
    .execute();
}

/** What finalize booked, kept on the import. */
export function setImportResult(trx: Executor, id: string, result: unknown): Promise<ImportRow> {
  return trx
    .updateTable('bank_imports')
    .set({ result: JSON.stringify(result) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}
