import type { Kysely, Transaction } from 'kysely';
import { isForeignKeyViolation } from '../db/dialect.js';
import type { DB } from '../db/schema.js';
import { compareAndSet, type IfMatch } from './concurrency.js';
import { appendAudit, type Actor } from './audit.js';
import type { Clock } from './clock.js';
import { assertUnreferenced, inUseByForeignKey } from './references.js';

export interface DeleteRecord<R> {
  /** Resource type as the audit trail and the reference registry name it, e.g. `tax_rate`. */
  resource: string;
  /** How messages name it, e.g. `Tax rate`. */
  what: string;
  id: string;
  ifMatch: IfMatch;
  /** Runs first in the transaction, e.g. the account lock for account-wide invariants. */
  prepare?: (trx: Transaction<DB>) => Promise<void>;
  /** The compare-and-set delete; `version` is the If-Match version, if one was sent. */
  run: (trx: Transaction<DB>, version: number | undefined) => Promise<R | undefined>;
  /** The stored version (undefined when the record is gone); may throw a state rule instead. */
  current: (trx: Transaction<DB>) => Promise<number | undefined>;
  /** The deleted record as the audit event records it. */
  present: (row: R) => Record<string, unknown>;
}

/**
 * The delete every record resource shares, in one transaction: refused with 409 `in_use`
 * while other records reference it (the registry first, the foreign key as the backstop for
 * a reference added concurrently), compare-and-set on the version or `If-Match`, and the
 * `<resource>.deleted` audit event with the last values.
 */
export async function deleteRecord<R>(
  ctx: { db: Kysely<DB>; clock: Clock },
  actor: Actor,
  d: DeleteRecord<R>,
): Promise<void> {
  const now = ctx.clock.now();
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await d.prepare?.(trx);
      await assertUnreferenced(trx, d.resource, actor.accountId, d.id);
      const deleted = await compareAndSet({
        expected: undefined,
        ifMatch: d.ifMatch,
        what: d.what,
        run: (version) => d.run(trx, version),
        current: () => d.current(trx),
      });
      await appendAudit(
        trx,
        actor,
        {
          action: `${d.resource}.deleted`,
          resourceType: d.resource,
          resourceId: d.id,
          changes: d.present(deleted),
        },
        now,
      );
    });
  } catch (err) {
    if (isForeignKeyViolation(err)) throw inUseByForeignKey(d.resource.replace(/_/g, ' '));
    throw err;
  }
}
