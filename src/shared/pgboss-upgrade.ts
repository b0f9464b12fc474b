import type { FastifyBaseLogger as Logger } from 'fastify';
import pg from 'pg';
import type { Db as PgBossDb, JobInsert, PgBoss, Queue } from 'pg-boss';

/**
 * The move from pg-boss 10 to 12. pg-boss 11 changed its schema without a migration from 10
 * (11.0.0 ships none; 12 migrates from schema version 25 up), so a database that pg-boss 10
 * wrote (schema version 24 or below) is carried over here, once, by Kontor itself:
 *
 * 1. `setAsideOldSchema`, before pg-boss 12 starts: under an advisory lock, the old schema is
 *    renamed to `<schema>_v10`, so pg-boss 12 installs its own schema under the usual name.
 * 2. `moveOldJobs`, after it started: every job still to run (created, retry, active) moves to
 *    the queue of the same name, with its id, payload, due time and the attempts it has left,
 *    in one transaction that also deletes from the old schema what pg-boss 12 took — a job is
 *    in exactly one schema at any moment, so none is lost and none runs twice, however many
 *    replicas start at once (a job its queue's policy refuses stays behind, named in the log). Dead-lettered payloads move with their `__dead` queues. Finished jobs stay in
 *    `<schema>_v10` for reference; an operator drops it when no longer wanted.
 *
 * Every replica must run the new version before jobs flow again: a pg-boss 10 process still
 * running would work on the old schema no longer.
 */

/** pg-boss 10's schema version; 12 can migrate from 25 (pg-boss 11) up. */
const LAST_OLD_VERSION = 24;
/** One advisory lock key for both steps, across replicas (any fixed 64-bit number). */
const LOCK_KEY = '7394827311';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
export const oldSchemaName = (schema: string) => `${schema}_v10`;

async function withClient<T>(url: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'kontor-jobs' });
  // A connection lost mid-step rejects the query under way, which the caller sees; without a
  // listener the client's 'error' event would also end the whole process as uncaught.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function tableExists(c: pg.Client, schema: string, table: string): Promise<boolean> {
  const { rows } = await c.query<{ found: string | null }>('select to_regclass($1) as found', [
    `${ident(schema)}.${ident(table)}`,
  ]);
  return rows[0]?.found != null;
}

/**
 * Renames a pg-boss 10 schema out of pg-boss 12's way; answers whether it did. A schema that
 * is already current, absent, or set aside earlier is left alone.
 */
export async function setAsideOldSchema(url: string, schema: string, logger: Logger) {
  return withClient(url, async (c) => {
    await c.query('begin');
    try {
      await c.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
      if (!(await tableExists(c, schema, 'version'))) {
        await c.query('commit');
        return false;
      }
      const { rows } = await c.query<{ version: number }>(
        `select version from ${ident(schema)}.version`,
      );
      const version = Number(rows[0]?.version);
      if (!(version <= LAST_OLD_VERSION)) {
        await c.query('commit');
        return false;
      }
      if (await tableExists(c, oldSchemaName(schema), 'version'))
        throw new Error(
          `pg-boss: both ${schema} (version ${version}) and ${oldSchemaName(schema)} exist; ` +
            `move or drop one of them`,
        );
      await c.query(`alter schema ${ident(schema)} rename to ${ident(oldSchemaName(schema))}`);
      await c.query('commit');
      logger.warn(
        { schema, version, setAside: oldSchemaName(schema) },
        'pg-boss 10 schema set aside; its pending jobs move to the new schema',
      );
      return true;
    } catch (err) {
      await c.query('rollback').catch(() => undefined);
      throw err;
    }
  });
}

interface OldQueue {
  name: string;
  policy: string | null;
  retry_limit: number | null;
  retry_delay: number | null;
  retry_backoff: boolean | null;
  expire_seconds: number | null;
  dead_letter: string | null;
}

interface OldJob {
  id: string;
  name: string;
  priority: number;
  data: object | null;
  state: 'created' | 'retry' | 'active';
  retry_limit: number;
  retry_count: number;
  retry_delay: number;
  retry_backoff: boolean;
  start_after: Date;
  singleton_key: string | null;
  expire_seconds: number;
  dead_letter: string | null;
}

/** The new queue's options from the old one's (pg-boss 10 stored them per queue). */
function queueOptions(q: OldQueue): Omit<Queue, 'name'> {
  return {
    ...(q.policy ? { policy: q.policy } : {}),
    ...(q.retry_limit != null ? { retryLimit: q.retry_limit } : {}),
    ...(q.retry_delay != null ? { retryDelay: q.retry_delay } : {}),
    ...(q.retry_backoff != null ? { retryBackoff: q.retry_backoff } : {}),
    ...(q.expire_seconds ? { expireInSeconds: q.expire_seconds } : {}),
    ...(q.dead_letter ? { deadLetter: q.dead_letter } : {}),
  };
}

/**
 * A job as pg-boss 12 takes it: same id and payload; due when it was due (an active one at
 * once: its attempt never finished); the attempts it had left.
 */
function jobInsert(j: OldJob): JobInsert {
  return {
    id: j.id,
    data: j.data ?? {},
    priority: j.priority,
    retryLimit: Math.max(0, j.retry_limit - j.retry_count),
    retryDelay: j.retry_delay,
    retryBackoff: j.retry_backoff,
    ...(j.state === 'active' ? {} : { startAfter: j.start_after }),
    ...(j.singleton_key ? { singletonKey: j.singleton_key } : {}),
    ...(j.expire_seconds > 0 ? { expireInSeconds: j.expire_seconds } : {}),
    ...(j.dead_letter ? { deadLetter: j.dead_letter } : {}),
  };
}

/**
 * Moves the jobs still to run from the set-aside pg-boss 10 schema into `boss` (started);
 * answers how many moved. Safe to call on every start: with nothing left it does nothing.
 */
export async function moveOldJobs(url: string, schema: string, boss: PgBoss, logger: Logger) {
  const old = oldSchemaName(schema);
  return withClient(url, async (c) => {
    if (!(await tableExists(c, old, 'job'))) return 0;
    const { rows: queues } = await c.query<OldQueue>(
      `select name, policy, retry_limit, retry_delay, retry_backoff, expire_seconds, dead_letter
       from ${ident(old)}.queue order by (dead_letter is not null), name`,
    );
    // Dead-letter queues first (sorted so): a queue can only name one that exists.
    for (const q of queues) await boss.createQueue(q.name, queueOptions(q));
    const db: PgBossDb = {
      async executeSql(text, values) {
        const res = await c.query(text, values as unknown[]);
        return { rows: res.rows };
      },
    };
    await c.query('begin');
    try {
      await c.query('select pg_advisory_xact_lock($1)', [LOCK_KEY]);
      const { rows: jobs } = await c.query<OldJob>(
        `select id, name, priority, data, state::text as state, retry_limit, retry_count,
           retry_delay, retry_backoff, start_after, singleton_key,
           extract(epoch from expire_in)::int as expire_seconds, dead_letter
         from ${ident(old)}.job where state in ('created', 'retry', 'active') for update`,
      );
      const byQueue = new Map<string, OldJob[]>();
      for (const j of jobs) byQueue.set(j.name, [...(byQueue.get(j.name) ?? []), j]);
      const moved: string[] = [];
      for (const [name, list] of byQueue) {
        if (!queues.some((q) => q.name === name)) await boss.createQueue(name);
        // pg-boss skips a job its queue's policy refuses (a second queued job of a `stately`
        // queue with the same key); such a job stays in the old schema, named in the log.
        // Kontor's own queues are standard or singleton, where a moved job is never refused.
        const taken = new Set(await boss.insert(name, list.map(jobInsert), { db, returnId: true }));
        const refused = list.filter((j) => !taken.has(j.id)).map((j) => j.id);
        moved.push(...taken);
        if (refused.length > 0)
          logger.error(
            { queue: name, refused, from: old },
            'pg-boss 12 refused jobs of pg-boss 10 (its queue policy); they stay in the old schema',
          );
      }
      await c.query(`delete from ${ident(old)}.job where id = any($1::uuid[])`, [moved]);
      await c.query('commit');
      if (moved.length > 0)
        logger.warn(
          { moved: moved.length, queues: byQueue.size, from: old },
          'moved pending jobs from pg-boss 10',
        );
      return moved.length;
    } catch (err) {
      await c.query('rollback').catch(() => undefined);
      throw err;
    }
  });
}
