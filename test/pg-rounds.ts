import pg from 'pg';

/**
 * For tests that count a request's round trips to PostgreSQL: every query `pg`'s clients send
 * while `run` runs is one round trip (a `Round` of Kontor's driver carries several statements),
 * but for the job queue's upkeep (pg-boss's own statements, and Kontor's check of its tables).
 */

/** The statements of each round trip `run` makes on PostgreSQL, in order (`pg` client queries). */
export async function roundsOf(run: () => Promise<unknown>): Promise<string[][]> {
  const rounds: string[][] = [];
  // eslint-disable-next-line @typescript-eslint/unbound-method -- put back as it was, unbound
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    const q = args[0] as string | { text?: string; steps?: { text: string }[] };
    const texts =
      typeof q === 'string' ? [q] : q.steps ? q.steps.map((s) => s.text) : [String(q.text)];
    // The job queue's own upkeep on its own connections is not the request's.
    const upkeep = texts.some((text) => text.includes('pgboss') || text.includes('to_regclass'));
    if (!upkeep) rounds.push(texts);
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  return rounds;
}
