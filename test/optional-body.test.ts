import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  billingAddress,
  call,
  finalInvoice,
} from '../src/modules/documents/documents.test-support.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from './helpers.js';

/**
 * An action whose body fields are all optional needs no body (http/optional-body.ts): a request
 * without one, or with an empty one with or without `content-type: application/json`, is taken
 * as `{}`; the OpenAPI document says `requestBody.required: false` for exactly those routes.
 */

type Json = Record<string, unknown>;
type Operation = {
  requestBody?: { required?: boolean; content: Record<string, { schema: Json }> };
};

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  await t.app.ready();
  admin = await createUser(t);
});
afterAll(async () => {
  await t.app.ctx.jobs.drain();
  await t.close();
});

/** Every POST, PUT and PATCH of the route table with its body schema (from the OpenAPI document). */
function bodyRoutes(): {
  method: string;
  path: string;
  url: string;
  op: Operation;
  schema: Json;
}[] {
  const doc = t.app.swagger() as unknown as {
    paths: Record<string, Record<string, Operation>>;
    components: { schemas: Record<string, Json> };
  };
  const resolve = (s: Json): Json =>
    typeof s.$ref === 'string' ? doc.components.schemas[s.$ref.split('/').pop()!]! : s;
  const routes = [];
  for (const r of t.app.routeTable) {
    if (!['POST', 'PUT', 'PATCH'].includes(r.method) || r.access === 'public') continue;
    const path = r.url.replace(/:(\w+)/g, '{$1}');
    const op = doc.paths[path]?.[r.method.toLowerCase()];
    expect(op, `${r.method} ${path} in the OpenAPI document`).toBeDefined();
    const schema = op!.requestBody?.content['application/json']?.schema;
    if (!schema) continue;
    const url = r.url.replace(/:index/, '0').replace(/:\w+/g, 'x_01jd8x0000000000000000000');
    routes.push({ method: r.method, path, url, op: op!, schema: resolve(schema) });
  }
  return routes;
}

describe('an action whose body fields are all optional', () => {
  it('answers a missing or empty body like {} on every such route, and OpenAPI says so', async () => {
    const routes = bodyRoutes();
    const optional = routes.filter((r) => !(r.schema.required as unknown[] | undefined)?.length);
    expect(optional.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        'POST /v1/documents/{documentId}/cancel',
        'POST /v1/contracts/billing-runs',
        'POST /v1/dunning/runs',
      ]),
    );
    for (const r of routes)
      expect(r.op.requestBody!.required, `${r.method} ${r.path}`).toBe(!optional.includes(r));
    for (const r of optional) {
      for (const headers of [{}, { 'content-type': 'application/json' }]) {
        const res = await t.request({
          method: r.method,
          url: r.url,
          token: admin.token,
          headers,
          ...('content-type' in headers ? { payload: '' } : {}),
        });
        const name = `${r.method} ${r.path} ${JSON.stringify(headers)}: ${res.body}`;
        expect(res.statusCode, name).toBeLessThan(500);
        expect(res.body, name).not.toContain('must be object');
        if (res.statusCode === 400)
          expect(res.json<{ errors?: { path: string }[] }>().errors ?? [], name).not.toContainEqual(
            expect.objectContaining({ path: '/body' }),
          );
      }
    }
  });

  it('cancels a FINAL invoice without a body; a body that is not an object is still refused', async () => {
    const partnerId = (
      await call<{ id: string }>(t, admin, 'POST', '/v1/partners', {
        name: 'Kunde GmbH',
        addresses: [billingAddress('buchhaltung@kunde.example')],
      })
    ).id;
    const invoice = await finalInvoice<{ id: string }>(t, admin, partnerId, '2026-07-15');
    const url = `/v1/documents/${invoice.id}/cancel`;
    for (const payload of ['null', '[]', '"x"']) {
      const res = await t.request({
        method: 'POST',
        url,
        token: admin.token,
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, `${payload}: ${res.body}`).toBe(400);
    }
    const res = await t.request({ method: 'POST', url, token: admin.token });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ documentType: string }>()).toMatchObject({ status: 'FINAL' });
    const cancelled = await call<Json>(t, admin, 'GET', `/v1/documents/${invoice.id}`);
    expect(cancelled.cancelledByDocumentId).toBe(res.json<{ id: string }>().id);
  });

  it('a body with a required field still needs one', async () => {
    const res = await t.request({ method: 'POST', url: '/v1/partners', token: admin.token });
    expect(res.statusCode).toBe(400);
  });
});
