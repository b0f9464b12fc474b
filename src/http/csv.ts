import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ISO_DATE_PATTERN } from '../shared/dates.js';
import { defuseFormula } from '../shared/spreadsheet.js';

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

type Kind = 'value' | 'date' | 'timestamp' | 'list' | 'json';
interface Column {
  name: string;
  path: string[];
  kind: Kind;
}

const isPrimitive = (s: Json) =>
  s.enum !== undefined ||
  s.const !== undefined ||
  [s.type].flat().some((t) => t === 'string' || t === 'number' || t === 'integer');

/**
 * The columns of `schema`, in the order of its properties: nested objects flattened into
 * dotted names (`electronicAddress.scheme`), lists of plain values as one cell, anything else
 * (lists of objects, free-form objects) as JSON in one cell.
 */
export function csvColumns(
  schema: Json,
  resolve: (ref: string) => Json | undefined,
  path: string[] = [],
): Column[] {
  let s = schema;
  for (let i = 0; typeof s.$ref === 'string' && i < 10; i++) s = resolve(s.$ref) ?? {};
  const name = path.join('.') || 'value';
  const branches = ((s.anyOf ?? s.oneOf) as Json[] | undefined)?.filter((b) => b.type !== 'null');
  if (branches) {
    // A nullable object (`Nullable(X)`) is X whose cells are empty when it is null.
    if (branches.length === 1) return csvColumns(branches[0]!, resolve, path);
    return [{ name, path, kind: 'value' }];
  }
  const types = [s.type].flat().filter((t) => t !== 'null');
  const properties = s.properties as Record<string, Json> | undefined;
  if (properties && path.length < 4 && Object.keys(properties).length > 0)
    return Object.entries(properties).flatMap(([key, p]) => csvColumns(p, resolve, [...path, key]));
  if (types.includes('object')) return [{ name, path, kind: 'json' }];
  if (types.includes('array')) {
    let items = (s.items as Json | undefined) ?? {};
    if (typeof items.$ref === 'string') items = resolve(items.$ref) ?? {};
    return [{ name, path, kind: isPrimitive(items) ? 'list' : 'json' }];
  }
  const key = path.at(-1) ?? '';
  const described = typeof s.description === 'string' ? s.description : '';
  // Response schemas often state a date only in words or in the name (`paymentDate`,
  // `markedAt`); the value is converted only when it has the shape (see csvCell).
  if (s.format === 'date-time' || /[a-z]At$/.test(key)) return [{ name, path, kind: 'timestamp' }];
  if (
    s.format === 'date' ||
    s.pattern === ISO_DATE_PATTERN ||
    described.includes('YYYY-MM-DD') ||
    /^date$|[a-z]Date$/.test(key)
  )
    return [{ name, path, kind: 'date' }];
  return [{ name, path, kind: 'value' }];
}

const two = (n: number) => String(n).padStart(2, '0');

/** `2025-03-01` → `01.03.2025`; anything else stays as it is. */
function germanDate(value: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return m ? `${m[3]}.${m[2]}.${m[1]}` : value;
}

/** An RFC 3339 timestamp as `DD.MM.YYYY HH:MM:SS` in UTC; anything else stays as it is. */
function germanTimestamp(value: string | Date): string {
  if (typeof value === 'string' && !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value)) return value;
  const d = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(d.getTime())) return String(value);
  return (
    `${two(d.getUTCDate())}.${two(d.getUTCMonth() + 1)}.${d.getUTCFullYear()} ` +
    `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
  );
}

/** Text as one cell: a formula-like start defused with `'`, quoted where it needs to be. */
export function textCell(text: string): string {
  const safe = defuseFormula(text);
  return /[;"\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** One value as a cell: numbers with a decimal comma (and no guard: `-5` stays a number). */
export function csvCell(value: unknown, kind: Kind = 'value'): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number')
    return Number.isFinite(value) ? String(value).replace('.', ',') : '';
  if (typeof value === 'boolean') return value ? 'ja' : 'nein';
  if (value instanceof Date) return germanTimestamp(value);
  if (kind === 'list' && Array.isArray(value))
    return textCell(value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', '));
  if (typeof value !== 'string') return textCell(JSON.stringify(value) ?? '');
  const text = value;
  if (kind === 'date') return textCell(germanDate(text));
  if (kind === 'timestamp') return textCell(germanTimestamp(text));
  return textCell(text);
}

/** The line of one record (CRLF included). */
function csvLine(columns: Column[], record: unknown): string {
  return (
    columns
      .map((c) => {
        let value: unknown = record;
        for (const key of c.path)
          value = typeof value === 'object' && value !== null ? (value as Json)[key] : undefined;
        return csvCell(value, c.kind);
      })
      .join(';') + CRLF
  );
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
