import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, dbKind } from '../../../test/helpers.js';
import { appOnFreshDatabase } from '../../../test/fresh-database.js';
import { genericPlan } from '../../../test/plans.js';
import { nextDueDelivery } from './webhook-endpoints.repository.js';

/**
 * The sender's look for an account's next due delivery reads the index of its pending ones
 * (`webhook_deliveries_due_idx`, partial on `status = 'PENDING'`) on PostgreSQL's generic plan
 * too, not every delivery the account was ever sent. The plan is made in a database of its own
 * (test/fresh-database.ts, `appOnFreshDatabase`).
 */

describe.skipIf(dbKind !== 'postgres')(
  'webhook deliveries: partial index on a generic plan',
  () => {
    let t: Awaited<ReturnType<typeof appOnFreshDatabase>>;
    beforeAll(async () => {
      t = await appOnFreshDatabase('kontor_plans');
    });
    afterAll(() => t?.close());

    it('finds the next due delivery from the index of pending ones', async () => {
      const { accountId } = await createUser(t);
      const now = new Date().toISOString();
      expect(
        await genericPlan(t.app.ctx.db, (db) => nextDueDelivery(db, accountId, now)),
      ).toContain('webhook_deliveries_due_idx');
    });
  },
);
