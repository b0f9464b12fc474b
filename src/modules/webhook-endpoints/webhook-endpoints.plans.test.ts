import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from '../../../test/helpers.js';
import { genericPlan } from '../../../test/plans.js';
import { nextDueDelivery } from './webhook-endpoints.repository.js';

/**
 * The sender's look for an account's next due delivery reads the index of its pending ones
 * (`webhook_deliveries_due_idx`, partial on `status = 'PENDING'`) on PostgreSQL's generic plan
 * too, not every delivery the account was ever sent.
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe.skipIf(dbKind !== 'postgres')(
  'webhook deliveries: partial index on a generic plan',
  () => {
    it('finds the next due delivery from the index of pending ones', async () => {
      const { accountId } = await createUser(t);
      const now = new Date().toISOString();
      expect(
        await genericPlan(t.app.ctx.db, (db) => nextDueDelivery(db, accountId, now)),
      ).toContain('webhook_deliveries_due_idx');
    });
  },
);
