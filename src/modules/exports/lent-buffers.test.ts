import { describe, expect, it } from 'vitest';
import { LentBuffers } from './lent-buffers.js';

describe('LentBuffers', () => {
  it('hands out buffers of 64 KiB or the next power of two', () => {
    const pool = new LentBuffers(1 << 20);
    expect(pool.take(0).length).toBe(65_536);
    expect(pool.take(65_536).length).toBe(65_536);
    expect(pool.take(65_537).length).toBe(131_072);
    expect(pool.take(3_000_000).length).toBe(4_194_304);
  });

  it('reuses a lent buffer once its view is returned, and only then', () => {
    const pool = new LentBuffers(1 << 20);
    const first = pool.take(60_000);
    const view = first.subarray(0, 60_000);
    pool.lend(view, first);
    // Still lent: the next take gets a new buffer.
    const second = pool.take(60_000);
    expect(second).not.toBe(first);
    pool.give(second);
    // A chunk that was never lent (another view of the same bytes, a header) changes nothing.
    pool.returned(first.subarray(0, 60_000));
    pool.returned(new Uint8Array(10));
    expect(pool.take(60_000)).toBe(second);
    expect(pool.take(60_000)).not.toBe(first);
    pool.returned(view);
    expect(pool.take(60_000)).toBe(first);
    // Returned twice (it is not): the second time it is not lent any more.
    pool.returned(view);
    expect(pool.take(60_000)).not.toBe(first);
  });

  it('keeps at most its limit of idle bytes', () => {
    const pool = new LentBuffers(128 * 1024);
    const [a, b, c] = [pool.take(1), pool.take(1), pool.take(1)];
    pool.give(a);
    pool.give(b);
    pool.give(c); // over the limit: left to the garbage collector
    const again = [pool.take(1), pool.take(1), pool.take(1)];
    expect(again[0]).toBe(b);
    expect(again[1]).toBe(a);
    expect(again[2]).not.toBe(c);
  });
});
