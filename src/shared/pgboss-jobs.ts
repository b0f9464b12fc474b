import type { FastifyBaseLogger as Logger } from 'fastify';
import { CompiledQuery } from 'kysely';
import { PgBoss, type Db as PgBossDb, type JobWithMetadata } from 'pg-boss';
import { isDeadlock } from '../db/dialect.js';
import type { Executor } from '../db/records.js';
import type { EnqueueOptions, JobHandler, JobQueue } from './jobs.js';
import { startPeriodic } from './periodic.js';
import { moveOldJobs, setAsideOldSchema } from './pgboss-upgrade.js';

/**
 * The job queue on PostgreSQL: pg-boss 12 (MIT) in its own
 * `pgboss` schema. A job is inserted by `enqueue` through the caller's Kysely transaction, so
 * it exists exactly when the write that needs it committed. Each kind is a pg-boss queue with
 * retries and exponential backoff and a dead-letter queue (`<queue>__dead`) that keeps the
 * payload of a job whose last attempt failed; the handler's `failed` hook runs once then.
 * pg-boss claims jobs with `FOR UPDATE SKIP LOCKED`, so replicas never run one job twice at
 * the same time; a worker that dies leaves the job active until it expires, then it retries.
 *
 * This process polls with `fetch` itself (rather than `work`) so `kick()` and `drain()` run
 * due jobs at once and deterministically, as the embedded queue does.
 */

export interface PgBossJobQueueOptions {
  connectionString: string;
  logger: Logger;
  /** How often this process looks for due jobs, in ms; 0: it runs no worker. */
  pollMs: number;
  /** Jobs run at the same time by this process. */
  concurrency?: number;
  maxAttempts?: number;
  /** First retry delay in seconds; doubled with every attempt (pg-boss's backoff). */
  retryDelaySeconds?: number;
  /** How long one attempt may run before pg-boss takes it back for a retry. */
  expireInSeconds?: number;
  /** pg-boss's schema (default `pgboss`); processes on another schema never see these jobs. */
  schema?: string;
}

/** pg-boss queue names: letters, digits, `_` and `-`. */
const queueName = (kind: string) => `kontor_${kind.replace(/[^\w-]/g, '_')}`;

/** A pg-boss `db` adapter that runs its statements on the caller's Kysely transaction. */
function adapter(trx: Executor): PgBossDb {
  return {
    async executeSql(text, values) {
      const res = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: res.rows };
    },
  };
}

export class PgBossJobQueue implements JobQueue {
  private readonly boss: PgBoss;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly queues = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private readonly stops: (() => Promise<void>)[] = [];
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly retryDelay: number;
  private readonly expireIn: number;
  private readonly started: Promise<void>;
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private closed = false;

  constructor(private readonly o: PgBossJobQueueOptions) {
    this.concurrency = o.concurrency ?? 2;
    this.maxAttempts = o.maxAttempts ?? 3;
    this.retryDelay = o.retryDelaySeconds ?? 2;
    this.expireIn = o.expireInSeconds ?? 5 * 60;
    const schema = o.schema ?? 'pgboss';
    const boss = new PgBoss({
      connectionString: o.connectionString,
      schema,
      max: 3,
      application_name: 'kontor-jobs',
      // Maintenance and cron run only where jobs run; pg-boss elects one runner per period.
      supervise: o.pollMs > 0,
      schedule: o.pollMs > 0,
    });
    this.boss = boss;
    boss.on('error', (err) => o.logger.error({ err }, 'pg-boss error'));
    // pg-boss installs or migrates its schema under an advisory lock, so concurrent starts are
    // safe; a schema that pg-boss 10 wrote is set aside first and its pending jobs moved after
    // the start (`pgboss-upgrade.ts`). A failed start is reported by the first call that needs
    // the queue.
    this.started = (async () => {
      await setAsideOldSchema(o.connectionString, schema, o.logger);
      await boss.start();
      await moveOldJobs(o.connectionString, schema, boss, o.logger);
    })();
    this.started.catch((err: unknown) => o.logger.error({ err }, 'pg-boss did not start'));
    if (o.pollMs > 0) {
      this.timer = setInterval(() => this.kick(), o.pollMs);
      this.timer.unref();
    }
  }

  register(kind: string, handler: JobHandler): void {
    this.handlers.set(kind, handler);
  }

  async enqueue(
    trx: Executor,
    kind: string,
    payload: Record<string, unknown>,
    accountId?: string,
    options: EnqueueOptions = {},
  ): Promise<string> {
    await this.ensureQueue(kind);
    const id = await this.boss.send(
      queueName(kind),
      { ...payload, ...(accountId ? { __accountId: accountId } : {}) },
      // Without `runAt` the database's clock decides (due at once): the app's clock may be a
      // few milliseconds ahead of it, which would hold a due job back until the next poll.
      { db: adapter(trx), ...(options.runAt ? { startAfter: options.runAt } : {}) },
    );
    if (!id) throw new Error(`pg-boss refused a ${kind} job`);
    return id;
  }

  async enqueueMany(
    trx: Executor,
    kind: string,
    jobs: readonly { payload: Record<string, unknown>; accountId?: string }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    await this.ensureQueue(kind);
    // pg-boss's `insert`: one statement for the whole batch (its rows as one JSON parameter),
    // where `send` takes a statement per job. The queue's retry policy applies as with `send`.
    await this.boss.insert(
      queueName(kind),
      jobs.map((job) => ({
        data: { ...job.payload, ...(job.accountId ? { __accountId: job.accountId } : {}) },
      })),
      { db: adapter(trx) },
    );
  }

  kick(): void {
    if (this.closed || this.o.pollMs === 0) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescan = false;
          await this.scanOnce();
        } while (this.rescan && !this.closed);
      } catch (err) {
        this.o.logger.error({ err }, 'job scan failed');
      } finally {
        this.scanning = undefined;
      }
    })();
  }

  async drain(): Promise<void> {
    for (;;) {
      const claimed = await this.scanOnce();
      await Promise.all([...this.running]);
      if (claimed === 0 && this.running.size === 0) return;
    }
  }

  /**
   * Recurring work: on a whole number of minutes it is a pg-boss schedule (cron), so one
   * replica runs it per period; shorter intervals (tests, tight setups) run in this process
   * like the embedded queue, which the scheduled work tolerates (it claims what it sends).
   */
  every(name: string, intervalMs: number, run: () => Promise<void>): () => Promise<void> {
    const minutes = intervalMs / 60_000;
    if (intervalMs <= 0 || this.o.pollMs === 0 || !Number.isInteger(minutes) || minutes > 59)
      return startPeriodic(this.o.logger, name, intervalMs, run);
    const queue = queueName(`every.${name}`);
    const cron = minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
    const setup = (async () => {
      await this.started;
      await this.boss.createQueue(queue, { policy: 'singleton', retryLimit: 0 });
      await this.boss.schedule(queue, cron, {}, { singletonKey: name });
      return this.boss.work(queue, { pollingIntervalSeconds: 5 }, async () => {
        await run();
      });
    })();
    setup.catch((err: unknown) => this.o.logger.error({ err, name }, 'schedule not set up'));
    const stop = async () => {
      const workerId = await setup.catch(() => undefined);
      if (workerId) await this.boss.offWork(queue, { id: workerId, wait: true });
    };
    this.stops.push(stop);
    return stop;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
    await Promise.all([...this.running]);
    await Promise.all(this.stops.map((s) => s()));
    await this.started.catch(() => undefined);
    await this.boss.stop({ graceful: true, close: true, timeout: 10_000 });
  }

  /** Jobs of this kind waiting in its dead-letter queue (operators, tests). */
  async deadLetters(kind: string): Promise<number> {
    await this.ensureQueue(kind);
    // Counted from the jobs themselves: the queue's own counts are the monitor's, refreshed late.
    return (await this.boss.findJobs(`${queueName(kind)}__dead`, { queued: true })).length;
  }

  private readonly created = new Map<string, Promise<void>>();
  /** Queue creations of this process, one after the other (fewer to deadlock with). */
  private creating: Promise<unknown> = Promise.resolve();

  /** Creates the kind's queue and its dead-letter queue once per process (idempotent). */
  private ensureQueue(kind: string): Promise<void> {
    let p = this.created.get(kind);
    if (!p) {
      const name = queueName(kind);
      const create = async () => {
        await this.started;
        await givingWayRetried(() => this.boss.createQueue(`${name}__dead`));
        await givingWayRetried(() =>
          this.boss.createQueue(name, {
            retryLimit: this.maxAttempts - 1,
            retryDelay: this.retryDelay,
            retryBackoff: true,
            expireInSeconds: this.expireIn,
            deadLetter: `${name}__dead`,
          }),
        );
        this.queues.add(kind);
      };
      p = this.creating.then(create, create);
      this.creating = p.catch(() => undefined);
      p.catch(() => this.created.delete(kind));
      this.created.set(kind, p);
    }
    return p;
  }

  /** Fetches due jobs of every registered kind up to the free concurrency; answers how many. */
  private async scanOnce(): Promise<number> {
    let claimed = 0;
    for (const kind of this.handlers.keys()) {
      const free = this.concurrency - this.running.size;
      if (free <= 0 || this.closed) break;
      await this.ensureQueue(kind);
      const jobs = await this.boss.fetch<Record<string, unknown>>(queueName(kind), {
        batchSize: free,
        includeMetadata: true,
      });
      for (const job of jobs) {
        claimed++;
        const run = this.execute(kind, job)
          .catch((err: unknown) =>
            this.o.logger.error({ err, jobId: job.id }, 'job outcome not recorded'),
          )
          .finally(() => {
            this.running.delete(run);
            this.kick();
          });
        this.running.add(run);
      }
    }
    return claimed;
  }

  private async execute(
    kind: string,
    job: JobWithMetadata<Record<string, unknown>>,
  ): Promise<void> {
    const handler = this.handlers.get(kind)!;
    const { __accountId: _, ...payload } = job.data;
    const attempt = job.retryCount + 1;
    try {
      await handler.run(payload, { id: job.id, attempt });
      await this.boss.complete(job.name, job.id);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.o.logger.warn({ err, jobId: job.id, kind, attempt }, 'job failed');
      // pg-boss schedules the retry (backoff) or, after the last one, moves it to the
      // dead-letter queue.
      await this.boss.fail(job.name, job.id, { message: message.slice(0, 2000) });
      if (job.retryCount >= job.retryLimit && handler.failed)
        await handler.failed(payload, message).catch(() => undefined);
    }
  }
}

/**
 * Runs `create` again when PostgreSQL chose it to give way in a deadlock (40P01). pg-boss 10
 * creates a queue and its partition of `pgboss.job` in one call; two replicas creating the
 * same new queues at once deadlock on the queue row and the partitioned table (reproduced by
 * `pgboss-jobs.test.ts`: every run), and the call that gave way was rolled back whole. The
 * queue insert is idempotent, so running it again after the other committed finds it made.
 */
async function givingWayRetried(create: () => Promise<unknown>, attempts = 8): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await create();
      return;
    } catch (err) {
      if (!isDeadlock(err) || attempt >= attempts) throw err;
      // A short, random pause, so the two do not meet again in step.
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40 * attempt));
    }
  }
}
