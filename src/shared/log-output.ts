import fs from 'node:fs';
import pino from 'pino';

/** Lines gather up to this many characters before they are written (pino's advice for async logs). */
const BUFFER_CHARS = 4096;
/** A line waits at most this long before it is written, however quiet the server is. */
export const LOG_FLUSH_MS = 200;

type Destination = ReturnType<typeof pino.destination>;

/** Outputs holding lines not yet handed to their destination (written at `exit`). */
const holding = new Set<LogOutput>();
let endHooked = false;

function hookEnd(): void {
  if (endHooked) return;
  endHooked = true;
  // First, before the destination's own end handler (pino registers it when it opens one).
  process.prependListener('exit', () => {
    for (const output of holding) output.flushSync();
  });
}

/**
 * Standard output for the log, written in batches: lines gather in memory until 4 KB are
 * waiting or the first of them has waited 200 ms, then go out in one write on libuv's thread
 * pool. Writing every line on its own (one write, one thread-pool round and one callback per
 * request) took 6 % of a GET's CPU (docs/benchmarks.md).
 *
 * The lines gather here, as a list joined once per batch, not in the destination: sonic-boom
 * appends each line to one string and measures that whole string's bytes on every write, which
 * cost 3.5–4.4 µs a line where the list costs 0.7–1.0 µs (docs/benchmarks.md).
 *
 * When the process ends on its own, calls `process.exit` or dies of an uncaught error, what is
 * waiting is written then, synchronously; only a batch the thread pool is writing at that moment
 * may not reach the output, or reach it after the lines written at exit (its write is not
 * waited for, as in pino's own destination). A process killed outright (SIGKILL, OOM) loses at
 * most the last 200 ms of lines.
 */
export class LogOutput {
  private lines: string[] = [];
  private chars = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly flushNow = () => {
    this.timer = undefined;
    // Destroyed (the process is ending): the exit handler writes the rest.
    try {
      this.handOver();
      this.destination.flush();
    } catch {
      // nothing to do; see above
    }
  };

  constructor(private readonly destination: Destination = pino.destination(DESTINATION)) {
    hookEnd();
  }

  /** pino's stream interface: one serialised line. */
  write(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length;
    if (this.chars >= BUFFER_CHARS) {
      this.handOver();
    } else if (this.timer === undefined) {
      holding.add(this);
      this.timer = setTimeout(this.flushNow, LOG_FLUSH_MS);
      this.timer.unref();
    }
    return true;
  }

  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.destination.flush(cb);
  }

  /** The waiting lines, as one string, to the destination (which writes it when it can). */
  handOver(): void {
    const text = this.take();
    if (text) this.destination.write(text);
  }

  /**
   * Writes every waiting line before it returns (shutdown, and at `exit` with no more turns of
   * the event loop): what the destination holds, then the lines waiting here, synchronously.
   * (Handing them over would start a write on the thread pool, which may never run.)
   */
  flushSync(): void {
    const text = this.take();
    // sonic-boom's descriptor and state, public but not in its types.
    const { fd, destroyed } = this.destination as unknown as { fd?: unknown; destroyed?: boolean };
    if (destroyed) return;
    // Not open yet: the destination writes the lines once it is (lost if the process ends first).
    if (typeof fd !== 'number' || fd < 0) {
      if (text) this.destination.write(text);
      return;
    }
    try {
      this.destination.flushSync();
      if (text) writeAllSync(fd, text);
    } catch {
      // the destination is gone (closed descriptor, full disk): nothing left to write to
    }
  }

  /** The waiting lines joined ('' for none), no longer waiting: the timer stopped. */
  private take(): string {
    clearTimeout(this.timer);
    this.timer = undefined;
    holding.delete(this);
    const text = this.lines.join('');
    this.lines = [];
    this.chars = 0;
    return text;
  }
}

/**
 * Standard output's destination: written asynchronously. `minLength` 1 rather than 0: a
 * write still starts as soon as a batch is handed over, and `flush(cb)` waits for the bytes
 * (with 0, sonic-boom answers a flush at once).
 */
export const DESTINATION = { dest: 1, sync: false, minLength: 1 } as const;

/**
 * `text` written whole to `fd`, synchronously: a pipe that libuv made non-blocking may take
 * part of it or answer EAGAIN, retried for at most a second (as sonic-boom's `flushSync`).
 */
function writeAllSync(fd: number, text: string): void {
  let rest = Buffer.from(text);
  const deadline = Date.now() + 1000;
  while (rest.length > 0) {
    try {
      rest = rest.subarray(fs.writeSync(fd, rest));
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if ((code !== 'EAGAIN' && code !== 'EBUSY') || Date.now() > deadline) throw err;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}
