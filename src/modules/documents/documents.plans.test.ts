import { createQueryId, sql, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from '../../../test/helpers.js';
import * as repo from './documents.repository.js';

/**
 * PostgreSQL runs a prepared statement on its generic plan after five runs. The lists and runs
 * that read invoices through a partial index (open, overdue, dunnable) must still take that
 * index on the generic plan: with the index's constants sent as parameters it read every
 * invoice of the account instead (`indexed` in src/db/dialect.ts).
 */

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A parameter as an SQL literal, for `EXECUTE`. */
const literal = (value: unknown) =>
  typeof value === 'number' ? String(value) : `'${String(value).replaceAll("'", "''")}'`;

/** The plan PostgreSQL's generic plan takes for the first statement `read` runs. */
async function genericPlan(read: (db: typeof t.app.ctx.db) => Promise<unknown>): Promise<string> {
  const db = t.app.ctx.db;
  const nodes: RootOperationNode[] = [];
  await read(
    db.withPlugin({
      transformQuery: ({ node }) => (nodes.push(node), node),
      transformResult: ({ result }) => Promise.resolve(result),
    }),
  );
  const query = db.getExecutor().compileQuery(nodes[0]!, createQueryId());
  return db.connection().execute(async (conn) => {
    await sql`set plan_cache_mode = force_generic_plan`.execute(conn);
    try {
      await sql.raw(`prepare plan_check as ${query.sql}`).execute(conn);
      const args = query.parameters.map(literal).join(', ');
      const plan = await sql
        .raw<{ 'QUERY PLAN': string }>(`explain execute plan_check(${args})`)
        .execute(conn);
      return plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    } finally {
      await sql`deallocate all`.execute(conn);
      await sql`reset plan_cache_mode`.execute(conn);
    }
  });
}

describe.skipIf(dbKind !== 'postgres')('documents: partial indexes on a generic plan', () => {
  it('lists open and overdue invoices from the open index', async () => {
    const { accountId } = await createUser(t);
    for (const filter of [
      { open: true },
      { overdue: true },
      { documentType: 'INVOICE', open: true },
    ])
      expect(
        await genericPlan((db) => repo.listDocuments(db, accountId, { ...filter, limit: 25 })),
      ).toContain('documents_open_idx');
  });

  it('finds the invoices to announce overdue from a partial index of open invoices', async () => {
    expect(await genericPlan((db) => repo.newlyOverdue(db, '2026-11-29', { limit: 100 }))).toMatch(
      /using documents_(overdue_scan|open)_idx/,
    );
  });
});
