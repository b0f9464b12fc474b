import type { Executor } from '../../db/records.js';
import type { ContractInvoicesTable } from '../../db/schema.js';

/** Billed periods (`contract_invoices`): this module is their one writer. */

/**
 * Claims a contract's period in the transaction that creates its invoice: false when the
 * period is billed already (another process, or an earlier run, got there first). On
 * PostgreSQL a concurrent claim of the same period waits for the first to commit or roll back.
 */
export async function claimPeriod(trx: Executor, row: ContractInvoicesTable): Promise<boolean> {
  const result = await trx
    .insertInto('contract_invoices')
    .values(row)
    .onConflict((oc) => oc.columns(['contract_id', 'period_start']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export interface BilledPeriodRow {
  period_start: string;
  period_end: string;
  invoice_date: string;
  document_id: string;
  created_at: string;
  document_number: string | null;
  status: string;
  gross_total: number;
  currency: string;
}

/** A contract's billed periods with their invoices, newest invoice first, after a cursor. */
export async function listBilledPeriods(
  db: Executor,
  accountId: string,
  contractId: string,
  f: { limit: number; beforeDocumentId?: string },
): Promise<BilledPeriodRow[]> {
  let query = db
    .selectFrom('contract_invoices as ci')
    .innerJoin('documents as d', (join) =>
      join.onRef('d.id', '=', 'ci.document_id').onRef('d.account_id', '=', 'ci.account_id'),
    )
    .select([
      'ci.period_start',
      'ci.period_end',
      'ci.invoice_date',
      'ci.document_id',
      'ci.created_at',
      'd.document_number',
      'd.status',
      'd.gross_total',
      'd.currency',
    ])
    .where('ci.account_id', '=', accountId)
    .where('ci.contract_id', '=', contractId);
  if (f.beforeDocumentId !== undefined)
    query = query.where('ci.document_id', '<', f.beforeDocumentId);
  return query
    .orderBy('ci.document_id', 'desc')
    .limit(f.limit + 1)
    .execute();
}
