import type { Insertable, Selectable } from 'kysely';
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
  table: 'partners' | 'payments' | 'documents' | 'budget_categories',
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
