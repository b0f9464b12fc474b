import type { Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { AppContext } from '../../context.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError } from '../../shared/errors.js';
import { assertIsoDate, invalidField, minorAmount } from '../../http/field-rules.js';
import { appendAudit, diff, type Actor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { findAccount, lockAccount } from '../account/index.js';
import { addDays } from './buckets.js';
import { presentAnchor } from './dashboard.presenter.js';
import * as repo from './dashboard.repository.js';
import { MIN_DATE, type CashAnchor, type PutCashAnchor } from './dashboard.schemas.js';

/**
 * The cash anchor: one per account, the bank balance at the end of a day in the account
 * currency. PUT sets or replaces it; a version (body or `If-Match`) makes the replacement
 * conditional, without one it simply wins (the spec's body has no version field).
 */
export class CashAnchorService {
  constructor(private readonly ctx: AppContext) {}

  async get(accountId: string): Promise<CashAnchor> {
    const row = await repo.findAnchor(this.ctx.db, accountId);
    if (!row)
      throw new AppError(
        'not_found',
        'No cash anchor is set for this account yet; set one with PUT /v1/dashboard/cash-anchor {openingBalance, effectiveDate}.',
      );
    return presentAnchor(row);
  }

  async put(actor: Actor, input: PutCashAnchor, ifMatch: IfMatch): Promise<CashAnchor> {
    const now = this.ctx.clock.now();
    checkEffectiveDate(input.effectiveDate, isoDate(now));
    return this.ctx.db.transaction().execute(async (trx) => {
      // Serialises anchor writes of the account (and its currency setting): the read of the
      // current anchor below is then the state the write replaces.
      await lockAccount(trx, actor.accountId);
      const account = await findAccount(trx, actor.accountId);
      if (!account) throw new AppError('not_found', 'Account not found.');
      const values = {
        opening_balance: minorAmount(
          input.openingBalance,
          account.currency,
          '/body/openingBalance',
        ),
        currency: account.currency,
        effective_date: input.effectiveDate,
        updated_at: now.toISOString(),
      };
      const before = await repo.findAnchor(trx, actor.accountId);
      if (!before) return this.setFirst(trx, actor, values, input.version, ifMatch, now);
      const after = await compareAndSet({
        expected: input.version,
        ifMatch,
        what: 'Cash anchor',
        run: (version) =>
          repo.updateAnchor(trx, actor.accountId, version ?? before.version, values),
        current: () => Promise.resolve(before.version),
      });
      const anchor = presentAnchor(after);
      await appendAudit(
        trx,
        actor,
        {
          action: 'cash_anchor.updated',
          resourceType: 'cash_anchor',
          resourceId: actor.accountId,
          changes: diff(presentAnchor(before), anchor),
        },
        now,
      );
      return anchor;
    });
  }

  /** The account's first anchor: a version or If-Match names a state that does not exist. */
  private async setFirst(
    trx: Transaction<DB>,
    actor: Actor,
    values: Omit<repo.CashAnchorRow, 'account_id' | 'version' | 'created_at'>,
    version: number | undefined,
    ifMatch: IfMatch,
    now: Date,
  ): Promise<CashAnchor> {
    if (ifMatch !== undefined)
      throw new AppError(
        'precondition_failed',
        'If-Match cannot match: no cash anchor is set yet. Send the PUT without If-Match to set the first one.',
      );
    if (version !== undefined)
      throw new AppError(
        'version_conflict',
        'No cash anchor is set yet, so there is no version to match. Send the PUT without version to set the first one.',
      );
    const row: repo.CashAnchorRow = {
      account_id: actor.accountId,
      ...values,
      version: 1,
      created_at: values.updated_at,
    };
    await repo.insertAnchor(trx, row);
    const anchor = presentAnchor(row);
    await appendAudit(
      trx,
      actor,
      {
        action: 'cash_anchor.created',
        resourceType: 'cash_anchor',
        resourceId: actor.accountId,
        changes: anchor,
      },
      now,
    );
    return anchor;
  }
}

/** A balance the bank has shown: from MIN_DATE up to today (with a day of leeway). */
function checkEffectiveDate(date: string, today: string): void {
  assertIsoDate(date, '/body/effectiveDate');
  if (date < MIN_DATE)
    throw invalidField('/body/effectiveDate', `must be on or after ${MIN_DATE}`, 'out_of_range');
  // One day of leeway: "today" is UTC, and in Berlin the next day starts an hour earlier.
  if (date > addDays(today, 1))
    throw invalidField(
      '/body/effectiveDate',
      `must not be in the future (today is ${today} UTC): the anchor is a balance the bank has already shown`,
      'out_of_range',
    );
}
