import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import { AppError } from '../../shared/errors.js';
import { invalidField } from '../../http/field-rules.js';
import {
  type FieldPath,
  type PaymentRow,
  accountExists,
  accountOfPartner,
} from '../payments/index.js';
import type { Origin } from './payment-events.js';

/** Which account a provider payment event belongs to (decisions §10). */

function missing(path: string, what: string, id: string): AppError {
  return new AppError('reference_not_found', `${what} ${id} does not exist.`, {
    errors: [{ path, message: `${what} not found`, code: 'reference_not_found' }],
  });
}

/**
 * The account a payment Kontor does not know yet belongs to: the one owning the partner
 * (checked against an account the event also names), else the account named. Undefined when
 * the event names neither and may be ignored.
 */
export async function attribute(
  trx: Transaction<DB>,
  origin: Origin,
  path: FieldPath,
): Promise<string | undefined> {
  if (origin.partnerId !== undefined) {
    const owner = await accountOfPartner(trx, origin.partnerId);
    if (owner === undefined || (origin.accountId !== undefined && origin.accountId !== owner))
      throw missing(path('partnerId'), 'Partner', origin.partnerId);
    return owner;
  }
  if (origin.accountId !== undefined) {
    if (!(await accountExists(trx, origin.accountId)))
      throw missing(path('accountId'), 'Account', origin.accountId);
    return origin.accountId;
  }
  if (origin.whenUnattributed === 'refuse')
    throw invalidField(
      path('partnerId'),
      'is required to create a payment: its account is the partner’s',
      'required',
    );
  return undefined;
}

/**
 * A stored payment an event names by provider id must be in the account the event names, if
 * it names one: a payment of one account never takes another account's provider events (a
 * user who typed someone else's PaymentIntent id gets a conflict, not their money).
 */
export async function assertSameAccount(
  trx: Transaction<DB>,
  stored: PaymentRow | undefined,
  origin: Origin,
  path: FieldPath,
): Promise<void> {
  if (stored === undefined) return;
  const named =
    origin.partnerId !== undefined
      ? await accountOfPartner(trx, origin.partnerId)
      : origin.accountId;
  if (named !== undefined && named !== stored.account_id)
    throw new AppError(
      'state_conflict',
      'A payment of another account already has this provider id; nothing was changed.',
      {
        errors: [
          {
            path: path('providerPaymentIntentId'),
            message: 'belongs to a payment of another account',
            code: 'state_conflict',
          },
        ],
      },
    );
}
