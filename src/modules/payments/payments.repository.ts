import type { ColumnType, ExpressionBuilder, Kysely, Selectable } from 'kysely';
import { containsText } from '../../db/dialect.js';
import { insertChunked, recordQueries, type Executor, type Guard } from '../../db/records.js';
import type { DB, PaymentsTable } from '../../db/schema.js';
import { deferInsert } from '../../db/transactions.js';
import { searchText } from '../../http/pagination.js';

/**
 * The payments table with its `search_text` column (migration 0010), typed here so this module
 * does not depend on whether `schema.ts` lists it yet.
 */
type PaymentsTableWithSearch = Omit<PaymentsTable, 'search_text'> & {
  search_text: ColumnType<string, string | undefined, string>;
};
interface PaymentsDB extends Omit<DB, 'payments'> {
  payments: PaymentsTableWithSearch;
}
const typed = (db: Executor) => db as unknown as Kysely<PaymentsDB>;

export type PaymentRow = Selectable<PaymentsTableWithSearch>;
const records = recordQueries('payments');

/** What `q` searches: the folded partner name, contract name and document number. */
export function paymentSearchText(
  row: Pick<PaymentRow, 'partner_name' | 'contract_name' | 'document_number'>,
): string {
  return [row.partner_name, row.contract_name, row.document_number]
    .filter((v): v is string => v !== null && v.length > 0)
    .map(searchText)
    .join('\n');
}

/** Payment queries; every one is scoped by account (STYLE rule 3) unless it says why not. */

/**
 * A new row, deferred (`deferInsert`): on PostgreSQL it goes out with the transaction's next
 * statement (the settlement's read of a MARKED payment's invoice, else the COMMIT), its failure
 * (a provider id taken, a link deleted meanwhile) reported there, in the same transaction. Every
 * payment's create (by hand, a SEPA run, a provider's webhook) writes through it; each maps
 * those failures for its whole transaction.
 */
export async function insertPayment(trx: Executor, row: PaymentRow): Promise<void> {
  await deferInsert(trx, typed(trx).insertInto('payments').values(row));
}

/** Many new rows at once (a bank statement's lines). */
export async function insertPayments(trx: Executor, rows: PaymentRow[]): Promise<void> {
  await insertChunked(trx, 'payments', rows, 23);
}

/**
 * What a statement line may settle instead of booking a second payment: a PENDING payment, or
 * one recorded by hand as settled (MARKED, MANUAL) that no statement has confirmed yet.
 */
function awaitsStatement(eb: ExpressionBuilder<PaymentsDB, 'payments'>) {
  return eb.or([
    eb('status', '=', 'PENDING'),
    eb.and([eb('status', '=', 'MARKED'), eb('source', '=', 'MANUAL'), eb('import_id', 'is', null)]),
  ]);
}

/**
 * Books imported lines onto payments that await a statement (`awaitsStatement`): MARKED, with
 * the import's id; one already MARKED by hand keeps its `markedAt`. At most a few hundred ids
 * (one statement). Answers the payments it booked with their invoices; one that no longer
 * awaits a statement is left out.
 */
export async function markImported(
  trx: Executor,
  accountId: string,
  ids: readonly string[],
  importId: string,
  at: string,
): Promise<{ id: string; document_id: string | null }[]> {
  if (ids.length === 0) return [];
  return typed(trx)
    .updateTable('payments')
    .set((eb) => ({
      status: 'MARKED',
      marked_at: eb.fn.coalesce('marked_at', eb.val(at)),
      import_id: importId,
      updated_at: at,
      version: eb('version', '+', 1),
    }))
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .where(awaitsStatement)
    .returning(['id', 'document_id'])
    .execute();
}

export const findPayment = (db: Executor, accountId: string, id: string) =>
  records.find(db, accountId, id) as Promise<PaymentRow | undefined>;

/** The payments of these ids in the account, by id (500 per query); missing ids are absent. */
export async function findPayments(
  db: Executor,
  accountId: string,
  ids: readonly string[],
): Promise<Map<string, PaymentRow>> {
  const found = new Map<string, PaymentRow>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await typed(db)
      .selectFrom('payments')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of rows) found.set(row.id, row);
  }
  return found;
}

export const paymentVersion = records.version;

/** The compare-and-set update (version and guard), bumping version. */
export const updatePayment = (
  db: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<PaymentRow>,
  guard: Guard = {},
) => records.update(db, accountId, id, version, values, guard) as Promise<PaymentRow | undefined>;

/** Deletes when the version matches (any version when `version` is undefined). */
export const deletePayment = (
  db: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
) => records.remove(db, accountId, id, version) as Promise<PaymentRow | undefined>;

/**
 * The payment a provider id names, in whichever account holds it. Deliberately unscoped: the
 * signed provider webhook knows the provider's id, not the account (decisions §10), and the
 * id is unique across accounts. Never reachable with a caller-chosen account.
 */
export function findPaymentByProviderId(
  db: Executor,
  providerPaymentIntentId: string,
): Promise<PaymentRow | undefined> {
  return typed(db)
    .selectFrom('payments')
    .selectAll()
    .where('provider_payment_intent_id', '=', providerPaymentIntentId)
    .executeTakeFirst();
}

/**
 * The account that owns a partner. Unscoped for the same reason as above: a provider event
 * creates its payment "in the account that owns partnerId" (decisions §10).
 */
export async function accountOfPartner(
  db: Executor,
  partnerId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('partners')
    .select('account_id')
    .where('id', '=', partnerId)
    .executeTakeFirst();
  return row?.account_id;
}

export async function accountExists(db: Executor, accountId: string): Promise<boolean> {
  const row = await db
    .selectFrom('accounts')
    .select('id')
    .where('id', '=', accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Minor-unit bounds of an amount filter, per number of currency decimals. */
export interface AmountBounds {
  /** Currencies with this many decimals, and the bounds in their minor units. */
  groups: { currencies: string[]; min?: number; max?: number }[];
}

export interface PaymentFilter {
  limit: number;
  afterId?: string;
  direction?: string;
  status?: string;
  source?: string;
  currency?: string;
  partnerId?: string;
  contractId?: string;
  documentId?: string;
  from?: string;
  to?: string;
  amounts?: AmountBounds;
  q?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export function listPayments(
  db: Executor,
  accountId: string,
  f: PaymentFilter,
): Promise<PaymentRow[]> {
  let query = typed(db).selectFrom('payments').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.direction !== undefined) query = query.where('direction', '=', f.direction);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.source !== undefined) query = query.where('source', '=', f.source);
  if (f.currency !== undefined) query = query.where('currency', '=', f.currency);
  if (f.partnerId !== undefined) query = query.where('partner_id', '=', f.partnerId);
  if (f.contractId !== undefined) query = query.where('contract_id', '=', f.contractId);
  if (f.documentId !== undefined) query = query.where('document_id', '=', f.documentId);
  if (f.from !== undefined) query = query.where('payment_date', '>=', f.from);
  if (f.to !== undefined) query = query.where('payment_date', '<=', f.to);
  if (f.q !== undefined) query = query.where(containsText('search_text', searchText(f.q)));
  const amounts = f.amounts;
  if (amounts !== undefined)
    // One branch per number of decimals: "at least 10" is 1000 cents but 10 yen.
    query = query.where((eb) =>
      eb.or(
        amounts.groups.map((g) => {
          const parts = [eb('currency', 'in', g.currencies)];
          if (g.min !== undefined) parts.push(eb('amount', '>=', g.min));
          if (g.max !== undefined) parts.push(eb('amount', '<=', g.max));
          return eb.and(parts);
        }),
      ),
    );
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}
