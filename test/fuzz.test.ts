import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from './helpers.js';

/**
 * "Bad input gets a 4xx, never a 500": every JSON write operation of the generated OpenAPI
 * document gets bodies built from its own schema — each property valid by type and enum, or
 * the wrong type, or missing, or odd (huge numbers, empty and long strings, unknown ids) —
 * and must never answer 5xx. Near-valid bodies reach the services, which is where the
 * surprises live.
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

let t: TestApp;
let user: TestUser;
let components: Record<string, Schema> = {};

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  await t.app.ready();
  const doc = t.app.swagger() as { components?: { schemas?: Record<string, Schema> } };
  components = doc.components?.schemas ?? {};
});
afterAll(() => t.close());

function resolve(schema: Schema): Schema {
  if (schema.$ref) return components[schema.$ref.split('/').pop()!] ?? {};
  return schema;
}

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
  fc.string(),
  fc.integer(),
  fc.boolean(),
);

function valueFor(input: Schema, depth = 0): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => valueFor(s, depth)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type ?? '') {
    case 'string':
      if (schema.format === 'email') return fc.constant('fuzz@example.com');
      return fc.oneof(
        fc.constantFrom('2026-03-01', 'EUR', 'Müller GmbH', 'x', '1.5'),
        fc.string({ maxLength: 20 }),
      );
    case 'integer':
      return fc.integer({ min: -5, max: 100_000 });
    case 'number':
      return fc.oneof(fc.integer({ min: -1000, max: 1_000_000 }), fc.double({ noNaN: true }));
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 2
        ? fc.constant([])
        : fc.array(valueFor(schema.items ?? {}, depth + 1), { maxLength: 3 });
    case 'object':
      return depth > 2 ? fc.constant({}) : objectFor(schema, depth + 1);
    default:
      return odd;
  }
}

function objectFor(schema: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const entries = Object.entries(schema.properties ?? {});
  return fc
    .tuple(
      ...entries.map(([name, property]) =>
        fc.tuple(
          fc.constant(name),
          // Mostly valid by type; sometimes odd; sometimes left out.
          fc.oneof(
            { weight: 6, arbitrary: valueFor(property, depth) },
            { weight: 2, arbitrary: odd },
            { weight: 1, arbitrary: fc.constant(undefined) },
          ),
        ),
      ),
    )
    .map((pairs) => Object.fromEntries(pairs.filter(([, v]) => v !== undefined)));
}

describe('fuzz: no write answers 5xx', () => {
  it('every JSON write operation answers below 500 for schema-shaped and odd bodies', async () => {
    const doc = t.app.swagger() as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>
      >;
    };
    let requests = 0;
    const statuses = new Map<number, number>();
    for (const [path, operations] of Object.entries(doc.paths)) {
      if (
        !path.startsWith('/v1/') ||
        path.startsWith('/v1/auth/') ||
        path.startsWith('/v1/webhooks/')
      )
        continue;
      for (const [method, operation] of Object.entries(operations)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (!schema || !['post', 'put', 'patch'].includes(method)) continue;
        // Path parameters get an id of the right shape that does not exist: 404 after validation.
        const url = path.replace(/\{[^}]+\}/g, (p) =>
          p === '{index}' ? '0' : 'xyz_00000000000000000000000000',
        );
        await fc.assert(
          fc.asyncProperty(objectFor(resolve(schema)), async (body) => {
            const res = await t.request({
              method: method.toUpperCase(),
              url,
              token: user.token,
              payload: body,
            });
            requests++;
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            expect(
              res.statusCode,
              `${method.toUpperCase()} ${url} ${JSON.stringify(body)}: ${res.body}`,
            ).toBeLessThan(500);
          }),
          {
            numRuns: Number(process.env.FUZZ_RUNS ?? 25),
            seed: Number(process.env.FUZZ_SEED ?? 20261121),
          },
        );
      }
    }
    process.stdout.write(
      `fuzz: ${requests} requests, ${[...statuses]
        .sort((a, b) => a[0] - b[0])
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}\n`,
    );
    expect(requests).toBeGreaterThan(500);
    // The bodies are shaped enough to get past validation into the services.
    expect([...statuses.keys()].filter((s) => s !== 400).length).toBeGreaterThan(3);
  }, 300_000);
});
