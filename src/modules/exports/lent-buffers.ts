/** Smallest buffer the pool hands out; sizes above it are rounded up to a power of two. */
const MIN_SIZE = 64 * 1024;

/**
 * Buffers that the DATEV export reads its PDFs into, lent to the ZIP stream and given back
 * once the response's socket has taken a chunk's bytes (`returned`), so the next PDF reuses
 * them. Read each into a buffer of its own, thousands of PDFs leave their buffers to the
 * garbage collector: the buffers outlive the young generation while they wait in the
 * read-ahead and the socket, and only a full collection frees them, which V8 starts once about
 * 64 MiB of such memory has piled up. That pile was most of an export's growth in memory
 * (docs/benchmarks.md, "A PDF's buffer given back").
 *
 * Only a chunk handed back without error is reused: a write that failed may still be in the
 * kernel's hands, so its buffer is left to the garbage collector, as is every buffer lent and
 * never returned. One pool per export, so nothing is held between exports. Written here
 * rather than taken from a library: it is a free list by size with a cap, and the part that
 * matters (when a buffer may be reused) is this export's own.
 */
export class LentBuffers {
  /** Idle buffers by size. */
  private readonly idle = new Map<number, Buffer[]>();
  private idleBytes = 0;
  /** A lent view (what the stream carries) → the whole buffer it is the start of. */
  private readonly lent = new WeakMap<Uint8Array, Buffer>();

  /** `maxIdleBytes`: idle buffers kept for reuse beyond this are left to the garbage collector. */
  constructor(private readonly maxIdleBytes: number) {}

  /** A buffer of at least `size` bytes, idle or new; give it back with `give` or `lend` it. */
  take(size: number): Buffer {
    const whole = sizeFor(size);
    const buffer = this.idle.get(whole)?.pop();
    if (buffer === undefined) return Buffer.allocUnsafeSlow(whole);
    this.idleBytes -= whole;
    return buffer;
  }

  /** `view`, the start of `buffer`, goes out in the stream; `returned(view)` brings `buffer` back. */
  lend(view: Uint8Array, buffer: Buffer): void {
    this.lent.set(view, buffer);
  }

  /** A chunk whose bytes have left the process: its buffer is idle again if it was lent. */
  returned(view: Uint8Array): void {
    const buffer = this.lent.get(view);
    if (buffer === undefined) return;
    this.lent.delete(view);
    this.give(buffer);
  }

  /** A buffer taken and not lent (its file was read elsewhere, or not at all). */
  give(buffer: Buffer): void {
    if (this.idleBytes + buffer.length > this.maxIdleBytes) return;
    const list = this.idle.get(buffer.length);
    if (list === undefined) this.idle.set(buffer.length, [buffer]);
    else list.push(buffer);
    this.idleBytes += buffer.length;
  }
}

/** The size a buffer for `size` bytes gets: MIN_SIZE, or the next power of two. */
function sizeFor(size: number): number {
  return size <= MIN_SIZE ? MIN_SIZE : 2 ** Math.ceil(Math.log2(size));
}
