import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { writeLentChunks } from './lent-chunks.js';

const chunk = (n: number) => Buffer.alloc(4096, n);
const tick = () => new Promise((resolve) => setTimeout(resolve, 1));

/** Chunks 1 … `count`, each a moment after the last (as files read from a disk come). */
async function* numbered(count: number) {
  for (let i = 1; i <= count; i++) {
    await tick();
    yield chunk(i);
  }
}

/** A log whose lines the test reads. */
const logged = () => ({ error: vi.fn(), info: vi.fn() });

/** A socket that takes each chunk's bytes a moment after the write (as a full kernel buffer does). */
function lateSocket(events: string[], fail?: (n: number) => boolean) {
  let n = 0;
  return new Writable({
    highWaterMark: 1024,
    write(data: Buffer, _encoding, done) {
      const which = data[0]!;
      n++;
      const failing = fail?.(n) ?? false;
      setTimeout(() => {
        events.push(`taken ${which}`);
        done(failing ? new Error('reset') : null);
      }, 2);
    },
  });
}

describe('writeLentChunks', () => {
  it('returns each chunk after the socket took its bytes, in order, and ends the answer', async () => {
    const events: string[] = [];
    const socket = lateSocket(events);
    const log = logged();
    await writeLentChunks(socket, numbered(3), (c) => events.push(`returned ${c[0]}`), log);
    expect(events).toEqual([
      'taken 1',
      'returned 1',
      'taken 2',
      'returned 2',
      'taken 3',
      'returned 3',
    ]);
    expect(socket.writableEnded).toBe(true);
    expect(log.error).not.toHaveBeenCalled();
    expect(log.info).not.toHaveBeenCalled();
  });

  it('never returns a chunk whose write failed', async () => {
    const events: string[] = [];
    const returned = vi.fn();
    const socket = lateSocket(events, (n) => n === 2);
    socket.on('error', () => undefined);
    await writeLentChunks(socket, numbered(3), (c) => returned(c[0]), logged());
    expect(returned.mock.calls).toEqual([[1]]);
    expect(socket.destroyed).toBe(true);
  });

  it('stops the chunks when the client goes away, logging it at info, not as an error', async () => {
    let closed = false;
    let produced = 0;
    const socket = new Writable({
      write(_data, _encoding, done) {
        done();
        if (produced === 2) socket.destroy();
      },
    });
    const log = logged();
    await writeLentChunks(
      socket,
      (async function* () {
        try {
          for (let i = 1; i <= 100; i++) {
            produced = i;
            yield chunk(i);
            await tick();
          }
        } finally {
          closed = true;
        }
      })(),
      () => undefined,
      log,
    );
    expect(closed).toBe(true);
    expect(produced).toBeLessThan(5);
    expect(log.error).not.toHaveBeenCalled();
    expect(log.info).toHaveBeenCalledOnce();
  });

  it('starts no chunk for a client that went away while the answer was prepared', async () => {
    const socket = new Writable({
      write(_data, _encoding, done) {
        done();
      },
    });
    socket.destroy();
    let started = false;
    const log = logged();
    await writeLentChunks(
      socket,
      (async function* () {
        started = true;
        await tick();
        yield chunk(1);
      })(),
      () => undefined,
      log,
    );
    expect(started).toBe(false);
    expect(log.info).toHaveBeenCalledOnce();
  });

  it('logs a producer that fails once the answer has begun, and cuts the connection', async () => {
    const socket = new Writable({
      write(_data, _encoding, done) {
        done();
      },
    });
    const log = logged();
    await writeLentChunks(
      socket,
      (async function* () {
        yield chunk(1);
        await Promise.resolve();
        throw new Error('disk gone');
      })(),
      () => undefined,
      log,
    );
    expect(log.error).toHaveBeenCalledOnce();
    expect(log.info).not.toHaveBeenCalled();
    expect(socket.destroyed).toBe(true);
    expect(socket.writableFinished).toBe(false);
  });
});
