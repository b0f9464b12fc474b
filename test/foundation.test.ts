import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { expectProblem } from './contract.js';
import {
  buildTestApp,
  createUser,
  logSink,
  type TestApp,
  type TestUser,
  checkAnswers,
} from './helpers.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
});
afterAll(() => t.close());

describe('deny by default', () => {
  /**
   * The access matrix of every route, from the route table (what the contract helper of
   * test/contract.ts checked per resource, here for all routes at once): without or with a
   * wrong API key 401 `api_key_invalid`; on user and admin routes without or with a wrong
   * bearer 401 `token_invalid` with `WWW-Authenticate: Bearer`; on admin routes a member's
   * token 403 `forbidden`. Every answer is an RFC 9457 problem. The role check runs before the
   * body is read, so a bodiless request reaches it on every route.
   */
  it('gives every route an access level; every non-public route refuses missing or wrong credentials and, if admin-only, a member', async () => {
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    const table = t.app.routeTable;
    expect(table.length).toBeGreaterThan(20);
    const v1 = table.filter((r) => r.url.startsWith('/v1/') && r.method !== 'HEAD');
    expect(v1.length).toBeGreaterThan(20);
    const checked = { apiKey: 0, user: 0, admin: 0 };
    for (const route of table) {
      const name = `${route.method} ${route.url}`;
      expect(['public', 'apiKey', 'user', 'admin'], name).toContain(route.access);
      if (route.access === 'public' || route.method === 'HEAD') continue;
      checked[route.access] += 1;
      const url = route.url.replace(/:[A-Za-z]+/g, 'x_01jd8x0000000000000000000');
      const ask = (opts: { token?: string; key?: string | null }) =>
        t.request({ method: route.method, url, ...opts });
      for (const key of [null, 'kak_nope_nope_nope_nope']) {
        const res = await ask({ key, token: admin.token });
        expect(res.statusCode, `${name} with key ${key}`).toBe(401);
        expectProblem(res, 'api_key_invalid');
      }
      if (route.access === 'apiKey') continue;
      for (const token of [undefined, 'kpat_doesnotexist000000000000']) {
        const res = await ask({ token });
        expect(res.statusCode, `${name} with bearer ${token}`).toBe(401);
        expectProblem(res, 'token_invalid');
        expect(res.headers['www-authenticate'], name).toContain('Bearer');
      }
      if (route.access !== 'admin') continue;
      const res = await ask({ token: member.token });
      expect(res.statusCode, `${name} as a member`).toBe(403);
      expectProblem(res, 'forbidden');
    }
    // Each kind of route is there to be checked.
    expect(
      Math.min(checked.apiKey, checked.user, checked.admin),
      JSON.stringify(checked),
    ).toBeGreaterThan(0);
    // The public ones are exactly these.
    const pub = table
      .filter((r) => r.access === 'public' && !r.url.startsWith('/docs'))
      .map((r) => `${r.method} ${r.url}`);
    expect(pub.filter((r) => !r.startsWith('HEAD')).sort()).toEqual(
      [
        'GET /health',
        'GET /openapi.json',
        'GET /ready',
        // Authorised by a signed, expiring token in the link (decisions §3).
        'GET /v1/newsletter/confirm',
        'GET /v1/newsletter/unsubscribe',
        'POST /v1/newsletter/unsubscribe',
        // The embedded storage's signed upload and download URLs (decisions §8), authorised
        // only by a signed, expiring token in the query string.
        'GET /v1/files/download',
        'PUT /v1/files/upload',
        // Authorised by the provider's signature (decisions §10).
        'POST /v1/webhooks/provider',
        'POST /v1/webhooks/provider-subscriptions',
        // The web app's own (docs/web.md): need its client header; the session cookie, the
        // password or the one-time setup link is the credential.
        'POST /v1/web/session',
        'POST /v1/web/session/refresh',
        'DELETE /v1/web/session',
        'POST /v1/web/setup/check',
        'POST /v1/web/setup',
        // The customer's page of one document (docs/customer-page.md): the link's random
        // token is the credential; its form posts carry a token bound to the link.
        'GET /c/:token',
        'GET /c/:token/girocode.png',
        'GET /c/:token/pdf',
        'GET /c/:token/xrechnung',
        'GET /c/page.css',
        'POST /c/:token/decision',
        'POST /c/:token/pay',
      ].sort(),
    );
  });

  it('has every path and method of the interface contract (read from the spec when present)', () => {
    const have = new Set(
      t.app.routeTable.map((r) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`),
    );
    const spec = path.resolve(import.meta.dirname, '../../shared/spec/interface-spec.md');
    if (!fs.existsSync(spec)) return;
    const endpoints = [
      ...fs.readFileSync(spec, 'utf8').matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| (\/\S+) \|/gm),
    ].map((m) => `${m[1]} ${m[2]}`);
    expect(endpoints.length).toBeGreaterThan(90);
    for (const endpoint of endpoints) expect(have, endpoint).toContain(endpoint);
  });

  it('has every path and method of the interface contract built so far', () => {
    const have = new Set(
      t.app.routeTable.map((r) => `${r.method} ${r.url.replace(/:([A-Za-z]+)/g, '{$1}')}`),
    );
    const contract = [
      'GET /v1/api-tokens',
      'POST /v1/api-tokens',
      'DELETE /v1/api-tokens/{tokenId}',
      'GET /v1/account/addresses',
      'PUT /v1/account/addresses',
      'PATCH /v1/account/addresses',
      'GET /v1/audit-events',
      'POST /v1/auth/confirm',
      'POST /v1/auth/forgot-password',
      'POST /v1/auth/login',
      'POST /v1/auth/logout',
      'POST /v1/auth/refresh',
      'POST /v1/auth/register',
      'POST /v1/auth/reset-password',
      'GET /v1/partners',
      'POST /v1/partners',
      'GET /v1/partners/{partnerId}',
      'PUT /v1/partners/{partnerId}',
      'DELETE /v1/partners/{partnerId}',
      'GET /v1/users',
      'POST /v1/users',
      'POST /v1/users/confirm',
      'GET /v1/users/{userId}',
      'PATCH /v1/users/{userId}',
      'DELETE /v1/users/{userId}',
      // issue 3
      'GET /v1/contracts',
      'POST /v1/contracts',
      'GET /v1/contracts/{contractId}',
      'PUT /v1/contracts/{contractId}',
      'DELETE /v1/contracts/{contractId}',
      'GET /v1/products',
      'POST /v1/products',
      'GET /v1/products/{productId}',
      'PUT /v1/products/{productId}',
      'DELETE /v1/products/{productId}',
      'GET /v1/tax-rates',
      'POST /v1/tax-rates',
      'PATCH /v1/tax-rates/{taxRateId}',
      'DELETE /v1/tax-rates/{taxRateId}',
      'GET /v1/notes',
      'POST /v1/notes',
      'GET /v1/notes/{noteId}',
      'PUT /v1/notes/{noteId}',
      'DELETE /v1/notes/{noteId}',
      'GET /v1/newsletter/confirm',
      'POST /v1/newsletter/signup',
      'GET /v1/newsletter/unsubscribe',
      'PATCH /v1/me/newsletter-subscription',
      'GET /v1/licenses',
      'GET /v1/plans',
      'PATCH /v1/plans',
      'GET /v1/usage',
      'GET /v1/account/billing',
      'PUT /v1/account/billing/bank-account',
      'PUT /v1/account/billing/card',
      'POST /v1/webhooks/provider-subscriptions',
      'GET /v1/budget-categories',
      'POST /v1/budget-categories',
      'PATCH /v1/budget-categories/{categoryId}',
      'DELETE /v1/budget-categories/{categoryId}',
      'GET /v1/budget-entries',
      'POST /v1/budget-entries',
      'DELETE /v1/budget-entries/{entryId}',
      // issue 5
      'GET /v1/payments',
      'POST /v1/payments',
      'GET /v1/payments/{paymentId}',
      'PUT /v1/payments/{paymentId}',
      'DELETE /v1/payments/{paymentId}',
      'POST /v1/webhooks/provider',
    ];
    for (const route of contract) expect(have, route).toContain(route);
  });
});

describe('HTTP conventions', () => {
  it('answers /health and /ready publicly', async () => {
    expect((await t.request({ method: 'GET', url: '/health', key: null })).json()).toEqual({
      status: 'ok',
      service: 'kontor',
    });
    expect((await t.request({ method: 'GET', url: '/ready', key: null })).json()).toEqual({
      status: 'ok',
    });
  });

  it('sets x-request-id on every response, keeping a sane incoming one', async () => {
    const own = await t.request({
      method: 'GET',
      url: '/health',
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(own.headers['x-request-id']).toBe('trace-123');
    const bad = await t.request({
      method: 'GET',
      url: '/nope',
      headers: { 'x-request-id': 'bad id\twith spaces' },
    });
    expect(bad.headers['x-request-id']).toMatch(/^req_/);
    expect(bad.json().requestId).toBe(bad.headers['x-request-id']);
  });

  it('answers 404 route_not_found and 405 with Allow as problems', async () => {
    const missing = await t.request({ method: 'GET', url: '/v1/nothing-here', token: admin.token });
    expect(missing.statusCode).toBe(404);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect(missing.json()).toMatchObject({ code: 'route_not_found', status: 404 });
    const wrong = await t.request({
      method: 'PATCH',
      url: '/v1/partners',
      token: admin.token,
      payload: {},
    });
    expect(wrong.statusCode).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    expect(wrong.json()).toMatchObject({
      code: 'method_not_allowed',
      allowedMethods: ['GET', 'HEAD', 'POST'],
      detail: 'PATCH is not allowed on /v1/partners; it allows GET, HEAD, POST.',
    });
  });

  it('answers 415 for a non-JSON body and 413 past the body limit', async () => {
    const text = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      headers: { 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(text.statusCode).toBe(415);
    expect(text.json().code).toBe('unsupported_media_type');
    const big = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      payload: { name: 'x', description: 'y'.repeat(1_100_000) },
    });
    expect(big.statusCode).toBe(413);
    expect(big.json().code).toBe('payload_too_large');
  });

  it('refuses prototype pollution in JSON bodies', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"x","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
  });

  it('serves the OpenAPI 3.1 document and the docs page with local assets', async () => {
    const doc = (await t.request({ method: 'GET', url: '/openapi.json', key: null })).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.components.schemas)).toEqual(
      expect.arrayContaining(['Problem', 'Address', 'DashboardWidgetSettings']),
    );
    expect(doc.paths['/v1/partners/{partnerId}'].put.security).toEqual([
      { apiKey: [], bearer: [] },
      { webClient: [], bearer: [] },
    ]);
    const html = await t.request({ method: 'GET', url: '/docs', key: null });
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toContain('text/html');
    expect(html.body).not.toMatch(/https?:\/\/(unpkg|cdn|fonts)/);
    const css = await t.request({ method: 'GET', url: '/docs/static/swagger-ui.css', key: null });
    expect(css.statusCode).toBe(200);
  });
});

describe('idempotency in flight', () => {
  it('answers 409 while a request with the same key is still running', async () => {
    const key = `inflight-${Date.now()}`;
    const body = { name: 'In flight' };
    const { sha256 } = await import('../src/shared/secrets.js');
    const now = new Date();
    await t.app.ctx.db
      .insertInto('idempotency_keys')
      .values({
        scope: `${admin.accountId}:${admin.userId}`,
        key,
        method: 'POST',
        path: '/v1/partners',
        request_hash: sha256(`POST /v1/partners\n${JSON.stringify(body)}`),
        state: 'running',
        status_code: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      })
      .execute();
    const res = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      payload: body,
      headers: { 'idempotency-key': key },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('idempotency_in_progress');
  });
});

describe('logs', () => {
  it('never contain passwords, tokens, codes or API keys', async () => {
    const sink = logSink();
    const base = await buildTestApp();
    const app = await buildApp(
      loadConfig({
        ...process.env,
        DATA_DIR: base.dataDir,
        DATABASE_URL:
          base.app.ctx.config.database.kind === 'sqlite'
            ? `sqlite:${base.dataDir}/logs.sqlite`
            : process.env.DATABASE_URL!,
        LOG_LEVEL: 'trace',
      }),
      {
        logger: { level: 'trace', stream: sink.stream },
      },
    );
    const { createApiKey } = await import('../src/modules/api-keys/api-keys.service.js');
    checkAnswers(app);
    const { key } = await createApiKey(app.ctx.db, 'log-test');
    const user = await createUser({ ...base, app });
    const password = 'a very secret passphrase 99';
    await app.inject({
      method: 'POST',
      url: '/v1/auth/register',
      // A client of its own: per-IP mail caps live in Redis across runs.
      remoteAddress: `10.9.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`,
      headers: { 'x-api-key': key },
      payload: { email: `log-${Date.now()}@example.com`, password, name: 'L', companyName: 'L' },
    });
    await app.inject({
      method: 'GET',
      url: '/v1/partners?cursor=zzz',
      headers: { 'x-api-key': key, authorization: `Bearer ${user.token}` },
    });
    await app.inject({
      method: 'POST',
      url: '/v1/auth/login',
      headers: { 'x-api-key': key },
      payload: { email: user.email, password: 'wrong password here' },
    });
    await app.close();
    await base.close();
    const log = sink.text();
    expect(log).toContain('"reqId"');
    for (const secret of [password, key, user.token, 'wrong password here'])
      expect(log).not.toContain(secret);
  });
});
