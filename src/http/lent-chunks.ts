import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { FastifyReply } from 'fastify';

/**
 * Answers `chunks` (the body's bytes, in order) with the reply's status and headers as set,
 * writing each chunk to the response itself and handing it to `returned` once the socket has
 * taken its bytes (the write's callback, without an error), so the producer can reuse a buffer
 * it lent (the DATEV export's PDFs, src/modules/exports/lent-buffers.ts). Fastify's own stream
 * answer pipes without a callback per chunk, so the reply is hijacked: its `onSend` hooks do
 * not run (a GET has none here); `onResponse` and the access line do. Backpressure as `pipe`
 * keeps it: a write the socket cannot take yet waits for `drain`. A client that goes away
 * (also before the first chunk) stops the chunks, whose generator's `finally` runs if it had
 * begun, and is logged at info; a producer that fails once the head is out is logged as an
 * error and the connection cut, as Fastify does for a failing stream. The head is written
 * before the reply is hijacked, so a head Node refuses still reaches Fastify's error handler.
 */
export function sendLentChunks(
  reply: FastifyReply,
  chunks: AsyncIterable<Uint8Array>,
  returned: (chunk: Uint8Array) => void,
): Promise<void> {
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.writeHead(reply.statusCode);
  reply.hijack();
  return writeLentChunks(reply.raw, chunks, returned, reply.log);
}

/** `sendLentChunks` after the head: the body's chunks written to `res`, then its end. */
export async function writeLentChunks(
  res: Writable,
  chunks: AsyncIterable<Uint8Array>,
  returned: (chunk: Uint8Array) => void,
  log: Record<'error' | 'info', (details: object, message: string) => void>,
): Promise<void> {
  if (res.destroyed) {
    // Gone while the answer was being prepared: its 'close' came before any listener here.
    log.info({}, GONE);
    return;
  }
  const gone = new AbortController();
  const onClose = () => gone.abort();
  res.once('close', onClose);
  try {
    for await (const chunk of chunks) {
      if (gone.signal.aborted) break;
      const taken = res.write(chunk, (err) => {
        if (!err) returned(chunk);
      });
      if (!taken) await once(res, 'drain', { signal: gone.signal });
    }
    if (!gone.signal.aborted) res.end();
  } catch (err) {
    if (!gone.signal.aborted) log.error({ err }, 'streamed answer failed');
    res.destroy();
  } finally {
    res.off('close', onClose);
  }
  if (gone.signal.aborted) log.info({}, GONE);
}

const GONE = 'the client went away before the answer was complete';
