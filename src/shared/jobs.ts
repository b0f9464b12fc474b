import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Executor } from '../db/records.js';
import type { DB } from '../db/schema.js';
import type { Clock } from './clock.js';
import { newId } from './ids.js';
import { startPeriodic } from './periodic.js';

/**
 * Background jobs (decisions §1: in-process in embedded mode, on PostgreSQL in production).
 * One implementation serves both: jobs are rows of the `jobs` table, written by `enqueue` in
 * the transaction of the write that needs them (a job exists exactly when that write
 * committed), and claimed by a compare-and-set on their status, so several workers — threads
 * of one process, replicas, a CLI — never run one job twice at the same time. A worker that
 * dies mid-job leaves a lease that expires; the job then runs again (at-least-once), so
 * handlers are idempotent.
 */

export interface JobHandler {
  run(payload: Record<string, unknown>, job: { id: string; attempt: number }): Promise<void>;
  /** Called once when the last attempt failed, e.g. to record the failure on a record. */
  failed?(payload: Record<string, unknown>, error: string): Promise<void>;
}

export interface EnqueueOptions {
  /** Not before this time (a retry later on); default: as soon as a worker is free. */
  runAt?: Date;
}

export interface JobQueue {
  /** Adds a job in the caller's transaction; call `kick()` after the commit to start it soon. */
  enqueue(
    trx: Executor,
    kind: string,
    payload: Record<string, unknown>,
    accountId?: string,
    options?: EnqueueOptions,
  ): Promise<string>;
  /**
   * `enqueue` for many jobs of one kind in the caller's transaction, in a few statements (a
   * batch of writes that each need a job): due at once.
   */
  enqueueMany(
    trx: Executor,
    kind: string,
    jobs: readonly { payload: Record<string, unknown>; accountId?: string }[],
  ): Promise<void>;
  register(kind: string, handler: JobHandler): void;
  /** Looks for due jobs now instead of at the next poll. */
  kick(): void;
  /** Runs due jobs until none is left (tests, CLI). */
  drain(): Promise<void>;
  /**
   * Runs `run` every `intervalMs` (0: never); answers a stop function that waits for a run in
   * progress. Embedded: a timer in this process. PostgreSQL: a pg-boss schedule, once per
   * period across replicas, for whole minutes.
   */
  every(name: string, intervalMs: number, run: () => Promise<void>): () => Promise<void>;
  close(): Promise<void>;
}

export interface JobQueueOptions {
  db: Kysely<DB>;
  clock: Clock;
  logger: Logger;
  /** How often the worker looks for due jobs, in ms; 0: this process runs no worker. */
  pollMs: number;
  /** Jobs run at the same time by this process. */
  concurrency?: number;
  maxAttempts?: number;
  /** How long a claimed job is reserved for its worker before another may take it. */
  leaseMs?: number;
}

const BATCH = 20;
/** Jobs per multi-row insert (11 parameters each). */
const ROWS_PER_INSERT = 500;

export class DbJobQueue implements JobQueue {
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private closed = false;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly leaseMs: number;

  constructor(private readonly o: JobQueueOptions) {
    this.concurrency = o.concurrency ?? 2;
    this.maxAttempts = o.maxAttempts ?? 3;
    this.leaseMs = o.leaseMs ?? 5 * 60_000;
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
    const now = this.o.clock.now().toISOString();
    const id = newId('job');
    await trx
      .insertInto('jobs')
      .values({
        id,
        account_id: accountId ?? null,
        kind,
        payload: JSON.stringify(payload),
        status: 'QUEUED',
        attempts: 0,
        run_after: options.runAt?.toISOString() ?? now,
        locked_until: null,
        last_error: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return id;
  }

  async enqueueMany(
    trx: Executor,
    kind: string,
    jobs: readonly { payload: Record<string, unknown>; accountId?: string }[],
  ): Promise<void> {
    const now = this.o.clock.now().toISOString();
    for (let from = 0; from < jobs.length; from += ROWS_PER_INSERT)
      await trx
        .insertInto('jobs')
        .values(
          jobs.slice(from, from + ROWS_PER_INSERT).map((job) => ({
            id: newId('job'),
            account_id: job.accountId ?? null,
            kind,
            payload: JSON.stringify(job.payload),
            status: 'QUEUED',
            attempts: 0,
            run_after: now,
            locked_until: null,
            last_error: null,
            created_at: now,
            updated_at: now,
          })),
        )
        .execute();
  }

  kick(): void {
    if (this.closed || this.o.pollMs === 0) return;
    void this.scan();
  }

  every(name: string, intervalMs: number, run: () => Promise<void>): () => Promise<void> {
    return startPeriodic(this.o.logger, name, intervalMs, run);
  }

  async drain(): Promise<void> {
    for (;;) {
      const claimed = await this.scanOnce();
      await Promise.all([...this.running]);
      if (claimed === 0 && this.running.size === 0) return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
    await Promise.all([...this.running]);
  }

  /** One scan at a time; a kick during a scan makes it look again when it ends. */
  private scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    this.scanning = (async () => {
      try {
        do {
          this.rescan = false;
          await this.scanOnce();
        } while (this.rescan && !this.closed);
      } catch (err) {
        // A lost database connection: logged, and the next poll tries again.
        this.o.logger.error({ err }, 'job scan failed');
      } finally {
        this.scanning = undefined;
      }
    })();
    return this.scanning;
  }

  /** Claims due jobs up to the free concurrency and starts them; answers how many. */
  private async scanOnce(): Promise<number> {
    const free = this.concurrency - this.running.size;
    if (free <= 0 || this.closed) return 0;
    const now = this.o.clock.now().toISOString();
    const due = await this.o.db
      .selectFrom('jobs')
      .select(['id', 'kind', 'payload', 'attempts', 'status', 'locked_until'])
      .where((eb) =>
        eb.or([
          eb.and([eb('status', '=', 'QUEUED'), eb('run_after', '<=', now)]),
          // A worker that died mid-job: its lease has run out.
          eb.and([eb('status', '=', 'RUNNING'), eb('locked_until', '<', now)]),
        ]),
      )
      .where('kind', 'in', [...this.handlers.keys(), ''])
      .orderBy('run_after')
      .limit(Math.min(free, BATCH))
      .execute();
    let claimed = 0;
    for (const job of due) {
      const lockedUntil = new Date(this.o.clock.now().getTime() + this.leaseMs).toISOString();
      const taken = await this.o.db
        .updateTable('jobs')
        .set({
          status: 'RUNNING',
          attempts: job.attempts + 1,
          locked_until: lockedUntil,
          updated_at: now,
        })
        .where('id', '=', job.id)
        .where('status', '=', job.status)
        .where('attempts', '=', job.attempts)
        .executeTakeFirst();
      if (Number(taken.numUpdatedRows) !== 1) continue; // another worker was faster
      claimed++;
      const run = this.execute(job.id, job.kind, job.payload, job.attempts + 1)
        .catch((err: unknown) =>
          // Recording the outcome failed (the database went away): the lease runs out and
          // the job runs again.
          this.o.logger.error({ err, jobId: job.id }, 'job outcome not recorded'),
        )
        .finally(() => {
          this.running.delete(run);
          this.kick();
        });
      this.running.add(run);
    }
    return claimed;
  }

  private async execute(id: string, kind: string, raw: string, attempt: number): Promise<void> {
    const handler = this.handlers.get(kind);
    const payload = JSON.parse(raw) as Record<string, unknown>;
    try {
      if (!handler) throw new Error(`no handler for job kind ${kind}`);
      await handler.run(payload, { id, attempt });
      await this.finish(id, { status: 'DONE', last_error: null, locked_until: null });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const last = attempt >= this.maxAttempts;
      this.o.logger.warn({ err, jobId: id, kind, attempt }, 'job failed');
      // Backoff: 2 s, 4 s, 8 s … between attempts.
      const runAfter = new Date(this.o.clock.now().getTime() + 1000 * 2 ** attempt).toISOString();
      await this.finish(id, {
        status: last ? 'FAILED' : 'QUEUED',
        last_error: message.slice(0, 2000),
        locked_until: null,
        ...(last ? {} : { run_after: runAfter }),
      });
      if (last && handler?.failed) await handler.failed(payload, message).catch(() => undefined);
    }
  }

  private async finish(
    id: string,
    values: { status: string; last_error: string | null; locked_until: null; run_after?: string },
  ): Promise<void> {
    await this.o.db
      .updateTable('jobs')
      .set({ ...values, updated_at: this.o.clock.now().toISOString() })
      .where('id', '=', id)
      .execute();
  }
}
