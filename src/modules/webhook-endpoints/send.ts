import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';

/** What one attempt learned: the answer's status and start, or why there was none. */
export interface AttemptResult {
  statusCode: number | null;
  latencyMs: number;
  /** The first kilobyte of the answer body (NUL removed: PostgreSQL text cannot hold it). */
  excerpt: string | null;
  error: string | null;
}

export const EXCERPT_BYTES = 1024;
/** Read at most this much of an answer, then hang up: nobody needs a receiver's novel. */
const MAX_READ_BYTES = 64 * 1024;

/**
 * A resolver that answers the address that was checked, whatever the name: the connection
 * goes where the target check looked, not where a second DNS answer points (rebinding).
 * TLS still verifies the certificate against the URL's host name.
 */
function pinned(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs `body` to `url` at `address`: no redirects followed (a 3xx is a failed attempt), no
 * connection reuse, the whole exchange bounded by `timeoutMs`.
 */
export function post(
  target: { url: URL; address: string; family: 4 | 6 },
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: Omit<AttemptResult, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...result, latencyMs: elapsed() });
    };
    const client = target.url.protocol === 'https:' ? https : http;
    const req = client.request(
      target.url,
      {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'user-agent': 'Kontor-Webhooks/1.0',
        },
        lookup: pinned(target.address, target.family),
        agent: false,
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let read = 0;
        const finish = () => {
          const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
          settle({
            statusCode: res.statusCode ?? null,
            excerpt: text.replaceAll('\u0000', ''),
            error: null,
          });
        };
        res.on('data', (chunk: Buffer) => {
          if (read < EXCERPT_BYTES) chunks.push(chunk);
          read += chunk.length;
          if (read > MAX_READ_BYTES) {
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', finish);
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const timedOut = err.name === 'AbortError' || err.name === 'TimeoutError';
      settle({
        statusCode: null,
        excerpt: null,
        error: timedOut
          ? `no answer within ${timeoutMs} ms`
          : `${err.code ?? err.name}: ${err.message}`.slice(0, 500),
      });
    });
    req.end(body);
  });
}
