import pino from 'pino';

/** Lines gather up to this many bytes before they are written (pino's advice for async logs). */
const BUFFER_BYTES = 4096;
/** A line waits at most this long before it is written, however quiet the server is. */
export const LOG_FLUSH_MS = 200;

type Destination = ReturnType<typeof pino.destination>;

/**
 * Standard output for the log, written in batches: lines gather in memory until 4 KB are
 * waiting or the first of them has waited 200 ms, then go out in one write on libuv's thread
 * pool. Writing every line on its own (one write, one thread-pool round and one callback per
 * request) took 6 % of a GET's CPU (docs/benchmarks.md). pino writes what is left when the
 * process exits, also after a fatal error; a process killed outright (SIGKILL, OOM) loses at
 * most the last 200 ms of lines.
 */
export class LogOutput {
  private timer: NodeJS.Timeout | undefined;
  private readonly flushNow = () => {
    this.timer = undefined;
    // Destroyed (the process is ending) or not yet open: pino's exit handler writes the rest.
    try {
      this.destination.flush();
    } catch {
      // nothing to do; see above
    }
  };

  constructor(
    private readonly destination: Destination = pino.destination({
      dest: 1,
      sync: false,
      minLength: BUFFER_BYTES,
    }),
  ) {}

  /** pino's stream interface: one serialised line. */
  write(line: string): boolean {
    const written = this.destination.write(line);
    if (this.timer === undefined) {
      this.timer = setTimeout(this.flushNow, LOG_FLUSH_MS);
      this.timer.unref();
    }
    return written;
  }

  flush(cb?: (err?: Error) => void): void {
    this.destination.flush(cb);
  }

  /** Writes every waiting line before it returns (shutdown; pino's `flush` when final). */
  flushSync(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.destination.flushSync();
  }
}
