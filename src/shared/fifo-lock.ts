/**
 * A lock handed on in the order it was asked for. `acquire` answers undefined when the lock
 * was free (taken at once, no promise and no microtask on the hot path) and otherwise a
 * promise that resolves when it is this caller's turn; every acquire is followed by one
 * `release`.
 */
export class FifoLock {
  private held = false;
  private readonly waiters: (() => void)[] = [];

  acquire(): Promise<void> | undefined {
    if (!this.held) {
      this.held = true;
      return undefined;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  release(): void {
    const next = this.waiters.shift();
    if (next) next();
    else this.held = false;
  }

  /** Whether nobody holds the lock or waits for it. */
  get idle(): boolean {
    return !this.held;
  }
}

/**
 * One `FifoLock` per key: `run(key, work)` runs `work` after every earlier `run` of the same
 * key has settled (succeeded or failed), and runs works of different keys side by side. A
 * key's lock is dropped when nobody holds or waits for it.
 */
export class KeyedFifo {
  private readonly locks = new Map<string, FifoLock>();

  async run<T>(key: string, work: () => Promise<T>): Promise<T> {
    let lock = this.locks.get(key);
    if (!lock) this.locks.set(key, (lock = new FifoLock()));
    const wait = lock.acquire();
    if (wait) await wait;
    try {
      return await work();
    } finally {
      lock.release();
      if (lock.idle) this.locks.delete(key);
    }
  }

  /** The keys with a holder (for tests). */
  get size(): number {
    return this.locks.size;
  }
}
