import { createQueryId, sql, type Kysely, type RootOperationNode } from 'kysely';
import type { DB } from '../src/db/schema.js';

/**
 * PostgreSQL runs a prepared statement on its generic plan after five runs. `genericPlan`
 * answers the plan (EXPLAIN text) the generic plan of the first statement `read` runs takes,
 * so a test can hold a read to the partial index it must use (src/db/partial-index-constants.ts).
 */

/** A parameter as an SQL literal, for `EXECUTE` (the reads checked pass text and numbers). */
function literal(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.replaceAll("'", "''")}'`;
  throw new Error(`genericPlan: no literal for ${typeof value} parameters`);
}

export async function genericPlan(
  db: Kysely<DB>,
  read: (db: Kysely<DB>) => Promise<unknown>,
): Promise<string> {
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
      // Only its own: the driver's prepared statements on this connection stay.
      await sql`deallocate plan_check`.execute(conn).catch(() => undefined);
      await sql`reset plan_cache_mode`.execute(conn);
    }
  });
}

/**
 * The plans PostgreSQL runs for `statement` and every statement inside it (its triggers' own
 * reads), each on its generic plan, as `auto_explain` writes them: one text per statement.
 * `LOAD 'auto_explain'` needs the contrib module (in Debian's postgresql package) and a
 * superuser, as the tests' `postgres` role is.
 */
export async function nestedPlans(url: string, statement: string): Promise<string[]> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  const plans: string[] = [];
  client.on('notice', (notice) => plans.push(notice.message ?? ''));
  await client.connect();
  try {
    for (const setting of [
      `load 'auto_explain'`,
      'set auto_explain.log_min_duration = 0',
      'set auto_explain.log_nested_statements = on',
      'set auto_explain.log_level = notice',
      'set plan_cache_mode = force_generic_plan',
      'begin',
    ])
      await client.query(setting);
    await client.query(statement);
    await client.query('rollback');
  } finally {
    await client.end();
  }
  return plans;
}
