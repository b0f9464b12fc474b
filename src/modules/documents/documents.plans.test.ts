import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, dbKind } from '../../../test/helpers.js';
import { appOnFreshDatabase } from '../../../test/fresh-database.js';
import { genericPlan, nestedPlans } from '../../../test/plans.js';
import * as repo from './documents.repository.js';
import { call } from './documents.test-support.js';

/**
 * PostgreSQL runs a prepared statement on its generic plan after five runs. The lists and runs
 * that read invoices through a partial index (open, overdue, dunnable) must still take that
 * index on the generic plan: with the index's constants sent as parameters it read every
 * invoice of the account instead (src/db/partial-index-constants.ts).
 *
 * The plans are made in a database of their own, as young as a new installation's: a plan
 * depends on the tables' sizes and statistics, which the run's other test files would change.
 */

describe.skipIf(dbKind !== 'postgres')('documents: partial indexes on a generic plan', () => {
  let t: Awaited<ReturnType<typeof appOnFreshDatabase>>;
  beforeAll(async () => {
    t = await appOnFreshDatabase('kontor_plans');
  });
  afterAll(() => t?.close());

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

  it("recomputes an invoice's figures from its own rows' indexes before any statistics exist", async () => {
    // A new installation: no table has statistics, and every index starting with the account
    // costs the planner the same. The figures trigger's credit-note sum, cached then, read
    // every document of the account for each recompute through the partner index (0042).
    const user = await createUser(t);
    const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Neu GmbH',
    });
    const invoice = await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Erste Rechnung',
      creationDate: '2026-11-29',
      partnerId: partner.id,
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });
    const plans = await nestedPlans(
      t.url,
      `update documents set settled_net_minor = 0 where id = '${invoice.id}'`,
    );
    // Each figure the trigger sets, read from the index of the invoice's own rows.
    const figure = (column: string) => plans.filter((p) => p.includes(`new.${column} :=`));
    expect(figure('settled_net_minor')).toEqual([
      expect.stringContaining('using payments_account_document_settled_idx'),
    ]);
    expect(figure('credit_notes_minor')).toEqual([
      expect.stringContaining('using documents_preceding_idx'),
    ]);
    expect(figure('deducted_minor')).toEqual([
      expect.stringContaining('using document_deductions_pk'),
    ]);
  });
});
