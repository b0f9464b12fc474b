import { describe, expect, it } from 'vitest';
import { FifoLock } from './fifo-lock.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FifoLock', () => {
  it('is taken at once when free and handed on in the order it was asked for', async () => {
    const lock = new FifoLock();
    expect(lock.acquire()).toBeUndefined();
    const order: number[] = [];
    const waits = [1, 2, 3].map((n) => lock.acquire()!.then(() => order.push(n)));
    lock.release();
    await tick();
    expect(order).toEqual([1]);
    lock.release();
    lock.release();
    await Promise.all(waits);
    expect(order).toEqual([1, 2, 3]);
    expect(lock.idle).toBe(false);
    lock.release();
    expect(lock.idle).toBe(true);
  });
});
