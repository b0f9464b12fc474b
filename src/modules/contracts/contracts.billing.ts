import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import {
  billingColumns,
  billingOf,
  presentBilling,
  type StoredBilling,
} from './contract-billing.js';
import * as repo from './contracts.repository.js';

/**
 * Moves a contract's plan on after a billed period (or ends it), in the transaction that made
 * the period's invoice: a compare-and-set on the version and on the next invoice date read,
 * so a concurrent edit or a second run makes it answer undefined and the caller rolls back.
 * Writes the `contract.invoiced` (or `contract.billing_ended`) audit event.
 */
export async function advanceBilling(
  trx: Transaction<DB>,
  actor: Actor,
  row: repo.ContractRow,
  next: StoredBilling,
  now: Date,
  documentId: string | null,
): Promise<repo.ContractRow | undefined> {
  const before = billingOf(row);
  const after = await repo.updateContract(trx, row.account_id, row.id, row.version, {
    ...billingColumns(next),
    updated_at: now.toISOString(),
  });
  if (!after) return undefined;
  await appendAudit(
    trx,
    actor,
    {
      action: documentId === null ? 'contract.billing_ended' : 'contract.invoiced',
      resourceType: 'contract',
      resourceId: row.id,
      changes: {
        ...diff({ billing: presentBilling(before) }, { billing: presentBilling(next) }),
        ...(documentId === null ? {} : { documentId }),
      },
    },
    now,
  );
  return after;
}
