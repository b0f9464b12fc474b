import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mt940, uploadStatement } from '../src/modules/bank-imports/bank-imports.test-support.js';
import { buildTestApp, createUser, dbKind, type TestApp, type TestUser } from './helpers.js';
import { report } from './report.js';

/**
 * "Bad input gets a 4xx problem, never a 500" (issue 11), driven by the generated OpenAPI
 * document, on SQLite and on PostgreSQL (the second pass of the suite):
 *
 * - every JSON write operation gets bodies built from its own schema — each property valid by
 *   type and enum, or the wrong type, or missing, or odd (numeric extremes, NUL and lone
 *   surrogates, deep nesting, impossible timestamps, unknown ids). Near-valid bodies reach
 *   the services and the database, which is where the surprises live;
 * - every GET operation gets query strings built from its parameters, forged cursors included,
 *   against real records where the path names one;
 * - every path with a parameter gets ids of every length around the router's limit, NUL and
 *   broken percent-encodings.
 *
 * Every answer must be below 500, and every error an `application/problem+json`.
 */

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  format?: string;
  $ref?: string;
  anyOf?: Schema[];
}

interface Parameter {
  in: 'query' | 'path' | 'header';
  name: string;
  schema?: Schema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

let t: TestApp;
let user: TestUser;
let components: Record<string, Schema> = {};
let paths: Record<string, Record<string, Operation>> = {};
/** Path parameters that name a real record of `user`'s account. */
const realIds: Record<string, string> = {};

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  await t.app.ready();
  const doc = t.app.swagger() as {
    components?: { schemas?: Record<string, Schema> };
    paths: Record<string, Record<string, Operation>>;
  };
  components = doc.components?.schemas ?? {};
  paths = doc.paths;
  const partner = await t.request({
    method: 'POST',
    url: '/v1/partners',
    token: user.token,
    payload: { name: 'Fuzz GmbH' },
  });
  realIds.partnerId = partner.json<{ id: string }>().id;
  // A bank import with lines, so the transactions list gets past its 404 to the cursor.
  const file = await uploadStatement(
    t,
    user,
    mt940([
      { date: '2026-03-02', cents: 1000, purpose: 'A' },
      { date: '2026-03-03', cents: -500, purpose: 'B' },
    ]),
  );
  const imp = await t.request({
    method: 'POST',
    url: '/v1/bank-statement-imports',
    token: user.token,
    payload: { ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31' },
  });
  realIds.importId = imp.json<{ id: string }>().id;
});
afterAll(() => t.close());

/** An API client: public links answer an HTML page to browsers, JSON (and problems) to this. */
const ACCEPT = { accept: 'application/json, application/problem+json' };

/** Counts answers by status and fails on a 5xx or an error that is not a problem. */
class Tally {
  requests = 0;
  readonly statuses = new Map<number, number>();

  check(res: LightMyRequestResponse, what: string): void {
    this.requests++;
    this.statuses.set(res.statusCode, (this.statuses.get(res.statusCode) ?? 0) + 1);
    expect(res.statusCode, `${what}: ${res.body.slice(0, 500)}`).toBeLessThan(500);
    if (res.statusCode >= 400)
      expect(res.headers['content-type'], `${what}: ${res.body.slice(0, 200)}`).toContain(
        'application/problem+json',
      );
  }

  report(name: string): void {
    const by = [...this.statuses]
      .sort((a, b) => a[0] - b[0])
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    const fivexx = [...this.statuses].filter(([s]) => s >= 500).reduce((a, [, n]) => a + n, 0);
    report(`fuzz ${name} (${dbKind}): ${this.requests} requests, ${fivexx} 5xx; ${by}\n`);
  }
}

const runs = (fallback: number) => ({
  numRuns: Number(process.env.FUZZ_RUNS ?? fallback),
  seed: Number(process.env.FUZZ_SEED ?? 20261121),
});

function resolve(schema: Schema): Schema {
  if (schema.$ref) return components[schema.$ref.split('/').pop()!] ?? {};
  return schema;
}

/**
 * `{"a":{"a":…}}` nested `depth` levels, as a marker spliced into the JSON text by `toJson`:
 * recursive printers and serialisers (fast-check's, JSON.stringify) overflow the stack on
 * the real thing long before the server's parser does.
 */
class Nested {
  constructor(readonly depth: number) {}
  [fc.toStringMethod](): string {
    return `nested(${this.depth})`;
  }
}
const nested = (depth: number) => new Nested(depth);

/** The request body as JSON text, with each `Nested` marker written out in full. */
function toJson(body: unknown): string {
  const depths: number[] = [];
  const text = JSON.stringify(body, (_key, value: unknown) => {
    if (!(value instanceof Nested)) return value;
    depths.push(value.depth);
    return `\u0001nested${depths.length - 1}\u0001`;
  });
  return text.replace(/"\\u0001nested(\d+)\\u0001"/g, (_m, i: string) => {
    const depth = depths[Number(i)]!;
    return `${'{"a":'.repeat(depth)}{}${'}'.repeat(depth)}`;
  });
}

/** Text that breaks storage or parsing somewhere: NUL, lone surrogates, odd but valid Unicode. */
const edgeText = fc.constantFrom(
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff', // a valid pair: U+10FFFF
  '😀',
  '\u202eRTL',
  'e\u0301',
  '\ufeff',
  '\uffff',
  ' ',
  '',
  '2999-01-01T00:00:00+99:00',
  '2026-01-01T25:00:00Z',
  '9999-12-31T23:59:59-23:59',
);

/** Numbers at and past every boundary a column or a parser has. */
const extremeNumber = fc.constantFrom(
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  -(2 ** 31) - 1,
  2 ** 53,
  Number.MAX_SAFE_INTEGER + 2,
  1e20,
  -1e20,
  1e308,
  -1e308,
  5e-324,
  0.1 + 0.2,
);

const odd = fc.oneof(
  fc.constant(null),
  fc.constant(''),
  fc.constant('x'.repeat(300)),
  fc.constant(-1),
  fc.constant(1e21),
  fc.constant(0.001),
  fc.constant('2026-02-30'),
  fc.constant('fil_00000000000000000000000000'),
  fc.constant('DEM'),
  fc.constant([]),
  fc.constant({}),
  fc.constant(nested(40)),
  fc.constant(nested(5000)),
  edgeText,
  extremeNumber,
  fc.string({ unit: 'binary', maxLength: 10 }),
  fc.string(),
  fc.integer(),
  fc.boolean(),
);

/** `fc.oneof` without the entries weighted 0. */
function weighted<T>(
  ...entries: { weight: number; arbitrary: fc.Arbitrary<T> }[]
): fc.Arbitrary<T> {
  return fc.oneof(...entries.filter((e) => e.weight > 0));
}

/** Unusual text that is valid Unicode without NUL: it must get through to the database. */
const validOddText = fc.constantFrom('😀', '\u202eRTL', 'e\u0301', '\ufeff', '\uffff', ' ', 'ß‍');

function stringFor(schema: Schema, clean: boolean): fc.Arbitrary<string> {
  if (schema.format === 'email')
    return clean
      ? fc.constant('fuzz@example.com')
      : fc.constantFrom('fuzz@example.com', 'fu\u0000zz@example.com');
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('2026-03-01', 'EUR', 'Müller GmbH', 'x', '1.5') },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 2, arbitrary: clean ? validOddText : edgeText },
  );
}

/**
 * A value for `input`. `clean` bodies stay valid by type (unusual but storable text, ordinary
 * numbers) so that they get past validation into the services and the database; the others
 * mix in the extremes that validation must refuse.
 */
function valueFor(input: Schema, depth = 0, clean = false): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, depth, clean)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type ?? '') {
    case 'string':
      return stringFor(schema, clean);
    case 'integer':
      return weighted<unknown>(
        { weight: 4, arbitrary: fc.integer({ min: -5, max: 100_000 }) },
        { weight: clean ? 0 : 1, arbitrary: extremeNumber },
      );
    case 'number':
      return weighted<unknown>(
        { weight: 2, arbitrary: fc.integer({ min: -1000, max: 1_000_000 }) },
        { weight: clean ? 0 : 2, arbitrary: fc.double({ noNaN: true }) },
        { weight: clean ? 0 : 1, arbitrary: extremeNumber },
      );
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 2
        ? fc.constant([])
        : fc.array(valueFor(schema.items ?? {}, depth + 1, clean), { maxLength: 3 });
    case 'object':
      // Free-form objects (a document's `fields`) take anything, deep nesting included.
      if (!schema.properties)
        return clean
          ? fc.dictionary(fc.string({ maxLength: 5 }), fc.oneof(fc.string(), fc.integer()), {
              maxKeys: 3,
            })
          : fc.oneof(
              fc.dictionary(fc.oneof(fc.string({ maxLength: 5 }), edgeText), odd, { maxKeys: 3 }),
              fc.constant(nested(5000)),
            );
      return depth > 2 ? fc.constant({}) : objectFor(schema, depth + 1, clean);
    default:
      return clean ? fc.oneof(fc.string(), fc.integer(), fc.boolean()) : odd;
  }
}

function objectFor(
  schema: Schema,
  depth = 0,
  clean = false,
): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {});
  return fc
    .tuple(
      ...entries.map(([name, property]) =>
        fc.tuple(
          fc.constant(name),
          // Mostly valid by type; sometimes odd (unless clean); sometimes left out.
          weighted<unknown>(
            { weight: 6, arbitrary: valueFor(property, depth, clean) },
            { weight: clean ? 0 : 2, arbitrary: odd },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        ),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== undefined)));
}

/** Cursors a client could forge: garbage, other shapes, ids that are no ids. */
const forgedCursor = fc.oneof(
  fc.constantFrom('!!!', 'e30', '%00', 'x'.repeat(200)),
  fc
    .oneof(edgeText, fc.string({ maxLength: 12 }), extremeNumber.map(String), fc.constant('-1'))
    .map((id) => Buffer.from(JSON.stringify({ v: 1, id })).toString('base64url')),
);

/**
 * A query parameter: mostly absent or valid by its schema, so that many requests get past
 * validation to the database; sometimes odd; a cursor, when present, always forged.
 */
function queryValue(parameter: Parameter): fc.Arbitrary<string | undefined> {
  const absent = fc.constant(undefined);
  if (parameter.name === 'cursor')
    return fc.oneof({ weight: 2, arbitrary: absent }, { weight: 1, arbitrary: forgedCursor });
  const schema = resolve(parameter.schema ?? {});
  return fc.oneof(
    { weight: 3, arbitrary: absent },
    {
      weight: 4,
      arbitrary: valueFor(schema).map((v) =>
        typeof v === 'string' ? v : (JSON.stringify(v) ?? ''),
      ),
    },
    { weight: 1, arbitrary: edgeText },
    { weight: 1, arbitrary: extremeNumber.map(String) },
  );
}

/** The operation's path with each parameter a real id where the fuzz made one, else `fake`. */
function fillPath(path: string, fake: (name: string) => string): string {
  return path.replace(/\{([^}]+)\}/g, (_m, name: string) => fake(name));
}

const v1 = (path: string) =>
  path.startsWith('/v1/') && !path.startsWith('/v1/auth/') && !path.startsWith('/v1/webhooks/');

describe('fuzz: no bad input answers 5xx', () => {
  it('every JSON write operation answers a 4xx problem or success for schema-shaped and odd bodies', async () => {
    const tally = new Tally();
    for (const [path, operations] of Object.entries(paths)) {
      if (!v1(path)) continue;
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (!schema || !['post', 'put', 'patch'].includes(method)) continue;
        // Path parameters get an id of the right shape that does not exist: 404 after validation.
        const url = fillPath(path, (name) =>
          name === 'index' ? '0' : 'xyz_00000000000000000000000000',
        );
        await fc.assert(
          fc.asyncProperty(
            fc.oneof(objectFor(resolve(schema)), objectFor(resolve(schema), 0, true)),
            async (body) => {
              const res = await t.request({
                method: method.toUpperCase(),
                url,
                token: user.token,
                payload: toJson(body),
                headers: { ...ACCEPT, 'content-type': 'application/json' },
              });
              tally.check(
                res,
                `${method.toUpperCase()} ${url} ${fc.stringify(body).slice(0, 300)}`,
              );
            },
          ),
          runs(25),
        );
      }
    }
    tally.report('writes');
    expect(tally.requests).toBeGreaterThan(500);
    // The bodies are shaped enough to get past validation into the services.
    expect([...tally.statuses.keys()].filter((s) => s !== 400).length).toBeGreaterThan(3);
  }, 600_000);

  it('every GET operation answers a 4xx problem or success for odd query strings and forged cursors', async () => {
    const tally = new Tally();
    for (const [path, operations] of Object.entries(paths)) {
      if (!v1(path)) continue;
      const operation = operations.get;
      const query = (operation?.parameters ?? []).filter((p) => p.in === 'query');
      if (!operation || query.length === 0) continue;
      const url = fillPath(path, (name) => realIds[name] ?? 'xyz_00000000000000000000000000');
      const params = fc.record(Object.fromEntries(query.map((p) => [p.name, queryValue(p)])));
      await fc.assert(
        fc.asyncProperty(params, async (values) => {
          const search = new URLSearchParams(
            Object.entries(values).filter((e): e is [string, string] => e[1] !== undefined),
          ).toString();
          const res = await t.request({
            method: 'GET',
            url: `${url}?${search}`,
            token: user.token,
            headers: ACCEPT,
          });
          tally.check(res, `GET ${url}?${search}`);
        }),
        runs(15),
      );
    }
    tally.report('queries');
    expect(tally.requests).toBeGreaterThan(200);
  }, 600_000);

  it('every path parameter answers a 4xx problem for odd lengths and encodings', async () => {
    const tally = new Tally();
    const odd = [
      ...[1, 63, 64, 65, 199, 200, 201, 300, 5_000].map((n) => 'x'.repeat(n)),
      '%00',
      'ptr_%00',
      '%ED%A0%80', // a lone surrogate, UTF-8 encoded: not valid UTF-8
      '%E0%A4%A', // a broken percent-encoding
      '%F0%9F%98%80',
      '%2F',
      '..',
      '-1',
      '99999999999',
      '1e20',
    ];
    for (const [path, operations] of Object.entries(paths)) {
      if (!v1(path) || !path.includes('{')) continue;
      for (const method of Object.keys(operations)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        for (const value of odd) {
          const url = fillPath(path, () => value);
          const res = await t.request({
            method: method.toUpperCase(),
            url,
            token: user.token,
            headers: ACCEPT,
            ...(['post', 'put', 'patch'].includes(method) ? { payload: { version: 1 } } : {}),
          });
          tally.check(res, `${method.toUpperCase()} ${url.slice(0, 200)}`);
          if (res.statusCode >= 400) expect(res.headers['x-request-id']).toBeTruthy();
        }
      }
    }
    tally.report('paths');
    expect(tally.statuses.get(414)).toBeGreaterThan(0);
  }, 600_000);
});
