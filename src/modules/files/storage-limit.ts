import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import { storageUsedBytes } from './files.repository.js';

export { storageUsedBytes };

/** The plans module's answer (`AccountPlans.lockedPlan`): the account locked, its plan read. */
export interface StoragePlans {
  lockedPlan(
    trx: Transaction<DB>,
    accountId: string,
  ): Promise<{ name: string; storageBytes: number }>;
}

/**
 * Refuses with 409 `storage_limit_exceeded` when `size` more bytes would take the account past
 * its plan's `storageBytes`. Takes the account lock first, so two concurrent uploads cannot
 * both squeeze into the last free bytes; the plan is read in the same transaction.
 */
export async function assertStorageFits(
  trx: Transaction<DB>,
  plans: StoragePlans,
  accountId: string,
  size: number,
  field?: string,
): Promise<void> {
  const plan = await plans.lockedPlan(trx, accountId);
  const used = await storageUsedBytes(trx, accountId);
  if (used + size <= plan.storageBytes) return;
  const errors: FieldError[] = field
    ? [
        {
          path: `/body/${field}`,
          message: `does not fit: ${plan.storageBytes - used} of ${plan.storageBytes} bytes free`,
          code: 'storage_limit_exceeded',
        },
      ]
    : [];
  throw new AppError(
    'storage_limit_exceeded',
    `The ${plan.name} plan includes ${plan.storageBytes} bytes of storage; ${used} are in use and ${size} more do not fit. Delete files or change the plan.`,
    { errors, members: { usedBytes: used, limitBytes: plan.storageBytes } },
  );
}
