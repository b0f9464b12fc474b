import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { hmac } from '../../shared/secrets.js';

const SECRET = 'whsec_test_kontor_provider_0123456789abcdef';
const STRIPE_SECRET = 'whsec_test_stripe_0123456789abcdefghijkl';
const URL = '/v1/webhooks/provider-subscriptions';
const STRIPE_DIR = path.resolve(import.meta.dirname, '../../../../shared/testdata/stripe');
const hasStripeFixtures = fs.existsSync(STRIPE_DIR);

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp({
    env: { PROVIDER_WEBHOOK_SECRET: SECRET, STRIPE_WEBHOOK_SECRET: STRIPE_SECRET },
  });
});
afterAll(() => t.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);

function signature(payload: string, at = nowSeconds(), secret = SECRET): string {
  return `t=${at},v1=${hmac(secret, `${at}.${payload}`)}`;
}

/** Posts a raw body with the given headers and no credentials: the signature is the auth. */
function post(payload: string, headers: Record<string, string>) {
  return t.request({
    method: 'POST',
    url: URL,
    key: null,
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function postSigned(body: Record<string, unknown>) {
  const payload = JSON.stringify(body);
  return post(payload, { 'provider-signature': signature(payload) });
}

function event(account: TestUser, overrides: Record<string, unknown> = {}) {
  return {
    eventId: `evt_${randomUUID()}`,
    subscriptionId: `sub_${randomUUID()}`,
    accountId: account.accountId,
    planId: 'STARTER',
    status: 'ACTIVE',
    currentPeriodEnd: '2031-02-01T00:00:00Z',
    ...overrides,
  };
}

async function license(user: TestUser) {
  const res = await t.request({ method: 'GET', url: '/v1/licenses', token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json().data[0];
}

async function currentPlan(user: TestUser): Promise<string> {
  const res = await t.request({ method: 'GET', url: '/v1/plans', token: user.token });
  return res.json().currentPlanId;
}

function auditEvents(accountId: string) {
  return t.app.ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('action', '=', 'license.updated')
    .execute();
}

async function expectUnchanged(user: TestUser) {
  const row = await t.app.ctx.db
    .selectFrom('licenses')
    .selectAll()
    .where('account_id', '=', user.accountId)
    .executeTakeFirst();
  expect(row).toBeUndefined();
  expect(await currentPlan(user)).toBe('FREE');
  expect(await auditEvents(user.accountId)).toHaveLength(0);
  const events = await t.app.ctx.db
    .selectFrom('webhook_events')
    .selectAll()
    .where('account_id', '=', user.accountId)
    .execute();
  expect(events).toHaveLength(0);
}

describe('native subscription events', () => {
  it('updates the plan and license without credentials, with an audit event', async () => {
    const owner = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    const body = event(owner, { status: 'PAST_DUE', planId: 'BUSINESS' });
    const res = await postSigned(body);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });

    expect(await currentPlan(member)).toBe('BUSINESS');
    expect(await license(member)).toMatchObject({
      planId: 'BUSINESS',
      seats: 50,
      status: 'PAST_DUE',
      currentPeriodEnd: '2031-02-01',
      version: 1,
    });
    const audit = await auditEvents(owner.accountId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor_type: 'system', actor_id: null, token_id: null });
    expect(JSON.parse(audit[0]!.changes)).toMatchObject({
      planId: { from: 'FREE', to: 'BUSINESS' },
      status: { from: null, to: 'PAST_DUE' },
      subscriptionId: { from: null, to: body.subscriptionId },
      providerEvent: { provider: 'kontor', eventId: body.eventId },
    });

    // The next event of the subscription: provider words and unix seconds are accepted.
    const renewed = await postSigned({
      ...body,
      eventId: `evt_${randomUUID()}`,
      status: 'active',
      currentPeriodEnd: Date.UTC(2031, 2, 1) / 1000,
    });
    expect(renewed.statusCode).toBe(200);
    expect(await license(member)).toMatchObject({
      status: 'ACTIVE',
      currentPeriodEnd: '2031-03-01',
      version: 2,
    });
    expect(await auditEvents(owner.accountId)).toHaveLength(2);
  });

  it('refuses a missing, malformed, wrong, tampered or stale signature and changes nothing', async () => {
    const owner = await createUser(t);
    const payload = JSON.stringify(event(owner));
    const tampered = payload.replace('STARTER', 'BUSINESS');
    const cases: [Record<string, string>, string][] = [
      [{}, payload],
      [{ 'provider-signature': 'garbage' }, payload],
      [{ 'provider-signature': `t=${nowSeconds()}` }, payload],
      [
        { 'provider-signature': signature(payload, nowSeconds(), 'another_secret_of_some_length') },
        payload,
      ],
      [{ 'provider-signature': `t=${nowSeconds()},v1=${'0'.repeat(64)}` }, payload],
      [{ 'provider-signature': signature(payload) }, tampered],
    ];
    for (const [headers, body] of cases) {
      const res = await post(body, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().code).toBe('signature_invalid');
    }
    const stale = await post(payload, {
      'provider-signature': signature(payload, nowSeconds() - 301),
    });
    expect(stale.statusCode).toBe(400);
    expect(stale.json()).toMatchObject({ code: 'signature_invalid' });
    expect(stale.json().detail).toMatch(/stale/);
    const future = await post(payload, {
      'provider-signature': signature(payload, nowSeconds() + 301),
    });
    expect(future.json().code).toBe('signature_invalid');
    await expectUnchanged(owner);
  });

  it('processes a replayed delivery once', async () => {
    const owner = await createUser(t);
    // Without eventId the signature identifies the delivery.
    const { eventId: _, ...body } = event(owner);
    const payload = JSON.stringify(body);
    const headers = { 'provider-signature': signature(payload) };
    const first = await post(payload, headers);
    expect(first.json()).toEqual({ received: true });
    const again = await post(payload, headers);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    // The same event id in a new delivery (new timestamp) is a replay too.
    const withId = event(owner);
    expect((await postSigned(withId)).json()).toEqual({ received: true });
    expect((await postSigned({ ...withId, planId: 'BUSINESS' })).json()).toEqual({
      received: true,
      duplicate: true,
    });
    expect(await auditEvents(owner.accountId)).toHaveLength(2);
    expect(await currentPlan(owner)).toBe('STARTER');
  });

  it('answers 422 for an unknown account or plan and records nothing, so a fixed retry works', async () => {
    const owner = await createUser(t);
    const unknown = event(owner, { accountId: 'acc_01jdoesnotexist000000000000' });
    const first = await postSigned(unknown);
    expect(first.statusCode).toBe(422);
    expect(first.json().code).toBe('reference_not_found');
    const retry = await postSigned(unknown);
    expect(retry.statusCode).toBe(422);
    expect(retry.json().code).toBe('reference_not_found');

    const badPlan = event(owner, { planId: 'PLATINUM' });
    const refused = await postSigned(badPlan);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().code).toBe('business_rule_violated');
    await expectUnchanged(owner);
    // The provider fixes its catalogue mapping and retries the same event: processed.
    const fixed = await postSigned({ ...badPlan, planId: 'STARTER' });
    expect(fixed.json()).toEqual({ received: true });
    expect(await currentPlan(owner)).toBe('STARTER');
  });

  it('keeps the newer state when deliveries arrive out of order', async () => {
    const owner = await createUser(t);
    const subscriptionId = `sub_${randomUUID()}`;
    const newer = event(owner, {
      subscriptionId,
      planId: 'BUSINESS',
      currentPeriodEnd: '2031-06-01T00:00:00Z',
    });
    const older = event(owner, {
      subscriptionId,
      planId: 'STARTER',
      status: 'PAST_DUE',
      currentPeriodEnd: '2031-05-01T00:00:00Z',
    });
    expect((await postSigned(newer)).json()).toEqual({ received: true });
    expect((await postSigned(older)).json()).toEqual({ received: true, stale: true });
    expect(await currentPlan(owner)).toBe('BUSINESS');
    expect(await license(owner)).toMatchObject({
      status: 'ACTIVE',
      currentPeriodEnd: '2031-06-01',
      version: 1,
    });
    // A cancellation always applies, without moving the period end back …
    const cancel = event(owner, {
      subscriptionId,
      planId: 'BUSINESS',
      status: 'canceled',
      currentPeriodEnd: '2031-05-01T00:00:00Z',
    });
    expect((await postSigned(cancel)).json()).toEqual({ received: true });
    expect(await license(owner)).toMatchObject({
      status: 'CANCELED',
      currentPeriodEnd: '2031-06-01',
      version: 2,
    });
    // … and a late ACTIVE event of the same period does not undo it.
    const late = event(owner, { subscriptionId, currentPeriodEnd: '2031-06-01T00:00:00Z' });
    expect((await postSigned(late)).json()).toEqual({ received: true, stale: true });
    expect((await license(owner)).status).toBe('CANCELED');
  });

  it('validates the body after the signature, and refuses malformed JSON', async () => {
    const owner = await createUser(t);
    const unknownField = await postSigned({ ...event(owner), extra: 1 });
    expect(unknownField.statusCode).toBe(400);
    expect(unknownField.json().code).toBe('validation_failed');
    expect(unknownField.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/extra' }),
    );
    const badStatus = await postSigned(event(owner, { status: 'PAUSED' }));
    expect(badStatus.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/status' }),
    );
    const malformed = await post('{"accountId":', { 'provider-signature': signature('x') });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('malformed_json');
    await expectUnchanged(owner);
  });

  it('answers 503 when no webhook secret is configured', async () => {
    const bare = await buildTestApp();
    try {
      const payload = JSON.stringify({ subscriptionId: 's' });
      const res = await bare.request({
        method: 'POST',
        url: URL,
        key: null,
        payload,
        headers: { 'content-type': 'application/json', 'provider-signature': signature(payload) },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('service_unavailable');
    } finally {
      await bare.close();
    }
  });

  it('leaves the global JSON parser to other modules', async () => {
    const owner = await createUser(t);
    const res = await t.request({
      method: 'PATCH',
      url: '/v1/plans',
      token: owner.token,
      payload: { planId: 'STARTER' },
    });
    expect(res.statusCode).toBe(200);
  });
});

describe.runIf(hasStripeFixtures)('Stripe events', () => {
  const stripe = new Stripe('sk_test_unused');

  function fixture(name: string): Record<string, unknown> & {
    data: { object: Record<string, unknown> };
  } {
    const json = JSON.parse(
      fs.readFileSync(path.join(STRIPE_DIR, 'stripe-ruby-mock', name), 'utf8'),
    );
    return { ...json, id: `evt_${randomUUID().replaceAll('-', '')}` };
  }

  function postStripe(body: unknown, secret = STRIPE_SECRET) {
    const payload = JSON.stringify(body);
    return post(payload, {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret }),
    });
  }

  it('applies customer.subscription.updated and .deleted', async () => {
    const owner = await createUser(t);
    const updated = fixture('customer.subscription.updated.json');
    const sub = updated.data.object;
    sub.metadata = { accountId: owner.accountId };
    (sub.items as { data: { price: { lookup_key: string } }[] }).data[0]!.price.lookup_key =
      'business';
    const res = await postStripe(updated);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true });
    expect(await currentPlan(owner)).toBe('BUSINESS');
    expect(await license(owner)).toMatchObject({
      status: 'ACTIVE',
      // 1650998505 in the fixture
      currentPeriodEnd: '2022-04-26',
    });
    const audit = await auditEvents(owner.accountId);
    expect(JSON.parse(audit[0]!.changes).providerEvent).toMatchObject({
      provider: 'stripe',
      eventId: updated.id,
      type: 'customer.subscription.updated',
    });
    expect((await postStripe(updated)).json()).toEqual({ received: true, duplicate: true });

    const deleted = fixture('customer.subscription.deleted.json');
    deleted.data.object.id = sub.id;
    deleted.data.object.metadata = { kontorAccountId: owner.accountId, planId: 'BUSINESS' };
    expect((await postStripe(deleted)).json()).toEqual({ received: true });
    expect((await license(owner)).status).toBe('CANCELED');
  });

  it('reads the period end from the items on newer API versions', async () => {
    const owner = await createUser(t);
    const created = fixture('customer.subscription.created.json');
    const sub = created.data.object;
    const periodEnd = Date.UTC(2031, 0, 15) / 1000;
    delete sub.current_period_end;
    sub.metadata = { accountId: owner.accountId, planId: 'STARTER' };
    (sub.items as { data: Record<string, unknown>[] }).data[0]!.current_period_end = periodEnd;
    const res = await postStripe(created);
    expect(res.json()).toEqual({ received: true });
    expect(await license(owner)).toMatchObject({
      planId: 'STARTER',
      currentPeriodEnd: '2031-01-15',
    });
  });

  it('refuses a bad Stripe signature and changes nothing', async () => {
    const owner = await createUser(t);
    const updated = fixture('customer.subscription.updated.json');
    updated.data.object.metadata = { accountId: owner.accountId, planId: 'STARTER' };
    const wrong = await postStripe(updated, 'whsec_not_the_right_one_0000000000');
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().code).toBe('signature_invalid');
    const payload = JSON.stringify(updated);
    const stale = await post(payload, {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload,
        secret: STRIPE_SECRET,
        timestamp: nowSeconds() - 301,
      }),
    });
    expect(stale.json().code).toBe('signature_invalid');
    const future = await post(payload, {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload,
        secret: STRIPE_SECRET,
        timestamp: nowSeconds() + 301,
      }),
    });
    expect(future.json().code).toBe('signature_invalid');
    const garbage = await post(payload, { 'stripe-signature': 'nonsense' });
    expect(garbage.json().code).toBe('signature_invalid');
    await expectUnchanged(owner);
  });

  it('acknowledges other event types without applying them', async () => {
    const res = await postStripe(fixture('payment_intent.succeeded.json'));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ received: true, ignored: true });
  });

  it('answers 422 when the subscription names no account', async () => {
    const updated = fixture('customer.subscription.updated.json');
    const res = await postStripe(updated);
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('reference_not_found');
  });
});
