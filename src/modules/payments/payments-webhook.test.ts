import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { hmac } from '../../shared/secrets.js';
import { newInvoice, newPartner, payments, type PaymentView } from './payments.test-support.js';

const SECRET = 'whsec_test_kontor_payments_0123456789abcdef';
const OLD_SECRET = 'whsec_test_kontor_payments_previous_000000';
const URL = '/v1/webhooks/provider';

let t: TestApp;
let api: ReturnType<typeof payments>;
let owner: TestUser;
let partner: { id: string; name: string };

beforeAll(async () => {
  t = await buildTestApp({ env: { PROVIDER_WEBHOOK_SECRET: SECRET } });
  api = payments(t);
  owner = await createUser(t);
  partner = await newPartner(t, owner, 'Webshop Kunde');
});
afterAll(() => t.close());

const nowSeconds = () => Math.floor(Date.now() / 1000);
const sign = (payload: string, at = nowSeconds(), secret = SECRET) =>
  `v1=${hmac(secret, `${at}.${payload}`)}`;

/** Posts a raw body without credentials: the signature is the authorisation. */
function post(payload: string, headers: Record<string, string>) {
  return t.request({
    method: 'POST',
    url: URL,
    key: null,
    payload,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

function postSigned(body: Record<string, unknown>, at = nowSeconds()) {
  const payload = JSON.stringify(body);
  return post(payload, { 'provider-signature': `t=${at},${sign(payload, at)}` });
}

function delivery(overrides: Record<string, unknown> = {}) {
  return {
    direction: 'INCOMING',
    partnerId: partner.id,
    partnerName: partner.name,
    amount: 49.9,
    currency: 'EUR',
    paymentDate: '2026-03-20',
    status: 'MARKED',
    paymentMethod: 'CREDIT_CARD',
    providerPaymentIntentId: `pi_${randomUUID().replaceAll('-', '')}`,
    ...overrides,
  };
}

async function byIntent(intent: string) {
  return t.app.ctx.db
    .selectFrom('payments')
    .selectAll()
    .where('provider_payment_intent_id', '=', intent)
    .execute();
}

async function paymentAudit(paymentId: string) {
  return t.app.ctx.db
    .selectFrom('audit_events')
    .selectAll()
    .where('resource_id', '=', paymentId)
    .orderBy('seq')
    .execute();
}

async function expectNothingStored(intent: string) {
  expect(await byIntent(intent)).toHaveLength(0);
  const events = await t.app.ctx.db
    .selectFrom('webhook_events')
    .selectAll()
    .where('account_id', '=', owner.accountId)
    .where('type', 'like', 'payment.%')
    .execute();
  return events.length;
}

describe('provider webhook: native payment shape', () => {
  it('creates a MARKED payment in the partner’s account, without credentials, audited as system', async () => {
    const body = delivery();
    const res = await postSigned(body);
    expect(res.statusCode, res.body).toBe(200);
    const ack = res.json<{ received: boolean; paymentId: string }>();
    expect(ack).toEqual({ received: true, paymentId: expect.stringMatching(/^pay_/) });
    const p = (await api.get(owner, ack.paymentId)).json<PaymentView>();
    expect(p).toMatchObject({
      direction: 'INCOMING',
      partnerId: partner.id,
      partnerName: partner.name,
      amount: 49.9,
      currency: 'EUR',
      status: 'MARKED',
      markedAt: expect.any(String),
      source: 'PROVIDER',
      providerPaymentIntentId: body.providerPaymentIntentId,
      version: 1,
    });
    const audit = await paymentAudit(p.id);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({
      action: 'payment.created',
      actor_type: 'system',
      actor_id: null,
      token_id: null,
      account_id: owner.accountId,
    });
    expect(JSON.parse(audit[0]!.changes).providerEvent).toMatchObject({
      provider: 'kontor',
      type: 'payment.succeeded',
    });
  });

  it('updates the payment with that provider id: a manual PENDING payment becomes MARKED', async () => {
    const intent = `pi_manual_${randomUUID()}`;
    const manual = await api.post(owner, {
      partnerId: partner.id,
      amount: 30,
      currency: 'EUR',
      paymentDate: '2026-03-01',
      providerPaymentIntentId: intent,
    });
    const id = manual.json<PaymentView>().id;
    const res = await postSigned(
      delivery({ providerPaymentIntentId: intent, amount: 30.5, paymentDate: '2026-03-02' }),
    );
    expect(res.json()).toEqual({ received: true, paymentId: id });
    expect((await api.get(owner, id)).json()).toMatchObject({
      status: 'MARKED',
      amount: 30.5,
      paymentDate: '2026-03-02',
      paymentMethod: 'CREDIT_CARD',
      source: 'MANUAL',
      version: 2,
    });
    expect((await paymentAudit(id)).map((a) => a.action)).toEqual([
      'payment.created',
      'payment.marked',
    ]);
  });

  it('never applies an event to a payment of another account than the one it names', async () => {
    const squatter = await createUser(t);
    const intent = `pi_taken_${randomUUID()}`;
    const taken = await api.post(squatter, {
      partnerName: 'Wer auch immer',
      amount: 49.9,
      currency: 'EUR',
      paymentDate: '2026-03-01',
      providerPaymentIntentId: intent,
    });
    expect(taken.statusCode).toBe(201);
    const res = await postSigned(delivery({ providerPaymentIntentId: intent }));
    expect(res.statusCode).toBe(409);
    expect(res.json().errors[0]).toMatchObject({
      path: '/body/providerPaymentIntentId',
      code: 'state_conflict',
    });
    expect((await api.get(squatter, taken.json<PaymentView>().id)).json()).toMatchObject({
      status: 'PENDING',
      version: 1,
    });
  });

  it('links a document of the partner’s account and checks its currency', async () => {
    const invoice = await newInvoice(t, owner, { partnerId: partner.id });
    const ok = await postSigned(delivery({ documentId: invoice.id, amount: 119 }));
    expect(ok.statusCode).toBe(200);
    const p = (await api.get(owner, ok.json().paymentId)).json<PaymentView>();
    expect(p).toMatchObject({ documentId: invoice.id, partnerId: partner.id });
    const body = delivery({ documentId: invoice.id, currency: 'USD' });
    const wrong = await postSigned(body);
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0]).toMatchObject({ path: '/body/currency' });
    expect(await byIntent(body.providerPaymentIntentId)).toHaveLength(0);
  });

  it('refuses a missing, wrong, stale or future signature with 400 and stores nothing', async () => {
    const events = await expectNothingStored('none');
    const body = delivery();
    const payload = JSON.stringify(body);
    // Each case is built when it is sent: on a loaded machine the seconds pass between cases,
    // and a timestamp one second past the tolerance must still be one second past it.
    const cases: ((at: number) => Record<string, string>)[] = [
      () => ({}),
      () => ({ 'provider-signature': '' }),
      () => ({ 'provider-signature': 'garbage' }),
      (at) => ({ 'provider-signature': `t=${at}` }),
      (at) => ({
        'provider-signature': `t=${at},${sign(payload, at, 'whsec_wrong_secret_00000000000000')}`,
      }),
      (at) => ({ 'provider-signature': `t=${at},${sign(`${payload} `, at)}` }),
      (at) => ({ 'provider-signature': `t=${at - 301},${sign(payload, at - 301)}` }),
      (at) => ({ 'provider-signature': `t=${at + 302},${sign(payload, at + 302)}` }),
      // The signature of another timestamp.
      (at) => ({ 'provider-signature': `t=${at - 1},${sign(payload, at)}` }),
    ];
    for (const build of cases) {
      const headers = build(nowSeconds());
      const res = await post(payload, headers);
      expect(res.statusCode, JSON.stringify(headers)).toBe(400);
      expect(res.json().code).toBe('signature_invalid');
    }
    // Signed with the right secret but a tampered body.
    const tampered = JSON.stringify({ ...body, amount: 4990 });
    const at = nowSeconds();
    const res = await post(tampered, { 'provider-signature': `t=${at},${sign(payload, at)}` });
    expect(res.json().code).toBe('signature_invalid');
    expect(await expectNothingStored(body.providerPaymentIntentId)).toBe(events);
  });

  it('checks the signature before the body, then the body like a create', async () => {
    const badBody = JSON.stringify({ amount: 'lots', colour: 'red' });
    const unsigned = await post(badBody, {});
    expect(unsigned.json().code).toBe('signature_invalid');
    const at = nowSeconds();
    const signed = await post(badBody, { 'provider-signature': `t=${at},${sign(badBody, at)}` });
    expect(signed.statusCode).toBe(400);
    expect(signed.json().code).toBe('validation_failed');
    expect(signed.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: '/body/amount', code: 'wrong_type' }),
        expect.objectContaining({ path: '/body/colour', code: 'unknown_field' }),
      ]),
    );
    const decimals = await postSigned(delivery({ amount: 1.234 }));
    expect(decimals.json().errors[0]).toMatchObject({
      path: '/body/amount',
      code: 'too_many_decimals',
    });
    const noIntent = await postSigned(delivery({ providerPaymentIntentId: undefined }));
    expect(noIntent.json().errors[0]).toMatchObject({
      path: '/body/providerPaymentIntentId',
      code: 'required',
    });
    const noPartner = await postSigned(delivery({ partnerId: undefined }));
    expect(noPartner.statusCode).toBe(400);
    expect(noPartner.json().errors[0]).toMatchObject({ path: '/body/partnerId', code: 'required' });
    const body = delivery({ partnerId: 'ptr_01jd8x0000000000000000000' });
    const unknown = await postSigned(body);
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().code).toBe('reference_not_found');
    expect(await byIntent(body.providerPaymentIntentId)).toHaveLength(0);
  });

  it('processes a replayed delivery once', async () => {
    const body = delivery();
    const payload = JSON.stringify(body);
    const at = nowSeconds();
    const headers = { 'provider-signature': `t=${at},${sign(payload, at)}` };
    const first = await post(payload, headers);
    expect(first.statusCode).toBe(200);
    const id = first.json().paymentId as string;
    const again = await post(payload, headers);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ received: true, duplicate: true });
    expect(await byIntent(body.providerPaymentIntentId)).toHaveLength(1);
    expect(await paymentAudit(id)).toHaveLength(1);
    // The provider's retry of the same news (a new timestamp) changes nothing either.
    const retry = await postSigned(body, at + 1);
    expect(retry.json()).toEqual({ received: true, paymentId: id });
    expect((await api.get(owner, id)).json().version).toBe(1);
    expect(await paymentAudit(id)).toHaveLength(1);
  });

  it('accepts a delivery signed with several v1 values during secret rotation', async () => {
    const body = delivery();
    const payload = JSON.stringify(body);
    const at = nowSeconds();
    const header = `t=${at},${sign(payload, at, OLD_SECRET)},${sign(payload, at)}`;
    const res = await post(payload, { 'provider-signature': header });
    expect(res.statusCode).toBe(200);
    expect(await byIntent(body.providerPaymentIntentId)).toHaveLength(1);
    const onlyOld = await post(payload, {
      'provider-signature': `t=${at},${sign(payload, at, OLD_SECRET)}`,
    });
    expect(onlyOld.json().code).toBe('signature_invalid');
  });

  it('ends MARKED whatever the order of success and failure', async () => {
    // Success first, then a late failure: stays MARKED, the failure is not recorded.
    const intent = `pi_order_${randomUUID()}`;
    const success = await postSigned(delivery({ providerPaymentIntentId: intent }));
    const id = success.json().paymentId as string;
    const late = await postSigned(
      delivery({ providerPaymentIntentId: intent, status: 'PENDING', failureReason: 'declined' }),
    );
    expect(late.json()).toEqual({ received: true, paymentId: id, stale: true });
    expect((await api.get(owner, id)).json()).toMatchObject({
      status: 'MARKED',
      failureReason: null,
      version: 1,
    });

    // Failure first: recorded and PENDING; the success then marks it and clears the reason.
    const other = `pi_order_${randomUUID()}`;
    const failed = await postSigned(
      delivery({ providerPaymentIntentId: other, status: 'PENDING', failureReason: 'declined' }),
    );
    const otherId = failed.json().paymentId as string;
    expect((await api.get(owner, otherId)).json()).toMatchObject({
      status: 'PENDING',
      failureReason: 'declined',
      markedAt: null,
    });
    await postSigned(delivery({ providerPaymentIntentId: other }));
    expect((await api.get(owner, otherId)).json()).toMatchObject({
      status: 'MARKED',
      failureReason: null,
      markedAt: expect.any(String),
    });
  });

  it('converges when success and failure arrive at the same time', async () => {
    const intent = `pi_race_${randomUUID()}`;
    const results = await Promise.all([
      postSigned(delivery({ providerPaymentIntentId: intent })),
      postSigned(
        delivery({ providerPaymentIntentId: intent, status: 'PENDING', failureReason: 'late' }),
      ),
    ]);
    expect(results.map((r) => r.statusCode)).toEqual([200, 200]);
    const rows = await byIntent(intent);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'MARKED', failure_reason: null });
  });
});

describe('provider webhook: configuration', () => {
  it('answers 503 while the secret is not configured', async () => {
    const bare = await buildTestApp();
    try {
      const res = await bare.request({
        method: 'POST',
        url: URL,
        key: null,
        payload: JSON.stringify(delivery()),
        headers: { 'content-type': 'application/json', 'provider-signature': 't=1,v1=00' },
      });
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('service_unavailable');
    } finally {
      await bare.close();
    }
  });
});
