import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

/**
 * Outbound webhooks end to end (issue 14): real changes through the API, the outbox, the job
 * queue of the run's database, and a real HTTP server on 127.0.0.1 that receives the deliveries
 * and checks their signatures with the `standardwebhooks` package.
 */

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Wait this long before answering (a receiver that hangs). */
  delayMs?: number;
}

/** A webhook receiver: records every request; answers by path from a plan, else 200. */
class Receiver {
  readonly received: Received[] = [];
  private readonly plans = new Map<string, Answer[]>();
  private readonly fallback = new Map<string, Answer>();
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString() });
      const answer = this.plans.get(path)?.shift() ??
        this.fallback.get(path) ?? { status: 200, body: 'ok' };
      const reply = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, answer.headers ?? { 'content-type': 'text/plain' });
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(reply, answer.delayMs).unref();
      else reply();
    });
  });
  private port = 0;
  private next = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }
  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
  /** A fresh path: its answers are `answers` in turn, then `then` (default 200). */
  path(answers: Answer[] = [], then?: Answer): string {
    const path = `/hooks/${++this.next}`;
    this.plans.set(path, [...answers]);
    if (then) this.fallback.set(path, then);
    return path;
  }
  url(path: string): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }
  at(path: string): Received[] {
    return this.received.filter((r) => r.path === path);
  }
}

const APP_SECRET = 'webhook-test-app-secret-0123456789abcdef';
const receiver = new Receiver();
let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  await receiver.start();
  t = await buildTestApp({
    env: {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // Two retries, at once: the tests drain the queue instead of waiting days.
      WEBHOOK_RETRY_SCHEDULE: '0,0',
      WEBHOOK_TIMEOUT_MS: '500',
      APP_SECRET,
    },
  });
  admin = await createUser(t);
});
afterAll(async () => {
  await t.close();
  await receiver.close();
});

type Json = Record<string, unknown>;
interface Endpoint {
  id: string;
  version: number;
  secret: string;
  enabled: boolean;
  disabledReason: string | null;
  failureCount: number;
}
interface Delivery {
  id: string;
  eventType: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  responseExcerpt: string | null;
  nextAttemptAt: string | null;
}

async function endpoint(path: string, eventTypes: string[], user = admin): Promise<Endpoint> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/webhook-endpoints',
    token: user.token,
    payload: { url: receiver.url(path), eventTypes },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Endpoint>();
}

async function partner(name: string, user = admin): Promise<Json> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/partners',
    token: user.token,
    payload: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json<Json>();
}

async function deliveries(endpointId: string, query = '', user = admin): Promise<Delivery[]> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/webhook-endpoints/${endpointId}/deliveries?${query}`,
    token: user.token,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: Delivery[] }>().data;
}

const readEndpoint = async (id: string, user = admin) =>
  (
    await t.request({ method: 'GET', url: `/v1/webhook-endpoints/${id}`, token: user.token })
  ).json<Endpoint>();

/** The standardwebhooks package's verdict: the parsed body, or it throws. */
const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as Json;

const drain = () => t.app.ctx.jobs.drain();

describe('webhook deliveries: signed, on a real receiver', () => {
  it('delivers partner.created and partner.updated, signed per Standard Webhooks', async () => {
    const path = receiver.path();
    const ep = await endpoint(path, ['partner.created', 'partner.updated']);
    const created = await partner('Webhook Kunde GmbH');
    const renamed = await t.request({
      method: 'PUT',
      url: `/v1/partners/${String(created.id)}`,
      token: admin.token,
      payload: { version: 1, name: 'Webhook Kunde AG' },
    });
    expect(renamed.statusCode).toBe(200);
    await drain();

    const got = receiver.at(path);
    expect(got).toHaveLength(2);
    const bodies = got.map((r) => verify(ep.secret, r));
    expect(bodies.map((b) => b.type).sort()).toEqual(['partner.created', 'partner.updated']);
    const first = bodies.find((b) => b.type === 'partner.created')!;
    expect(first.data).toEqual(created);
    expect(bodies.find((b) => b.type === 'partner.updated')!.data).toEqual(renamed.json());
    expect(typeof first.timestamp).toBe('string');
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toMatch(/^msg_/);
      expect(Number(r.headers['webhook-timestamp'])).toBeCloseTo(Date.now() / 1000, -2);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    }
    // A wrong secret or a changed body does not verify: the check can fail.
    const other = await endpoint(receiver.path(), ['dunning.sent']);
    expect(() => verify(other.secret, got[0]!)).toThrow();
    expect(() =>
      verify(ep.secret, { ...got[0]!, body: got[0]!.body.replace('Kunde', 'Kundx') }),
    ).toThrow();

    const list = await deliveries(ep.id);
    expect(list).toHaveLength(2);
    expect(list.map((d) => d.id).sort()).toEqual(got.map((r) => r.headers['webhook-id']).sort());
    for (const d of list)
      expect(d).toMatchObject({
        status: 'SUCCEEDED',
        attempts: 1,
        lastStatusCode: 200,
        responseExcerpt: 'ok',
        lastError: null,
        nextAttemptAt: null,
      });
    expect(list.every((d) => typeof d.lastLatencyMs === 'number')).toBe(true);
    expect(await deliveries(ep.id, 'eventType=partner.updated')).toHaveLength(1);
    expect(await deliveries(ep.id, 'status=FAILED')).toHaveLength(0);
  });

  it('delivers payment.created and payment.updated', async () => {
    const path = receiver.path();
    const ep = await endpoint(path, ['payment.created', 'payment.updated']);
    const created = await t.request({
      method: 'POST',
      url: '/v1/payments',
      token: admin.token,
      payload: { amount: 119, currency: 'EUR', paymentDate: '2026-03-01', partnerName: 'Kunde' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const updated = await t.request({
      method: 'PUT',
      url: `/v1/payments/${created.json().id}`,
      token: admin.token,
      payload: { version: 1, status: 'MARKED' },
    });
    expect(updated.statusCode, updated.body).toBe(200);
    await drain();
    // Deliveries run side by side: no order is promised (the data carries `version`).
    const bodies = receiver
      .at(path)
      .map((r) => verify(ep.secret, r))
      .sort((a, b) => String(a.type).localeCompare(String(b.type)));
    expect(bodies.map((b) => [b.type, (b.data as Json).id])).toEqual([
      ['payment.created', created.json().id],
      ['payment.updated', created.json().id],
    ]);
    expect(bodies[1]!.data).toEqual(updated.json());
  });

  it('sends only subscribed events, to enabled endpoints of the account, and nothing for a refused change', async () => {
    const paymentsOnly = receiver.path();
    const disabledPath = receiver.path();
    const foreignPath = receiver.path();
    await endpoint(paymentsOnly, ['payment.created']);
    const off = await endpoint(disabledPath, ['partner.created', 'partner.updated']);
    await t.request({
      method: 'PUT',
      url: `/v1/webhook-endpoints/${off.id}`,
      token: admin.token,
      payload: { version: 1, enabled: false },
    });
    const stranger = await createUser(t);
    await endpoint(foreignPath, ['partner.created'], stranger);
    const p = await partner('Nur für mich');
    // A stale version: the update is refused, and so is its event.
    const stale = await t.request({
      method: 'PUT',
      url: `/v1/partners/${String(p.id)}`,
      token: admin.token,
      payload: { version: 9, name: 'Nope' },
    });
    expect(stale.statusCode).toBe(409);
    await drain();
    expect(receiver.at(paymentsOnly)).toHaveLength(0);
    expect(receiver.at(disabledPath)).toHaveLength(0);
    expect(receiver.at(foreignPath)).toHaveLength(0);
    expect(await deliveries(off.id)).toEqual([]);
  });

  it('runs a delivery job twice without sending twice (at-least-once jobs)', async () => {
    const path = receiver.path();
    const ep = await endpoint(path, ['partner.created']);
    await partner('Einmal');
    await drain();
    const [d] = await deliveries(ep.id);
    expect(d).toMatchObject({ status: 'SUCCEEDED', attempts: 1 });
    // The same job again, as a worker that died before acknowledging it would leave it.
    await t.app.ctx.db.transaction().execute((trx) =>
      t.app.ctx.jobs.enqueue(trx, 'webhook.deliver', {
        deliveryId: d!.id,
        accountId: admin.accountId,
        attempt: 1,
      }),
    );
    await drain();
    expect(receiver.at(path)).toHaveLength(1);
    expect((await deliveries(ep.id))[0]).toMatchObject({ attempts: 1, status: 'SUCCEEDED' });
  });
});

describe('webhook deliveries: failures, retries and the disable policy', () => {
  it('retries after a 500 and succeeds with the same webhook-id', async () => {
    const path = receiver.path([{ status: 500, body: 'database down' }]);
    const ep = await endpoint(path, ['partner.created']);
    await partner('Retry GmbH');
    await drain();
    const got = receiver.at(path);
    expect(got).toHaveLength(2);
    expect(got[0]!.headers['webhook-id']).toBe(got[1]!.headers['webhook-id']);
    for (const r of got) expect(verify(ep.secret, r).type).toBe('partner.created');
    const [d] = await deliveries(ep.id);
    expect(d).toMatchObject({ status: 'SUCCEEDED', attempts: 2, lastStatusCode: 200 });
    expect(await readEndpoint(ep.id)).toMatchObject({ enabled: true, failureCount: 0 });
  });

  it('counts a redirect, a timeout and a refused connection as failed attempts', async () => {
    const redirect = receiver.path([], {
      status: 302,
      headers: { location: 'https://example.com/elsewhere' },
    });
    const slow = receiver.path([], { status: 200, delayMs: 2000 });
    const owner = await createUser(t);
    const [r, s] = [
      await endpoint(redirect, ['partner.created'], owner),
      await endpoint(slow, ['partner.created'], owner),
    ];
    const closed = await t.request({
      method: 'POST',
      url: '/v1/webhook-endpoints',
      token: owner.token,
      payload: { url: 'http://127.0.0.1:9/closed', eventTypes: ['partner.created'] },
    });
    await partner('Fehler GmbH', owner);
    await drain();
    expect(receiver.at(redirect)).toHaveLength(3); // never followed, tried three times
    expect((await deliveries(r.id, '', owner))[0]).toMatchObject({
      status: 'FAILED',
      attempts: 3,
      lastStatusCode: 302,
    });
    expect((await deliveries(s.id, '', owner))[0]).toMatchObject({
      status: 'FAILED',
      lastStatusCode: null,
      lastError: 'no answer within 500 ms',
    });
    const refused = (await deliveries(closed.json().id, '', owner))[0]!;
    expect(refused).toMatchObject({ status: 'FAILED', attempts: 3, lastStatusCode: null });
    expect(refused.lastError).toContain('ECONNREFUSED');
  });

  it('keeps the first kilobyte of an answer', async () => {
    const path = receiver.path([], { status: 200, body: `${'é'.repeat(400)}${'x'.repeat(5000)}` });
    const ep = await endpoint(path, ['partner.created']);
    await partner('Lang');
    await drain();
    const [d] = await deliveries(ep.id);
    expect(Buffer.byteLength(d!.responseExcerpt!)).toBeLessThanOrEqual(1024);
    expect(d!.responseExcerpt).toMatch(/^(é){400}x+$/);
  });

  it('disables an endpoint after sustained failure, mails the admins, and replays once enabled', async () => {
    const owner = await createUser(t);
    const path = receiver.path([{ status: 503 }, { status: 503 }, { status: 503 }]);
    const ep = await endpoint(path, ['partner.created', 'partner.updated'], owner);
    await partner('Ausfall KG', owner);
    await drain();

    expect(receiver.at(path)).toHaveLength(3);
    const [failed] = await deliveries(ep.id, '', owner);
    expect(failed).toMatchObject({ status: 'FAILED', attempts: 3, lastStatusCode: 503 });
    const disabled = await readEndpoint(ep.id, owner);
    expect(disabled).toMatchObject({ enabled: false, failureCount: 3, version: 2 });
    expect(disabled.disabledReason).toContain('HTTP 503');
    const [mail] = await mailsTo(t, owner.email);
    expect(mail?.subject).toContain('Webhook endpoint disabled');
    expect(mail?.raw).toContain(ep.id);
    expect(mail?.raw).not.toContain(ep.secret.slice(6, 20));
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('resource_id', '=', ep.id)
      .orderBy('seq')
      .execute();
    expect(events.at(-1)).toEqual({ action: 'webhook_endpoint.disabled', actor_type: 'system' });

    // Disabled: new events are not queued for it, and a replay waits for it to be enabled.
    await partner('Während des Ausfalls', owner);
    await drain();
    expect(await deliveries(ep.id, '', owner)).toHaveLength(1);
    const replay = () =>
      t.request({
        method: 'POST',
        url: `/v1/webhook-endpoints/${ep.id}/deliveries/${failed!.id}/replay`,
        token: owner.token,
      });
    expect((await replay()).statusCode).toBe(409);

    const enabled = await t.request({
      method: 'PUT',
      url: `/v1/webhook-endpoints/${ep.id}`,
      token: owner.token,
      payload: { version: 2, enabled: true },
    });
    expect(enabled.json()).toMatchObject({
      enabled: true,
      disabledReason: null,
      failureCount: 0,
      failingSince: null,
    });
    const replayed = await replay();
    expect(replayed.statusCode).toBe(202);
    expect(replayed.json()).toMatchObject({ id: failed!.id, status: 'PENDING', attempts: 3 });
    await drain();
    const got = receiver.at(path);
    expect(got).toHaveLength(4);
    expect(got[3]!.headers['webhook-id']).toBe(failed!.id);
    expect(verify(ep.secret, got[3]!).type).toBe('partner.created');
    expect((await deliveries(ep.id, '', owner))[0]).toMatchObject({
      status: 'SUCCEEDED',
      attempts: 4,
      lastStatusCode: 200,
    });
    // Another account's delivery id, or one of another endpoint: not found.
    const elsewhere = await endpoint(receiver.path(), ['dunning.sent'], owner);
    const wrong = await t.request({
      method: 'POST',
      url: `/v1/webhook-endpoints/${elsewhere.id}/deliveries/${failed!.id}/replay`,
      token: owner.token,
    });
    expect(wrong.statusCode).toBe(404);
  });

  it('keeps an endpoint enabled when it took another message while one kept failing', async () => {
    // Retries 1 s apart: the rule is about time (nothing succeeded for the whole schedule).
    const patient = await buildTestApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_SCHEDULE: '1,1',
        APP_SECRET,
      },
    });
    try {
      const owner = await createUser(patient);
      const path = receiver.path([
        { status: 400 },
        { status: 200 },
        { status: 400 },
        { status: 400 },
      ]);
      const ep = (
        await patient.request({
          method: 'POST',
          url: '/v1/webhook-endpoints',
          token: owner.token,
          payload: { url: receiver.url(path), eventTypes: ['partner.created'] },
        })
      ).json<Endpoint>();
      const create = (name: string) =>
        patient.request({
          method: 'POST',
          url: '/v1/partners',
          token: owner.token,
          payload: { name },
        });
      const list = async () =>
        (
          await patient.request({
            method: 'GET',
            url: `/v1/webhook-endpoints/${ep.id}/deliveries`,
            token: owner.token,
          })
        ).json<{ data: Delivery[] }>().data;
      await create('Schlecht'); // refused (400) at once, retried in 1 s and 2 s
      await patient.app.ctx.jobs.drain();
      await create('Gut'); // taken (200) in between
      await patient.app.ctx.jobs.drain();
      const deadline = Date.now() + 15_000;
      while ((await list()).some((d) => d.status === 'PENDING') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 250));
        await patient.app.ctx.jobs.drain();
      }
      expect((await list()).map((d) => [d.status, d.attempts])).toEqual([
        ['SUCCEEDED', 1],
        ['FAILED', 3],
      ]);
      const read = (
        await patient.request({
          method: 'GET',
          url: `/v1/webhook-endpoints/${ep.id}`,
          token: owner.token,
        })
      ).json<Endpoint>();
      expect(read).toMatchObject({ enabled: true, failureCount: 2, disabledReason: null });
    } finally {
      await patient.close();
    }
  });
});

describe('webhook deliveries: secrets and targets at delivery time', () => {
  it('signs with the old and the new secret for a day after a rotation', async () => {
    const path = receiver.path();
    const ep = await endpoint(path, ['partner.created']);
    const rotated = await t.request({
      method: 'POST',
      url: `/v1/webhook-endpoints/${ep.id}/rotate-secret`,
      token: admin.token,
    });
    const fresh = rotated.json<Endpoint>().secret;
    await partner('Rotation');
    await drain();
    const [r] = receiver.at(path);
    expect(String(r!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(fresh, r!).type).toBe('partner.created');
    expect(verify(ep.secret, r!).type).toBe('partner.created');
  });

  it('checks the target again before each attempt', async () => {
    const path = receiver.path();
    const ep = await endpoint(path, ['partner.created']);
    await partner('Rebinding');
    // The same database, served by a process whose operator allows no private targets: the
    // attempt it makes refuses the endpoint's address instead of connecting.
    const strict = await buildTestApp({
      env: {
        APP_SECRET,
        WEBHOOK_RETRY_SCHEDULE: '0,0',
        DATABASE_URL: process.env.DATABASE_URL?.startsWith('postgres')
          ? process.env.DATABASE_URL
          : `sqlite:${t.dataDir}/kontor.sqlite`,
      },
    });
    try {
      await strict.app.ctx.jobs.drain();
    } finally {
      await strict.close();
    }
    expect(receiver.at(path)).toHaveLength(0);
    const [d] = await deliveries(ep.id);
    expect(d!.status).toBe('FAILED');
    expect(d!.lastError).toContain('private or loopback');
    expect(d!.lastStatusCode).toBeNull();
  });
});
