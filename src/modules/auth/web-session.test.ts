import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSWORD,
  buildTestApp,
  createUser,
  dbKind,
  email,
  type TestApp,
} from '../../../test/helpers.js';
import { fakeIp, problem } from './auth.test-support.js';
import { createSetupLink } from './web-session.service.js';

const WEB = { 'x-kontor-client': 'web' };
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** A `/v1/web/*` request as the web app sends it: no client key, the web client header. */
function web(
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  opts: {
    payload?: Record<string, unknown>;
    cookie?: string;
    headers?: Record<string, string>;
  } = {},
) {
  return t.request({
    method,
    url,
    key: null,
    remoteAddress: fakeIp(),
    headers: {
      ...WEB,
      ...(opts.cookie === undefined ? {} : { cookie: `kontor_session=${opts.cookie}` }),
      ...opts.headers,
    },
    ...(opts.payload === undefined ? {} : { payload: opts.payload }),
  });
}

/** The refresh token the answer set as its cookie, with the cookie's attributes checked. */
function sessionCookie(res: LightMyRequestResponse): string {
  const header = String(res.headers['set-cookie']);
  expect(header).toMatch(/^kontor_session=krt_\w+;/);
  expect(header).toContain('Path=/v1/web/session');
  expect(header).toContain('HttpOnly');
  expect(header).toContain('SameSite=Strict');
  // The test app's public URL is http: no Secure attribute there.
  expect(header).not.toContain('Secure');
  return /^kontor_session=([^;]+)/.exec(header)![1]!;
}

async function signIn(address: string): Promise<{ access: string; cookie: string }> {
  const res = await web('POST', '/v1/web/session', {
    payload: { email: address, password: PASSWORD },
  });
  expect(res.statusCode).toBe(200);
  const body = res.json();
  expect(body.refreshToken).toBeUndefined();
  expect(res.headers['cache-control']).toBe('no-store');
  return { access: body.accessToken as string, cookie: sessionCookie(res) };
}

describe('web sign-in', () => {
  it('refuses a request without the web client header, or from another origin', async () => {
    const user = await createUser(t);
    const bare = await t.request({
      method: 'POST',
      url: '/v1/web/session',
      key: null,
      payload: { email: user.email, password: PASSWORD },
    });
    expect(bare.statusCode).toBe(403);
    expect(problem(bare).code).toBe('client_header_missing');
    const foreign = await web('POST', '/v1/web/session', {
      payload: { email: user.email, password: PASSWORD },
      headers: { origin: 'https://evil.example' },
    });
    expect(foreign.statusCode).toBe(403);
    expect(problem(foreign).code).toBe('forbidden');
  });

  it('signs in: the access token works with the web header alone, the cookie refreshes', async () => {
    const user = await createUser(t);
    const { access, cookie } = await signIn(user.email);
    const partners = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      token: access,
      headers: WEB,
    });
    expect(partners.statusCode).toBe(200);
    // Neither the header nor the token alone is enough.
    const noHeader = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      token: access,
    });
    expect(problem(noHeader).code).toBe('api_key_invalid');
    const noToken = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      headers: WEB,
    });
    expect(problem(noToken).code).toBe('token_invalid');

    const refreshed = await web('POST', '/v1/web/session/refresh', { cookie });
    expect(refreshed.statusCode).toBe(200);
    const next = sessionCookie(refreshed);
    expect(next).not.toBe(cookie);
    // The spent cookie again means it leaked: the session ends, the newer cookie with it.
    const reused = await web('POST', '/v1/web/session/refresh', { cookie });
    expect(reused.statusCode).toBe(401);
    expect(String(reused.headers['set-cookie'])).toContain('Expires=Thu, 01 Jan 1970');
    expect((await web('POST', '/v1/web/session/refresh', { cookie: next })).statusCode).toBe(401);
  });

  it('accepts no personal API token and no API session with the web header', async () => {
    const user = await createUser(t);
    const pat = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      token: user.token,
      headers: WEB,
    });
    expect(pat.statusCode).toBe(401);
    expect(problem(pat).code).toBe('api_key_invalid');
    const login = await t.request({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: user.email, password: PASSWORD },
      remoteAddress: fakeIp(),
    });
    const apiTokens = login.json();
    const apiAccess = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      token: apiTokens.accessToken,
      headers: WEB,
    });
    expect(problem(apiAccess).code).toBe('api_key_invalid');
    // An API session's refresh token is no web cookie, and a web cookie no API refresh token.
    const asCookie = await web('POST', '/v1/web/session/refresh', {
      cookie: apiTokens.refreshToken,
    });
    expect(asCookie.statusCode).toBe(401);
    const { cookie } = await signIn(user.email);
    const asApi = await t.request({
      method: 'POST',
      url: '/v1/auth/refresh',
      payload: { refreshToken: cookie },
    });
    expect(asApi.statusCode).toBe(401);
  });

  it('signs out: the cookie is cleared and the session is over', async () => {
    const user = await createUser(t);
    const { access, cookie } = await signIn(user.email);
    const out = await web('DELETE', '/v1/web/session', { cookie });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toContain('Expires=Thu, 01 Jan 1970');
    expect((await web('POST', '/v1/web/session/refresh', { cookie })).statusCode).toBe(401);
    const after = await t.request({
      method: 'GET',
      url: '/v1/partners',
      key: null,
      token: access,
      headers: WEB,
    });
    expect(after.statusCode).toBe(401);
    // Signing out twice, or without a cookie, is no error.
    expect((await web('DELETE', '/v1/web/session')).statusCode).toBe(204);
  });

  it('lets the web app recover a password but not register accounts', async () => {
    const forgot = await web('POST', '/v1/auth/forgot-password', {
      payload: { email: email('web') },
    });
    expect(forgot.statusCode).toBe(202);
    const register = await web('POST', '/v1/auth/register', {
      payload: { email: email('web'), password: PASSWORD, name: 'A', companyName: 'B' },
    });
    expect(register.statusCode).toBe(401);
    expect(problem(register).code).toBe('api_key_invalid');
  });
});

// The setup link is for an installation without users: the shared PostgreSQL database of the
// test run has other files' users, so these run on the SQLite pass's fresh database only.
describe.skipIf(dbKind === 'postgres')('the one-time setup link', () => {
  let s: TestApp;
  beforeAll(async () => {
    s = await buildTestApp();
  });
  afterAll(() => s.close());
  const setup = (url: string, payload: Record<string, unknown>) =>
    s.request({ method: 'POST', url, key: null, headers: WEB, remoteAddress: fakeIp(), payload });

  it('creates the owner once, signed in and confirmed; then the link is gone', async () => {
    const token = (await createSetupLink(s.app.ctx))!;
    const other = (await createSetupLink(s.app.ctx))!;
    expect(token).toMatch(/^kst_\w{40}$/);
    expect((await setup('/v1/web/setup/check', { token })).json()).toEqual({ status: 'open' });
    const owner = { email: 'Owner@Example.com', name: 'Olga Owner', companyName: 'Owner GmbH' };
    const weak = await setup('/v1/web/setup', { token, ...owner, password: 'short' });
    expect(weak.statusCode).toBe(400);
    const created = await setup('/v1/web/setup', { token, ...owner, password: PASSWORD });
    expect(created.statusCode).toBe(200);
    const body = created.json();
    expect(body.user).toMatchObject({
      email: 'owner@example.com',
      role: 'admin',
      status: 'ACTIVE',
    });
    expect(body.account.name).toBe('Owner GmbH');
    sessionCookie(created);
    const me = await s.request({
      method: 'GET',
      url: '/v1/tax-rates',
      key: null,
      token: body.accessToken,
      headers: WEB,
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.length).toBeGreaterThan(0);
    // Used: neither this link nor any other works again, and no new one is made.
    for (const used of [token, other]) {
      const again = await setup('/v1/web/setup', {
        token: used,
        ...owner,
        email: 'x@example.com',
        password: PASSWORD,
      });
      expect(again.statusCode).toBe(404);
      expect(problem(again).code).toBe('setup_link_invalid');
      expect((await setup('/v1/web/setup/check', { token: used })).statusCode).toBe(404);
    }
    expect(await createSetupLink(s.app.ctx)).toBeUndefined();
  });
});

describe('the web app served beside the API', () => {
  let a: TestApp;
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-web-'));
  beforeAll(async () => {
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Kontor</title>');
    fs.writeFileSync(path.join(dist, 'assets', 'app-abc123.js'), 'console.log(1)');
    a = await buildTestApp({ webDist: dist });
  });
  afterAll(async () => {
    await a.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('answers app routes with the shell, never cached, under a strict CSP', async () => {
    for (const url of ['/', '/invoices', '/partners/ptr_123?tab=notes', '/setup']) {
      const res = await a.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<title>Kontor</title>');
      expect(res.headers['cache-control']).toBe('no-store');
      const csp = String(res.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
    }
  });

  it('serves hashed assets for a year and keeps the API’s own answers', async () => {
    const asset = await a.app.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    for (const url of ['/v1/nothing-here', '/assets/missing.js', '/favicon.ico', '/docs/nothing']) {
      const res = await a.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    const health = await a.app.inject({ method: 'GET', url: '/health' });
    expect(health.json().service).toBe('kontor');
    // Not a GET: the API's problem, as before.
    const post = await a.app.inject({ method: 'POST', url: '/invoices' });
    expect(post.statusCode).toBe(404);
  });
});
