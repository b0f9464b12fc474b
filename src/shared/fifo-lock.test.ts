import { describe, expect, it } from 'vitest';
import { FifoLock, KeyedFifo } from './fifo-lock.js';

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

describe('KeyedFifo', () => {
  it('runs one key’s works one after the other, other keys beside them, past failures', async () => {
    const turns = new KeyedFifo();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const a1 = turns.run('a', async () => {
      log.push('a1 start');
      await gate;
      log.push('a1 end');
      throw new Error('a1 failed');
    });
    const a2 = turns.run('a', () => {
      log.push('a2');
      return Promise.resolve(2);
    });
    const b1 = turns.run('b', () => {
      log.push('b1');
      return Promise.resolve(1);
    });
    await b1;
    await tick();
    expect(log).toEqual(['a1 start', 'b1']);
    release();
    await expect(a1).rejects.toThrow('a1 failed');
    await expect(a2).resolves.toBe(2);
    expect(log).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
    expect(turns.size).toBe(0);
  });
});
