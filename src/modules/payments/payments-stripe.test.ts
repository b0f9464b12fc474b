import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { newInvoice, newPartner, payments, type PaymentView } from './payments.test-support.js';

const STRIPE_SECRET = 'whsec_test_stripe_payments_0123456789abcd';
const URL = '/v1/webhooks/provider';
// Stripe's own event payloads (stripe-ruby-mock webhook fixtures), present in CI.
const STRIPE_DIR = path.resolve(
  import.meta.dirname,
  '../../../../shared/testdata/stripe/stripe-ruby-mock',
);
const hasStripeFixtures = fs.existsSync(STRIPE_DIR);

type Json = Record<string, unknown>;
type StripeFixture = Json & { id: string; data: { object: Json } };

let t: TestApp;
let api: ReturnType<typeof payments>;
let owner: TestUser;
let partner: { id: string; name: string };
const stripe = new Stripe('sk_test_unused');

beforeAll(async () => {
  t = await buildTestApp({
    env: { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET, PROVIDER_WEBHOOK_SECRET: 'whsec_native_000000' },
  });
  api = payments(t);
  owner = await createUser(t);
  partner = await newPartner(t, owner, 'Stripe Kunde GmbH');
});
afterAll(() => t.close());

/** A fixture with a fresh event id and, unless given, a fresh PaymentIntent id. */
function fixture(name: string, intent = `pi_${randomUUID().replaceAll('-', '')}`): StripeFixture {
  const json = JSON.parse(fs.readFileSync(path.join(STRIPE_DIR, name), 'utf8')) as StripeFixture;
  json.id = `evt_${randomUUID().replaceAll('-', '')}`;
  if (json.data.object.object === 'payment_intent') json.data.object.id = intent;
  return json;
}

function post(payload: string, headers: Record<string, string>) {
  return t.request({
    method: 'POST',
    url: URL,
    key: null,
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** Signs the event with Stripe's own test helper, as Stripe would. */
function postStripe(event: unknown, secret = STRIPE_SECRET) {
  const payload = JSON.stringify(event);
  return post(payload, {
    'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret }),
  });
}

const byIntent = (intent: string) =>
  t.app.ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('provider_payment_intent_id', '=', intent)
    .execute();

describe.runIf(hasStripeFixtures)('provider webhook: Stripe events', () => {
  it('creates a MARKED card payment from payment_intent.succeeded with metadata.partnerId', async () => {
    const event = fixture('payment_intent.succeeded.json');
    event.data.object.metadata = { partnerId: partner.id };
    const res = await postStripe(event);
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json<{ paymentId: string }>().paymentId;
    expect((await api.get(owner, id)).json()).toMatchObject({
      direction: 'INCOMING',
      partnerId: partner.id,
      partnerName: partner.name,
      amount: 20, // 2000 cents
      currency: 'USD',
      paymentDate: '2022-03-26', // the event's `created`, 1648320033
      status: 'MARKED',
      paymentMethod: 'CREDIT_CARD',
      providerPaymentIntentId: event.data.object.id,
      source: 'PROVIDER',
    });
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_id', '=', id)
      .execute();
    expect(audit[0]).toMatchObject({ action: 'payment.created', actor_type: 'system' });
    expect(JSON.parse(audit[0]!.changes).providerEvent).toEqual({
      provider: 'stripe',
      eventId: event.id,
      type: 'payment_intent.succeeded',
    });

    // The same event again: processed once.
    const replay = await postStripe(event);
    expect(replay.json()).toEqual({ received: true, duplicate: true });
    expect(await byIntent(event.data.object.id as string)).toHaveLength(1);
  });

  it('records payment_intent.payment_failed as PENDING with the reason, and never un-marks', async () => {
    const failed = fixture('payment_intent.payment_failed.json');
    const intent = failed.data.object.id as string;
    failed.data.object.metadata = { kontorAccountId: owner.accountId, partnerId: partner.id };
    const first = await postStripe(failed);
    expect(first.statusCode, first.body).toBe(200);
    const id = first.json<{ paymentId: string }>().paymentId;
    expect((await api.get(owner, id)).json()).toMatchObject({
      status: 'PENDING',
      failureReason: 'Your card was declined. (card_declined/generic_decline)',
      markedAt: null,
      amount: 20,
    });
    const succeeded = fixture('payment_intent.succeeded.json', intent);
    expect((await postStripe(succeeded)).json()).toEqual({ received: true, paymentId: id });
    expect((await api.get(owner, id)).json()).toMatchObject({
      status: 'MARKED',
      failureReason: null,
    });
    // A failure delivered late (out of order) leaves it MARKED.
    const late = fixture('payment_intent.payment_failed.json', intent);
    expect((await postStripe(late)).json()).toEqual({ received: true, paymentId: id, stale: true });
    expect((await api.get(owner, id)).json()).toMatchObject({ status: 'MARKED', version: 2 });
  });

  it('marks a payment Kontor knows by its PaymentIntent id, without metadata', async () => {
    const intent = `pi_known_${randomUUID().replaceAll('-', '')}`;
    const invoice = await newInvoice(t, owner, { partnerId: partner.id, currency: 'USD' });
    const manual = await api.post(owner, {
      documentId: invoice.id,
      amount: 20,
      currency: 'USD',
      paymentDate: '2022-03-01',
      providerPaymentIntentId: intent,
    });
    const id = manual.json<PaymentView>().id;
    const res = await postStripe(fixture('payment_intent.succeeded.json', intent));
    expect(res.json()).toEqual({ received: true, paymentId: id });
    expect((await api.get(owner, id)).json()).toMatchObject({
      status: 'MARKED',
      paymentDate: '2022-03-26',
      documentId: invoice.id,
      source: 'MANUAL',
    });
  });

  it('books charge.refunded as an OUTGOING MARKED payment linked like the refunded one', async () => {
    const intent = `pi_refund_${randomUUID().replaceAll('-', '')}`;
    const paid = fixture('payment_intent.succeeded.json', intent);
    paid.data.object.metadata = { partnerId: partner.id };
    const original = (await postStripe(paid)).json<{ paymentId: string }>().paymentId;

    const refunded = fixture('charge.refunded.json');
    const charge = refunded.data.object;
    charge.id = `ch_${randomUUID().replaceAll('-', '')}`;
    charge.payment_intent = intent;
    charge.amount = 2000;
    charge.amount_refunded = 500;
    const res = await postStripe(refunded);
    expect(res.statusCode, res.body).toBe(200);
    const refundId = res.json<{ paymentId: string }>().paymentId;
    expect(refundId).not.toBe(original);
    expect((await api.get(owner, refundId)).json()).toMatchObject({
      direction: 'OUTGOING',
      status: 'MARKED',
      amount: 5,
      currency: 'USD',
      partnerId: partner.id,
      paymentMethod: 'CREDIT_CARD',
      providerPaymentIntentId: `${charge.id as string}:refunds`,
      source: 'PROVIDER',
      paymentDate: '2022-03-26', // the fixture's `created`, 1648319949
    });
    // The original payment is untouched.
    expect((await api.get(owner, original)).json()).toMatchObject({ status: 'MARKED', amount: 20 });

    // A further refund raises the cumulative amount; a late, smaller total does not lower it.
    const more = fixture('charge.refunded.json');
    more.data.object = { ...charge, amount_refunded: 2000 };
    expect((await postStripe(more)).json()).toEqual({ received: true, paymentId: refundId });
    const older = fixture('charge.refunded.json');
    older.data.object = { ...charge, amount_refunded: 500 };
    expect((await postStripe(older)).json()).toEqual({
      received: true,
      paymentId: refundId,
      stale: true,
    });
    expect((await api.get(owner, refundId)).json()).toMatchObject({ amount: 20, version: 2 });
  });

  it('ignores events that are not about payments or name no Kontor partner', async () => {
    const subscription = fixture('customer.subscription.updated.json');
    expect((await postStripe(subscription)).json()).toEqual({ received: true, ignored: true });
    const stranger = fixture('payment_intent.succeeded.json');
    expect((await postStripe(stranger)).json()).toEqual({ received: true, ignored: true });
    expect(await byIntent(stranger.data.object.id as string)).toHaveLength(0);
    // Unattributed refunds of unknown charges too (the fixture has no payment_intent).
    expect((await postStripe(fixture('charge.refunded.json'))).json()).toEqual({
      received: true,
      ignored: true,
    });
  });

  it('answers 422 for metadata naming a partner that does not exist, or of another account', async () => {
    const event = fixture('payment_intent.succeeded.json');
    event.data.object.metadata = { partnerId: 'ptr_01jd8x0000000000000000000' };
    const res = await postStripe(event);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({
      path: '/body/data/object/metadata/partnerId',
      code: 'reference_not_found',
    });
    const stranger = await createUser(t);
    event.data.object.metadata = { partnerId: partner.id, kontorAccountId: stranger.accountId };
    expect((await postStripe(event)).statusCode).toBe(422);
    expect(await byIntent(event.data.object.id as string)).toHaveLength(0);
    // The corrected delivery of the same event is then processed.
    event.data.object.metadata = { partnerId: partner.id };
    expect((await postStripe(event)).statusCode).toBe(200);
    expect(await byIntent(event.data.object.id as string)).toHaveLength(1);
  });

  it('refuses an unsigned, wrongly signed or stale Stripe payload and stores nothing', async () => {
    const event = fixture('payment_intent.succeeded.json');
    event.data.object.metadata = { partnerId: partner.id };
    const payload = JSON.stringify(event);
    const unsigned = await post(payload, {});
    expect(unsigned.statusCode).toBe(400);
    expect(unsigned.json().code).toBe('signature_invalid');
    const wrong = await postStripe(event, 'whsec_not_the_right_one_0000000000');
    expect(wrong.json().code).toBe('signature_invalid');
    const stale = await post(payload, {
      'stripe-signature': stripe.webhooks.generateTestHeaderString({
        payload,
        secret: STRIPE_SECRET,
        timestamp: Math.floor(Date.now() / 1000) - 301,
      }),
    });
    expect(stale.json().code).toBe('signature_invalid');
    expect(await byIntent(event.data.object.id as string)).toHaveLength(0);
  });

  it('answers 4xx for a signed event whose object lacks what a payment needs', async () => {
    const event = fixture('payment_intent.succeeded.json');
    event.data.object.metadata = { partnerId: partner.id };
    event.data.object.currency = 'xyz';
    const res = await postStripe(event);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].path).toBe('/body/data/object/currency');
    delete event.data.object.id;
    expect((await postStripe(event)).statusCode).toBe(400);
  });
});
