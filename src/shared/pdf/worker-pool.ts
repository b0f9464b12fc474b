import { Worker } from 'node:worker_threads';
import { settings } from '../../config.js';
import { AppError, type ErrorCode } from '../errors.js';

/**
 * A bounded pool of worker threads for pdf.js (issue: rasterizing a heavy PDF blocked the
 * event loop for 21 s and `/health` stalled 11.6 s). Each job gets a time limit, after which
 * its worker is terminated (422: the PDF is too heavy — content-bound, a retry would not help),
 * and each worker a JavaScript heap limit (`resourceLimits`; a breach ends the worker: 422).
 * A crashed or terminated worker is replaced by the next job. Waiting jobs are bounded: more
 * answer 503 with `Retry-After`. The pool lives in the process, for SQLite and PostgreSQL
 * deployments alike.
 */

export interface PoolOptions {
  /** Worker threads at most (started on demand, kept warm). */
  size: number;
  /** Jobs that may wait for a worker; more are refused with 503. */
  queueLimit: number;
  /** JavaScript heap of one worker, in MiB (`resourceLimits.maxOldGenerationSizeMb`). */
  maxMemoryMb: number;
  /** The worker module; default `pdf-worker.js` beside this module (tests: a stand-in). */
  entry?: URL;
}

/** What a worker posts back for job `id`. */
export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | {
      id: number;
      ok: false;
      error: { code?: ErrorCode; message: string; extras?: AppError['extras'] };
    };

/** What a worker receives. */
export interface WorkerRequest {
  id: number;
  op: string;
  input: unknown;
  options: unknown;
}

interface Job {
  id: number;
  op: string;
  input: unknown;
  options: unknown;
  timeoutMs: number;
  what: string;
  /** Buffers handed to the worker instead of copied (the caller's own copy of the input). */
  transfer: ArrayBuffer[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  timer?: NodeJS.Timeout;
  started?: number;
  dead: boolean;
}

/** The in-worker deadline usually answers first; the hard stop follows after this grace. */
const KILL_GRACE_MS = 1000;

/**
 * Vitest runs the TypeScript sources: this worker code registers tsx in the thread, then
 * imports `pdf-worker.ts`. (Production runs compiled JavaScript; no loader is needed there.)
 */
const TYPESCRIPT_BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.tsx).then(({ register }) => {
  register();
  return import(workerData.entry);
});
`;

/**
 * How to start a worker. Production runs compiled JavaScript from `dist/`, where
 * `pdf-worker.js` sits beside this file; under vitest this file is TypeScript, and the worker
 * is a small bootstrap that loads tsx first.
 */
function defaultEntry(): { url: URL | string; eval?: boolean; workerData?: unknown } {
  if (import.meta.url.endsWith('.ts'))
    return {
      url: TYPESCRIPT_BOOTSTRAP,
      eval: true,
      workerData: {
        tsx: import.meta.resolve('tsx/esm/api'),
        entry: new URL('./pdf-worker.ts', import.meta.url).href,
      },
    };
  return { url: new URL('./pdf-worker.js', import.meta.url) };
}

function fromReply(error: Extract<WorkerReply, { ok: false }>['error']): Error {
  if (error.code) return new AppError(error.code, error.message, error.extras ?? {});
  return new Error(error.message);
}

/** Worker threads for pdf.js jobs: bounded, time- and memory-limited, self-healing. */
export class PdfWorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Moving average of job time, for `Retry-After`. */
  private averageMs = 2000;
  /** Workers ended by a time or memory limit or a crash (and replaced on demand). */
  replaced = 0;

  constructor(private readonly options: PoolOptions) {}

  /**
   * Runs `op` in a worker. Rejects with the job's own error (AppErrors keep code, status and
   * field errors), 422 `file_unprocessable` when it takes longer than `timeoutMs` (+1 s grace)
   * or exceeds the memory limit, 503 when the queue is full, the pool is closed or the worker
   * crashed. `transfer`: buffers of `input` moved to the worker instead of copied.
   */
  run<T>(
    op: string,
    input: unknown,
    options: unknown,
    timeoutMs: number,
    what: string,
    transfer: ArrayBuffer[] = [],
  ): Promise<T> {
    if (this.closed)
      return Promise.reject(new AppError('service_unavailable', 'PDF workers are shutting down.'));
    const idle = this.slots.find((s) => !s.job && !s.dead);
    const canStart = idle !== undefined || this.slots.length < this.options.size;
    if (!canStart && this.queue.length >= this.options.queueLimit)
      return Promise.reject(
        new AppError('service_unavailable', 'Too many PDFs are being processed; try again later.', {
          headers: { 'retry-after': String(this.retryAfterSeconds()) },
        }),
      );
    return new Promise<T>((resolve, reject) => {
      const job: Job = {
        id: this.nextId++,
        op,
        input,
        options,
        timeoutMs,
        what,
        transfer,
        resolve,
        reject,
      };
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Workers, busy workers and waiting jobs (tests and diagnostics). */
  stats(): { workers: number; busy: number; queued: number; replaced: number } {
    return {
      workers: this.slots.length,
      busy: this.slots.filter((s) => s.job).length,
      queued: this.queue.length,
      replaced: this.replaced,
    };
  }

  /** Refuses new jobs, fails waiting and running ones with 503 and ends the workers. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      job.reject(new AppError('service_unavailable', 'PDF workers are shutting down.'));
    await Promise.all(
      this.slots.splice(0).map((slot) => {
        slot.dead = true;
        clearTimeout(slot.timer);
        slot.job?.reject(new AppError('service_unavailable', 'PDF workers are shutting down.'));
        return slot.worker.terminate();
      }),
    );
  }

  private retryAfterSeconds(): number {
    const waves = Math.ceil((this.queue.length + 1) / this.options.size);
    return Math.min(60, Math.max(1, Math.ceil((waves * this.averageMs) / 1000)));
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job && !s.dead);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      this.start(slot, this.queue.shift()!);
    }
  }

  private spawn(): Slot {
    const entry: ReturnType<typeof defaultEntry> = this.options.entry
      ? { url: this.options.entry }
      : defaultEntry();
    const worker = new Worker(entry.url, {
      eval: entry.eval ?? false,
      workerData: entry.workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: this.options.maxMemoryMb,
        maxYoungGenerationSizeMb: Math.min(64, Math.max(8, this.options.maxMemoryMb / 8)),
      },
      // The worker's output is pdf.js's warnings; it must not hold the service's secrets.
      env: {},
    });
    const slot: Slot = { worker, dead: false };
    worker.unref();
    worker.on('message', (reply: WorkerReply) => this.onReply(slot, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      const job = slot.job;
      this.retire(slot);
      if (!job) return;
      job.reject(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new AppError(
              'file_unprocessable',
              `${job.what} needed more than ${this.options.maxMemoryMb} MiB of memory; the PDF is too large or too complex.`,
            )
          : new AppError('service_unavailable', `${job.what} failed: the PDF worker crashed.`, {
              headers: { 'retry-after': '1' },
            }),
      );
    });
    worker.on('exit', () => {
      const job = slot.job;
      this.retire(slot);
      job?.reject(
        new AppError('service_unavailable', `${job.what} failed: the PDF worker stopped.`, {
          headers: { 'retry-after': '1' },
        }),
      );
    });
    this.slots.push(slot);
    return slot;
  }

  private start(slot: Slot, job: Job): void {
    slot.job = job;
    slot.started = Date.now();
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      // Blocked or too slow: only ending the thread stops pdf.js.
      this.retire(slot);
      void slot.worker.terminate();
      job.reject(
        new AppError(
          'file_unprocessable',
          `${job.what} took longer than ${job.timeoutMs} ms; the PDF is too large or too complex.`,
        ),
      );
    }, job.timeoutMs + KILL_GRACE_MS);
    const request: WorkerRequest = {
      id: job.id,
      op: job.op,
      input: job.input,
      options: job.options,
    };
    slot.worker.postMessage(request, job.transfer);
  }

  private onReply(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (slot.dead || !job || reply.id !== job.id) return;
    clearTimeout(slot.timer);
    this.averageMs = 0.8 * this.averageMs + 0.2 * (Date.now() - (slot.started ?? Date.now()));
    slot.job = undefined;
    slot.worker.unref();
    if (reply.ok) job.resolve(reply.value);
    else job.reject(fromReply(reply.error));
    this.dispatch();
  }

  /** Takes a worker out of the pool (once); the next job starts a fresh one. */
  private retire(slot: Slot): void {
    if (slot.dead) return;
    slot.dead = true;
    slot.job = undefined;
    clearTimeout(slot.timer);
    this.replaced++;
    const index = this.slots.indexOf(slot);
    if (index !== -1) this.slots.splice(index, 1);
    if (!this.closed) this.dispatch();
  }
}

let shared: PdfWorkerPool | undefined;

/** Pool settings from `PDF_WORKERS`, `PDF_WORKER_QUEUE_LIMIT`, `PDF_WORKER_MAX_MEMORY_MB`. */
function optionsFromEnvironment(): PoolOptions {
  return {
    size: settings.pdfWorkers.parse(process.env.PDF_WORKERS),
    queueLimit: settings.pdfWorkerQueueLimit.parse(process.env.PDF_WORKER_QUEUE_LIMIT),
    maxMemoryMb: settings.pdfWorkerMaxMemoryMb.parse(process.env.PDF_WORKER_MAX_MEMORY_MB),
  };
}

/** The process's pool for `rasterizePdf` and `analysePdf`, created on first use. */
export function pdfWorkers(): PdfWorkerPool {
  shared ??= new PdfWorkerPool(optionsFromEnvironment());
  return shared;
}

/** Ends the process's pool (shutdown); a later job starts a new one. */
export async function closePdfWorkers(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
