import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import jsqr from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DAY, HOUR, ManualClock } from '../../shared/clock.js';
import { sha256 } from '../../shared/secrets.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';

/**
 * The customer's page (docs/customer-page.md): links made, listed, revoked and expired; the
 * page's headers and content; downloads; one 404 for every dead token; views and their
 * webhook event; card payment through a fake Stripe on 127.0.0.1; the form token; the rate
 * limit; the link in the sent mail.
 */

const jsQR = jsqr.default;
const TODAY = '2026-06-30';

type Doc = Body & { id: string; documentNumber: string; version: number };
type Link = Body & {
  id: string;
  url: string;
  status: string;
  expiresAt: string;
  firstViewedAt: string | null;
  viewCount: number;
};

/** A fake Stripe API: records each request and answers a checkout session. */
const stripe = {
  requests: [] as { path: string; auth: string | undefined; body: URLSearchParams }[],
  server: undefined as http.Server | undefined,
  url: '',
};

let t: TestApp;
let bare: TestApp;
let clock: ManualClock;
let user: TestUser;
let partnerId: string;

beforeAll(async () => {
  stripe.server = http.createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => (data += c.toString()));
    req.on('end', () => {
      stripe.requests.push({
        path: req.url ?? '',
        auth: req.headers.authorization,
        body: new URLSearchParams(data),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'cs_test_1',
          object: 'checkout.session',
          url: 'https://checkout.stripe.com/c/pay/cs_test_1',
        }),
      );
    });
  });
  await new Promise<void>((resolve) => stripe.server!.listen(0, '127.0.0.1', resolve));
  stripe.url = `http://127.0.0.1:${(stripe.server.address() as AddressInfo).port}`;
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({
    clock,
    env: {
      PUBLIC_URL: 'https://kontor.example',
      PAYMENT_PROVIDER_SECRET_KEY: 'sk_test_customerpage',
      PAYMENT_PROVIDER_API_URL: stripe.url,
      CUSTOMER_PAGE_REQUESTS_PER_MINUTE: '100000',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    },
  });
  // Without a payment provider, with a small page limit, and serving a (minimal) web app.
  const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-web-'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Kontor app</title>');
  bare = await buildTestApp({ env: { CUSTOMER_PAGE_REQUESTS_PER_MINUTE: '3' }, webDist: dist });
  user = await createUser(t);
  partnerId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('ap@kunde.example')],
    })
  ).id;
});
afterAll(async () => {
  await t?.close();
  await bare?.close();
  await new Promise((resolve) => stripe.server?.close(resolve));
});

const invoice = (app = t, u = user, p = partnerId) => finalInvoice<Doc>(app, u, p, '2026-07-31');
const createLink = (documentId: string, body: Body = {}, app = t, u = user) =>
  call<Link>(app, u, 'POST', `/v1/documents/${documentId}/customer-links`, body);
/** The page's path of a link (`/c/{token}`), from its URL. */
const pathOf = (link: Link) => new URL(link.url).pathname;
const page = (path: string, app = t, extra: Record<string, unknown> = {}) =>
  app.app.inject({ method: 'GET', url: path, ...extra });
/** The form token on a page. */
const csrfOf = (html: string) => /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(form).toString(),
  });

describe('customer links: create, list, revoke, expire', () => {
  it('creates a link to a FINAL invoice: a 32-character token, stored only as its hash', async () => {
    const doc = await invoice();
    const link = await createLink(doc.id);
    expect(link).toMatchObject({ status: 'ACTIVE', viewCount: 0, firstViewedAt: null });
    expect(link.url).toMatch(/^https:\/\/kontor\.example\/c\/[0-9A-Za-z]{32}$/);
    expect(link.expiresAt).toBe(new Date(clock.now().getTime() + 90 * DAY).toISOString());
    const token = pathOf(link).slice(3);
    const row = await t.app.ctx.db
      .selectFrom('customer_links')
      .selectAll()
      .where('id', '=', link.id)
      .executeTakeFirstOrThrow();
    expect(row.token_hash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    const listed = await call<{ data: Link[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${doc.id}/customer-links`,
    );
    expect(listed.data.map((l) => l.id)).toEqual([link.id]);
    expect(listed.data[0]).not.toHaveProperty('url');
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('account_id', '=', user.accountId)
      .where('resource_id', '=', doc.id)
      .execute();
    expect(audit.map((a) => a.action)).toContain('customer_link.created');
  });

  it('refuses a draft (409), unknown fields (400), another account (404), no token (401)', async () => {
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Entwurf',
      partnerId,
      creationDate: '2026-06-01',
      lineItems: [{ description: 'x', quantity: 1, unitPrice: 1 }],
    });
    const url = (id: string) => `/v1/documents/${id}/customer-links`;
    expect(
      (await t.request({ method: 'POST', url: url(draft.id), token: user.token, payload: {} }))
        .statusCode,
    ).toBe(409);
    const doc = await invoice();
    const bad = await t.request({
      method: 'POST',
      url: url(doc.id),
      token: user.token,
      payload: { x: 1 },
    });
    expect(bad.statusCode).toBe(400);
    const past = await t.request({
      method: 'POST',
      url: url(doc.id),
      token: user.token,
      payload: { expiresAt: '2026-06-01T00:00:00Z' },
    });
    expect(past.statusCode).toBe(400);
    expect(past.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe('/body/expiresAt');
    const other = await createUser(t);
    expect(
      (await t.request({ method: 'POST', url: url(doc.id), token: other.token, payload: {} }))
        .statusCode,
    ).toBe(404);
    expect(
      (await t.request({ method: 'GET', url: url(doc.id), token: other.token })).statusCode,
    ).toBe(404);
    expect((await t.request({ method: 'POST', url: url(doc.id), payload: {} })).statusCode).toBe(
      401,
    );
  });

  it('revokes a link at once; revoking again is 409; another account cannot', async () => {
    const doc = await invoice();
    const link = await createLink(doc.id);
    const other = await createUser(t);
    const del = (u: TestUser) =>
      t.request({
        method: 'DELETE',
        url: `/v1/documents/${doc.id}/customer-links/${link.id}`,
        token: u.token,
      });
    expect((await del(other)).statusCode).toBe(404);
    expect((await page(pathOf(link))).statusCode).toBe(200);
    const revoked = await del(user);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json<Link>().status).toBe('REVOKED');
    expect((await page(pathOf(link))).statusCode).toBe(404);
    expect((await del(user)).statusCode).toBe(409);
  });

  it('expires at expiresAt (controlled clock)', async () => {
    const doc = await invoice();
    const expiresAt = new Date(clock.now().getTime() + HOUR).toISOString();
    const link = await createLink(doc.id, { expiresAt });
    expect(link.expiresAt).toBe(expiresAt);
    expect((await page(pathOf(link))).statusCode).toBe(200);
    clock.advance(HOUR);
    expect((await page(pathOf(link))).statusCode).toBe(404);
    const listed = await call<{ data: Link[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${doc.id}/customer-links`,
    );
    expect(listed.data[0]!.status).toBe('EXPIRED');
  });
});

describe('the customer page', () => {
  it('is served with a strict CSP, noindex, no referrer, never cached', async () => {
    const link = await createLink((await invoice()).id);
    const res = await page(pathOf(link));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('script-src');
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('<meta name="robots" content="noindex, nofollow">');
    expect(res.body).not.toMatch(/<script|style=|<style/);
    const css = await page('/c/page.css');
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
  });

  it('shows number, lines, the open amount and a GiroCode of exactly that amount', async () => {
    const doc = await invoice();
    const link = await createLink(doc.id);
    const res = await page(pathOf(link));
    expect(res.body).toContain(`Rechnung ${doc.documentNumber}`);
    expect(res.body).toContain('Test GmbH');
    expect(res.body).toContain('Beratung');
    expect(res.body).toMatch(/Noch offen: 1\.190,00\s€/);
    expect(res.body).toContain(`src="${pathOf(link)}/girocode.png"`);
    const png = await page(`${pathOf(link)}/girocode.png`);
    expect(png.statusCode).toBe(200);
    expect(png.headers['content-type']).toBe('image/png');
    const image = await loadImage(png.rawPayload);
    const canvas = createCanvas(image.width, image.height);
    const g = canvas.getContext('2d');
    g.drawImage(image, 0, 0);
    const { data } = g.getImageData(0, 0, image.width, image.height);
    const payload = jsQR(new Uint8ClampedArray(data), image.width, image.height)?.data;
    expect(payload?.split('\n')).toEqual([
      'BCD',
      '002',
      '1',
      'SCT',
      'BYLADEM1001',
      'Test GmbH',
      'DE02120300000000202051',
      'EUR1190.00',
      '',
      '',
      doc.documentNumber,
    ]);
  });

  it('offers the PDF and, for an XRechnung buyer, the XML', async () => {
    const doc = await invoice();
    const link = await createLink(doc.id);
    const pdf = await page(`${pathOf(link)}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toContain('attachment');
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect((await page(`${pathOf(link)}/xrechnung`)).statusCode).toBe(404);

    const city = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Stadtverwaltung',
      addresses: [billingAddress('rechnung@stadt.example')],
      buyerReference: '04011000-12345-03',
      einvoiceFormat: 'XRECHNUNG_CII',
    });
    const xLink = await createLink((await invoice(t, user, city.id)).id);
    expect((await page(pathOf(xLink))).body).toContain('/xrechnung');
    const xml = await page(`${pathOf(xLink)}/xrechnung`);
    expect(xml.statusCode).toBe(200);
    expect(xml.headers['content-type']).toContain('application/xml');
    expect(xml.body).toContain('CrossIndustryInvoice');
  });

  it('answers unknown, malformed, revoked and expired tokens with one and the same 404', async () => {
    const doc = await invoice();
    const revoked = await createLink(doc.id);
    await call(t, user, 'GET', `/v1/documents/${doc.id}/customer-links`);
    await t.request({
      method: 'DELETE',
      url: `/v1/documents/${doc.id}/customer-links/${revoked.id}`,
      token: user.token,
    });
    const expired = await createLink(doc.id, {
      expiresAt: new Date(clock.now().getTime() + 1000).toISOString(),
    });
    clock.advance(2000);
    const answers = await Promise.all(
      [
        pathOf(revoked),
        pathOf(expired),
        `/c/${'A'.repeat(32)}`,
        '/c/short',
        `${pathOf(revoked)}/pdf`,
        `/c/${'A'.repeat(32)}/pdf`,
      ].map((p) => page(p)),
    );
    for (const a of answers) {
      expect(a.statusCode).toBe(404);
      expect(a.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(a.headers['x-robots-tag']).toBe('noindex, nofollow');
      expect(a.body).toBe(answers[0]!.body);
    }
  });

  it('shows its one document and nothing else of the account', async () => {
    const a = await invoice();
    const b = await invoice();
    const link = await createLink(a.id);
    const res = await page(pathOf(link));
    expect(res.body).toContain(a.documentNumber);
    expect(res.body).not.toContain(b.documentNumber);
    expect(res.body).not.toContain(a.id);
    expect(res.body).not.toContain(user.accountId);
    expect(res.body).not.toContain('/v1/');
    // Paths below the token name no other document.
    expect((await page(`${pathOf(link)}/${b.id}`)).statusCode).toBe(404);
  });

  it('records the first and last view and emits document.viewed once', async () => {
    const u = await createUser(t);
    const p = await call<{ id: string }>(t, u, 'POST', '/v1/partners', {
      name: 'Leser',
      addresses: [billingAddress('leser@kunde.example')],
    });
    await call(t, u, 'POST', '/v1/webhook-endpoints', {
      url: 'http://127.0.0.1:9/hook',
      eventTypes: ['document.viewed'],
    });
    const doc = await invoice(t, u, p.id);
    const link = await createLink(doc.id, {}, t, u);
    const first = clock.now().toISOString();
    await page(pathOf(link));
    clock.advance(60_000);
    await page(pathOf(link));
    await page(`${pathOf(link)}/pdf`);
    const list = () =>
      call<{ data: Link[]; viewCount: number; firstViewedAt: string }>(
        t,
        u,
        'GET',
        `/v1/documents/${doc.id}/customer-links`,
      );
    // A repeat view is counted after the answer (not awaited by the page).
    await expect.poll(async () => (await list()).viewCount).toBe(2);
    const listed = await list();
    expect(listed.data[0]).toMatchObject({
      firstViewedAt: first,
      lastViewedAt: clock.now().toISOString(),
      viewCount: 2,
    });
    expect(listed).toMatchObject({ firstViewedAt: first, viewCount: 2 });
    const events = await t.app.ctx.db
      .selectFrom('webhook_deliveries')
      .select('payload')
      .where('account_id', '=', u.accountId)
      .where('event_type', '=', 'document.viewed')
      .execute();
    expect(events).toHaveLength(1);
    const payload = JSON.parse(events[0]!.payload) as { data: { id: string; viewedAt: string } };
    expect(payload.data).toMatchObject({ id: doc.id, viewedAt: first });
    await call(
      t,
      u,
      'PUT',
      `/v1/webhook-endpoints/${(await call<{ data: { id: string; version: number }[] }>(t, u, 'GET', '/v1/webhook-endpoints')).data[0]!.id}`,
      { version: 1, enabled: false },
    );
  });
});

describe('paying by card', () => {
  it('creates a checkout session for the open amount with the webhook’s metadata and redirects', async () => {
    const doc = await invoice();
    const link = await createLink(doc.id);
    const res = await page(pathOf(link));
    expect(res.body).toContain('Mit Karte bezahlen');
    expect(String(res.headers['content-security-policy'])).toContain(
      "form-action 'self' https://checkout.stripe.com",
    );
    const before = stripe.requests.length;
    const paid = await post(`${pathOf(link)}/pay`, { csrf: csrfOf(res.body)! });
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('https://checkout.stripe.com/c/pay/cs_test_1');
    expect(stripe.requests).toHaveLength(before + 1);
    const sent = stripe.requests.at(-1)!;
    expect(sent.path).toBe('/v1/checkout/sessions');
    expect(sent.auth).toBe('Bearer sk_test_customerpage');
    expect(Object.fromEntries(sent.body)).toMatchObject({
      mode: 'payment',
      'line_items[0][price_data][currency]': 'eur',
      'line_items[0][price_data][unit_amount]': '119000',
      'line_items[0][quantity]': '1',
      'payment_intent_data[metadata][accountId]': user.accountId,
      'payment_intent_data[metadata][documentId]': doc.id,
      'payment_intent_data[metadata][partnerId]': partnerId,
      success_url: `${link.url}?paid=1`,
      cancel_url: link.url,
    });
  });

  it('refuses a form without the page’s token or from another site (nothing reaches the provider)', async () => {
    const link = await createLink((await invoice()).id);
    const html = (await page(pathOf(link))).body;
    const before = stripe.requests.length;
    const other = await createLink((await invoice()).id);
    const otherCsrf = csrfOf((await page(pathOf(other))).body)!;
    for (const res of [
      await post(`${pathOf(link)}/pay`, {}),
      await post(`${pathOf(link)}/pay`, { csrf: 'f'.repeat(64) }),
      await post(`${pathOf(link)}/pay`, { csrf: otherCsrf }),
      await post(
        `${pathOf(link)}/pay`,
        { csrf: csrfOf(html)! },
        { origin: 'https://evil.example' },
      ),
    ]) {
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    }
    expect(stripe.requests).toHaveLength(before);
  });

  it('has no quote decision on an invoice, even with the right form token', async () => {
    const link = await createLink((await invoice()).id);
    const html = (await page(pathOf(link))).body;
    expect(html).not.toContain('/decision"');
    const res = await post(`${pathOf(link)}/decision`, {
      csrf: csrfOf(html)!,
      decision: 'ACCEPTED',
      name: 'Erika Kundin',
    });
    expect(res.statusCode).toBe(404);
  });

  it('shows no pay button without a provider', async () => {
    const u = await createUser(bare);
    const p = await call<{ id: string }>(bare, u, 'POST', '/v1/partners', {
      name: 'Kunde',
      addresses: [billingAddress('kunde@kunde.example')],
    });
    const link = await createLink((await invoice(bare, u, p.id)).id, {}, bare, u);
    // An address of its own: with REDIS_URL the page's counters are shared by every app.
    const remoteAddress = `10.200.${Math.floor(Math.random() * 250)}.9`;
    const res = await page(pathOf(link), bare, { remoteAddress });
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('/pay"');
    expect(String(res.headers['content-security-policy'])).toContain("form-action 'self';");
    const csrf = csrfOf(res.body);
    expect(csrf).toBeUndefined();
    // The web app's fallback serves its routes, never a path under /c/.
    expect((await page('/invoices', bare)).body).toContain('Kontor app');
    const under = await page(`${pathOf(link)}/elsewhere`, bare, { remoteAddress });
    expect(under.statusCode).toBe(404);
    expect(under.body).not.toContain('Kontor app');
  });
});

describe('rate limit and mail', () => {
  it('answers 429 with Retry-After past the limit per client IP', async () => {
    const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await page(`/c/${'B'.repeat(32)}`, bare, { remoteAddress: ip })).statusCode);
    expect(statuses).toEqual([404, 404, 404, 429]);
    const last = await page(`/c/${'B'.repeat(32)}`, bare, { remoteAddress: ip });
    expect(last.statusCode).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    expect(last.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('puts a new link into the sent mail when the account enables it', async () => {
    const u = await createUser(t);
    const p = await call<{ id: string }>(t, u, 'POST', '/v1/partners', {
      name: 'Mail Kunde',
      addresses: [billingAddress(`${u.userId}@kunde.example`)],
    });
    const settings = await call<{ version: number; enabled: boolean; validDays: number }>(
      t,
      u,
      'GET',
      '/v1/customer-link-settings',
    );
    expect(settings).toMatchObject({ version: 0, enabled: false, validDays: 90 });
    const doc = await invoice(t, u, p.id);
    await call(t, u, 'POST', `/v1/documents/${doc.id}/send`, {}, 200);
    const [plain] = await mailsTo(t, `${u.userId}@kunde.example`);
    expect(plain!.raw.replace(/=\r?\n/g, '')).not.toMatch(/kontor\.example\/c\//);
    const saved = await call<{ version: number }>(t, u, 'PUT', '/v1/customer-link-settings', {
      enabled: true,
      validDays: 14,
      version: 0,
    });
    expect(saved.version).toBe(1);
    const stale = await t.request({
      method: 'PUT',
      url: '/v1/customer-link-settings',
      token: u.token,
      payload: { enabled: true, version: 0 },
    });
    expect(stale.statusCode).toBe(409);
    const doc2 = await invoice(t, u, p.id);
    await call(t, u, 'POST', `/v1/documents/${doc2.id}/send`, {}, 200);
    const mails = await mailsTo(t, `${u.userId}@kunde.example`, 2);
    const raw = mails[1]!.raw.replace(/=\r?\n/g, '');
    const url = /https:\/\/kontor\.example\/c\/[0-9A-Za-z]{32}/.exec(raw)?.[0];
    expect(url).toBeDefined();
    const res = await page(new URL(url!).pathname);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(doc2.documentNumber);
    const listed = await call<{ data: Link[] }>(
      t,
      u,
      'GET',
      `/v1/documents/${doc2.id}/customer-links`,
    );
    expect(listed.data[0]!.expiresAt).toBe(
      new Date(clock.now().getTime() + 14 * DAY).toISOString(),
    );
  });
});
