import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY, ManualClock } from '../../shared/clock.js';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DeadReceivers } from '../../../test/dead-receivers.js';

/**
 * Delivery across accounts and over time (docs/webhooks.md, "Fairness" and "Disable policy"):
 * an account whose endpoints never answer holds one job slot, not the queue; an endpoint that
 * failed every attempt for the whole retry schedule is disabled, on the app's clock.
 */

/** A receiver that answers `status` at once and notes, per request, what `onRequest` says. */
async function receiver(status: number, onRequest: () => void = () => undefined) {
  let got = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got++;
      onRequest();
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => got,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const request = (t: TestApp, as: TestUser, method: string, url: string, payload?: object) =>
  t.request({ method, url, token: as.token, payload });

async function endpoint(t: TestApp, as: TestUser, url: string): Promise<string> {
  const res = await request(t, as, 'POST', '/v1/webhook-endpoints', {
    url,
    eventTypes: ['partner.created'],
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<{ id: string }>().id;
}

async function partner(t: TestApp, as: TestUser, name: string) {
  expect((await request(t, as, 'POST', '/v1/partners', { name })).statusCode).toBe(201);
}

describe('webhook deliveries: fair across accounts', () => {
  let t: TestApp;
  const dead = new DeadReceivers();

  beforeAll(async () => {
    t = await buildTestApp({
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        // Long enough that the noisy account's attempts are still hanging when the quiet
        // account's event comes; retries far away.
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_RETRY_SCHEDULE: '3600',
        // The worker runs in the background here (two job slots), as in production.
        JOB_POLL_INTERVAL_MS: '100',
      },
    });
  });
  afterAll(async () => {
    await t.close();
    await dead.close();
  });

  it('sends a quiet account’s event while another account’s dead endpoints have a backlog', async () => {
    const noisy = await createUser(t);
    const quiet = await createUser(t);
    const urls = await dead.start(6);
    const noisyEndpoints = [];
    for (const url of urls) noisyEndpoints.push(await endpoint(t, noisy, url));
    // What the noisy account's receivers had seen when the quiet one got its event.
    let seenByNoisy: number | undefined;
    const quietReceiver = await receiver(200, () => (seenByNoisy ??= dead.accepted));
    try {
      await endpoint(t, quiet, quietReceiver.url);
      // Two events: twelve deliveries to endpoints that hang for the whole timeout each.
      await partner(t, noisy, 'Laut 1');
      await partner(t, noisy, 'Laut 2');
      const started = Date.now();
      while (dead.accepted === 0 && Date.now() - started < 20_000)
        await new Promise((r) => setTimeout(r, 20));
      expect(dead.accepted).toBe(1);

      await partner(t, quiet, 'Leise');
      while (quietReceiver.received() === 0 && Date.now() - started < 25_000)
        await new Promise((r) => setTimeout(r, 20));
      expect(quietReceiver.received()).toBe(1);
      // Not behind the backlog: the noisy account had been sent at most one or two of its
      // twelve deliveries (one per timeout) when the quiet account's arrived …
      expect(seenByNoisy).toBeLessThanOrEqual(2);
      // … and never held more than its share (WEBHOOK_ACCOUNT_CONCURRENCY = 1) of the slots.
      expect(dead.mostOpen).toBe(1);
    } finally {
      for (const id of noisyEndpoints)
        await t.request({
          method: 'DELETE',
          url: `/v1/webhook-endpoints/${id}`,
          token: noisy.token,
        });
      await quietReceiver.close();
    }
  });
});

describe('webhook deliveries: disabled after failing for three days', () => {
  // The app's clock starts days in the past and is moved a day at a time. Retries are a day
  // apart (four, longer than the window together), so the window alone decides; pg-boss, on
  // the database's clock, runs them at once, the embedded queue when the app's clock says.
  const clock = new ManualClock(new Date(Date.now() - 10 * DAY));
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({
      clock,
      env: {
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_RETRY_SCHEDULE: '86400,86400,86400,86400',
      },
    });
  });
  afterAll(() => t.close());

  it('disables an endpoint whose every attempt failed for three days, with an event and a mail', async () => {
    const owner = await createUser(t);
    const failing = await receiver(503);
    const healthy = await receiver(200);
    try {
      const id = await endpoint(t, owner, failing.url);
      await endpoint(t, owner, healthy.url);
      const read = async () =>
        (await request(t, owner, 'GET', `/v1/webhook-endpoints/${id}`)).json<{
          enabled: boolean;
          failingSince: string | null;
          disabledReason: string | null;
        }>();
      const dayOfFailures = async (name: string) => {
        await partner(t, owner, name);
        await t.app.ctx.jobs.drain();
      };
      await dayOfFailures('Tag 0');
      const since = (await read()).failingSince;
      expect(since).not.toBeNull();
      for (const day of [1, 2]) {
        clock.advance(DAY);
        await dayOfFailures(`Tag ${day}`);
        expect(await read()).toMatchObject({ enabled: true, failingSince: since });
      }
      clock.advance(DAY + 60_000);
      await dayOfFailures('Tag 3');
      const disabled = await read();
      expect(disabled).toMatchObject({ enabled: false, failingSince: since });
      expect(disabled.disabledReason).toContain(`since ${since}`);
      expect(disabled.disabledReason).toContain('HTTP 503');
      const events = await t.app.ctx.db
        .selectFrom('audit_events')
        .select(['action', 'actor_type'])
        .where('resource_id', '=', id)
        .orderBy('seq')
        .execute();
      expect(events.at(-1)).toMatchObject({
        action: 'webhook_endpoint.disabled',
        actor_type: 'system',
      });
      const [mail] = await mailsTo(t, owner.email);
      expect(mail?.subject).toContain('Webhook endpoint disabled');
      // Disabled: the next event goes to the healthy endpoint only (which stayed enabled).
      const before = failing.received();
      await dayOfFailures('Danach');
      expect(failing.received()).toBe(before);
      expect(healthy.received()).toBe(5);
    } finally {
      await failing.close();
      await healthy.close();
    }
  });

  it('records an attempt that fails before it is sent, so it cannot hold up the account', async () => {
    const owner = await createUser(t);
    const healthy = await receiver(200);
    try {
      const broken = await endpoint(t, owner, healthy.url);
      // A secret that no longer opens (sealed under another APP_SECRET): signing fails.
      await t.app.ctx.db
        .updateTable('webhook_endpoints')
        .set({ secret_sealed: 'not-a-sealed-secret' })
        .where('id', '=', broken)
        .execute();
      await endpoint(t, owner, healthy.url);
      await partner(t, owner, 'Versiegelt');
      await t.app.ctx.jobs.drain();
      const rows = await t.app.ctx.db
        .selectFrom('webhook_deliveries')
        .select(['endpoint_id', 'attempts', 'status', 'last_error', 'sending_until'])
        .where('account_id', '=', owner.accountId)
        .execute();
      const stuck = rows.find((r) => r.endpoint_id === broken);
      // Recorded as a failed attempt with a retry on schedule, its lease given back …
      expect(stuck).toMatchObject({ attempts: 1, status: 'PENDING', sending_until: null });
      expect(stuck?.last_error).toMatch(/^not sent: /);
      // … and the account's other endpoint got the event.
      expect(healthy.received()).toBe(1);
    } finally {
      await healthy.close();
    }
  });
});
