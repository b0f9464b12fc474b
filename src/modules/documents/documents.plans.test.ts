import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from '../../../test/helpers.js';
import { genericPlan } from '../../../test/plans.js';
import * as repo from './documents.repository.js';

/**
 * PostgreSQL runs a prepared statement on its generic plan after five runs. The lists and runs
 * that read invoices through a partial index (open, overdue, dunnable) must still take that
 * index on the generic plan: with the index's constants sent as parameters it read every
 * invoice of the account instead (src/db/partial-index-constants.ts).
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

describe.skipIf(dbKind !== 'postgres')('documents: partial indexes on a generic plan', () => {
  it('lists open and overdue invoices from the open index', async () => {
    const { accountId } = await createUser(t);
    for (const filter of [
      { open: true },
      { overdue: true },
      { documentType: 'INVOICE', open: true },
    ])
      expect(
        await genericPlan(t.app.ctx.db, (db) =>
          repo.listDocuments(db, accountId, { ...filter, limit: 25 }),
        ),
      ).toContain('documents_open_idx');
  });

  it('finds the invoices to announce overdue from a partial index of open invoices', async () => {
    expect(
      await genericPlan(t.app.ctx.db, (db) => repo.newlyOverdue(db, '2026-11-29', { limit: 100 })),
    ).toMatch(/using documents_(overdue_scan|open)_idx/);
  });
});
