import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { csvColumns, csvLine, textCell, type Column } from './csv-columns.js';

export { csvCell, csvColumns, textCell } from './csv-columns.js';

/**
 * Every list answers CSV for German spreadsheets when asked with `Accept: text/csv`
 * (docs/api-conventions.md, "CSV"): `;` between fields, decimal comma, UTF-8 with BOM, CRLF.
 * Nothing per module: a `GET` route whose 200 schema is a page (`{data, nextCursor}`, see
 * `PageOf`) is wrapped when it is registered, and in CSV mode its own handler is called page
 * after page (100 records each, with the previous page's `nextCursor`), the rows streamed as
 * they come. It is the same route, so authentication, rate limits, validation of the filters
 * and every other hook run once, as for JSON.
 */

type Json = Record<string, unknown>;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The list's CSV: top-level fields left out because they have a list of their own (a
     * document's `lineItems` and `taxes`: `GET /v1/documents/lines` and `/taxes`).
     */
    csv?: { omit?: readonly string[] };
  }
}

/** Records fetched per call of the list handler in CSV mode (the most `limit` allows). */
export const CSV_PAGE_SIZE = 100;

const BOM = '\uFEFF';
const CRLF = '\r\n';

/** Is `schema` a list page: an object of exactly `data` (an array) and `nextCursor`? */
export function isPageSchema(schema: unknown): boolean {
  if (typeof schema !== 'object' || schema === null) return false;
  const properties = (schema as Json).properties as Json | undefined;
  if (!properties) return false;
  const keys = Object.keys(properties).sort();
  return (
    keys.length === 2 &&
    keys[0] === 'data' &&
    keys[1] === 'nextCursor' &&
    (properties.data as Json | undefined)?.type === 'array'
  );
}

/** The quality a client's `Accept` gives `mediaType`: that of the most specific range matching it. */
function quality(ranges: { type: string; q: number }[], mediaType: string): number {
  const [major] = mediaType.split('/');
  const exact = ranges.find((r) => r.type === mediaType);
  const family = ranges.find((r) => r.type === `${major}/*`);
  const any = ranges.find((r) => r.type === '*/*');
  return (exact ?? family ?? any)?.q ?? 0;
}

/**
 * Content negotiation between JSON and CSV (RFC 9110 §12.5.1): CSV only when the client gives
 * `text/csv` a higher quality than `application/json`. No `Accept`, `*` / `*`, a tie, or
 * neither named: JSON, as before.
 */
export function prefersCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return { type, q: Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0 };
  });
  const csv = quality(ranges, 'text/csv');
  return csv > 0 && csv > quality(ranges, 'application/json');
}

interface Page {
  data: unknown[];
  nextCursor: string | null;
}

/** `/v1/contracts/:contractId/invoices` → `contracts-invoices`. */
function resourceName(url: string): string {
  const name = url
    .split('/')
    .filter((s) => s && s !== 'v1' && !s.startsWith(':'))
    .join('-')
    .replace(/[^A-Za-z0-9-]/g, '');
  return name || 'export';
}

/**
 * Wraps every list route registered after it so that it answers CSV when asked (see above).
 * `now` dates the file name.
 */
export function registerCsv(app: FastifyInstance, { now }: { now: () => Date }): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const methods = [route.method].flat();
    if (!methods.every((m) => m === 'GET' || m === 'HEAD')) return;
    const response = route.schema?.response as Record<string, unknown> | undefined;
    const page = response?.['200'];
    if (!isPageSchema(page)) return;
    const list = route.handler as (...args: unknown[]) => unknown;
    const csv = new CsvList(
      route.url,
      list,
      (page as { properties: { data: { items?: Json } } }).properties.data.items ?? {},
      now,
      route.config?.csv?.omit ?? [],
    );
    route.handler = function (this: FastifyInstance, req: FastifyRequest, reply: FastifyReply) {
      // Caches must keep the JSON and the CSV answer of a list apart.
      reply.header('vary', 'accept');
      if (!prefersCsv(req.headers.accept)) return list.call(this, req, reply);
      return csv.send(this, req, reply);
    };
  });
}

/** One list route's CSV answer: every page of the route's own handler, streamed as rows. */
class CsvList {
  private columns: Column[] | undefined;
  private readonly resource: string;

  constructor(
    private readonly url: string,
    private readonly list: (...args: unknown[]) => unknown,
    private readonly item: Json,
    private readonly now: () => Date,
    private readonly omit: readonly string[],
  ) {
    this.resource = resourceName(url);
  }

  /** One page from the route's own handler, on a request that differs only in its query. */
  private async fetchPage(
    server: FastifyInstance,
    req: FastifyRequest,
    reply: FastifyReply,
    query: Json,
  ): Promise<Page> {
    const pageRequest = Object.create(req, {
      query: { value: query, enumerable: true, writable: true },
    }) as FastifyRequest;
    const result = (await this.list.call(server, pageRequest, reply)) as Partial<Page> | undefined;
    if (!Array.isArray(result?.data) || result.nextCursor === undefined)
      throw new Error(`The list handler of ${this.url} did not answer a page`);
    return { data: result.data, nextCursor: result.nextCursor };
  }

  async send(
    server: FastifyInstance,
    req: FastifyRequest,
    reply: FastifyReply,
  ): Promise<FastifyReply> {
    const cols = (this.columns ??= csvColumns(
      this.item,
      (ref) => server.getSchema(ref) as Json | undefined,
      { omit: this.omit },
    ));
    // The export runs to the end of the list: the client's `limit` decides nothing; its
    // `cursor`, if any, is where the export starts, as the JSON page would.
    const { limit: _limit, cursor, ...filters } = (req.query ?? {}) as Json;
    const queryAt = (at: unknown): Json =>
      at === undefined
        ? { ...filters, limit: CSV_PAGE_SIZE }
        : { ...filters, limit: CSV_PAGE_SIZE, cursor: at };
    // The first page before the answer starts: a bad filter or cursor is still a problem.
    const first = await this.fetchPage(server, req, reply, queryAt(cursor));
    const head = BOM + cols.map((c) => textCell(c.name)).join(';') + CRLF;
    reply
      .type('text/csv; charset=utf-8')
      .header(
        'content-disposition',
        `attachment; filename="${this.resource}-${this.now().toISOString().slice(0, 10)}.csv"`,
      );
    if (req.method === 'HEAD') return reply.send(head);
    const next = (at: unknown) => this.fetchPage(server, req, reply, queryAt(at));
    return reply.send(Readable.from(rowsOf(req, cols, head, first, next), { objectMode: false }));
  }
}

/** The CSV body: the head, then every page's rows until the list ends. */
async function* rowsOf(
  req: FastifyRequest,
  cols: Column[],
  head: string,
  first: Page,
  fetchNext: (cursor: unknown) => Promise<Page>,
): AsyncGenerator<Buffer> {
  yield Buffer.from(head, 'utf8');
  let current = first;
  let rows = 0;
  try {
    for (;;) {
      if (current.data.length > 0)
        yield Buffer.from(current.data.map((r) => csvLine(cols, r)).join(''), 'utf8');
      rows += current.data.length;
      const next = current.nextCursor;
      if (next === null) return;
      current = await fetchNext(next);
    }
  } catch (err) {
    // The status (200) is out: the transfer is cut off (no final chunk), so the client sees a
    // broken download rather than a file that looks complete.
    req.log.error({ err, rows }, 'CSV export failed after the answer began');
    throw err;
  }
}
