import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';

const { chindingsSym, streamSym } = pino.symbols;
const INFO = pino.levels.values.info!;

/**
 * One access-log line per request, when it completes (Fastify's default writes two). The path
 * only: signed links carry tokens in their query strings.
 *
 * `direct`: the app's own logger (pino with its default time, level and message keys, as
 * `loggerOptions` in app.ts makes it). The line then is written as the text pino would write
 * — `{"level":30,"time":…,<the request logger's bindings>,"method":…,…,"msg":"request"}` —
 * straight into the logger's stream, through pino's documented `symbols`, past pino's general
 * path (a key-by-key walk of the object with serializer and redaction lookups): GET
 * /v1/partners/{id} on SQLite 82 → 80 and 88 → 84 µs of CPU in two runs (docs/benchmarks.md).
 * The line holds no credential (nothing redaction would remove). Any other logger (a test's)
 * is called as usual.
 */
export class AccessLog extends LogController {
  constructor(private readonly direct: boolean) {
    super();
  }

  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    req: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      req.log.error({ ...this.line(req, reply), err: error }, 'request errored');
      return;
    }
    // pino's documented `symbols` and `levelVal`: the request logger's bindings, as the text
    // pino writes them (`,"pid":…,"hostname":…,"reqId":…`), and its stream.
    const log = req.log as unknown as Record<symbol, unknown> & { levelVal?: number };
    const stream = log[streamSym] as { write?: (line: string) => unknown } | undefined;
    const bindings = log[chindingsSym];
    if (!this.direct || typeof stream?.write !== 'function' || typeof bindings !== 'string') {
      req.log.info(this.line(req, reply), 'request');
      return;
    }
    if ((log.levelVal ?? INFO) > INFO) return;
    // The same fields as `line`, written without building it.
    const ip = req.ip as string | undefined;
    const account = req.principal?.accountId;
    stream.write(
      `{"level":${INFO},"time":${Date.now()}${bindings},"method":${JSON.stringify(req.method)},"url":${JSON.stringify(loggedUrl(req.url))},"status":${reply.statusCode},"ms":${Math.round(reply.elapsedTime * 10) / 10}${
        ip === undefined ? '' : `,"ip":${JSON.stringify(ip)}`
      }${account === undefined ? '' : `,"account":${JSON.stringify(account)}`},"msg":"request"}\n`,
    );
  }

  /** The access line's fields. */
  private line(req: FastifyRequest, reply: FastifyReply) {
    return {
      method: req.method,
      url: loggedUrl(req.url),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
      ip: req.ip as string | undefined,
      account: req.principal?.accountId,
    };
  }
}

/**
 * A request's URL as logs keep it: the path only (signed links carry their token in the query
 * string), and a customer page's token (`/c/{token}/…`) masked, since the token opens the page.
 */
export function loggedUrl(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.startsWith('/c/') ? path.replace(/^\/c\/[^/]+/, '/c/[token]') : path;
}
