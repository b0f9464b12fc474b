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

  /** Whether somebody waits for the lock. */
  get queued(): boolean {
    return this.waiters.length > 0;
  }

  /** Whether nobody holds the lock or waits for it. */
  get idle(): boolean {
    return !this.held;
  }
}
