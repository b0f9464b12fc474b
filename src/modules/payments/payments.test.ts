import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { describeResourceContract } from '../../../test/contract.js';
import * as audit from '../../shared/audit.js';
import { ManualClock } from '../../shared/clock.js';
import {
  newContract,
  newInvoice,
  newPartner,
  paymentBody,
  payments,
  type PaymentView,
} from './payments.test-support.js';

let t: TestApp;
let api: ReturnType<typeof payments>;
let admin: TestUser;
let member: TestUser;
let other: TestUser;
let partner: { id: string; name: string };
let contract: { id: string; name: string };
const clock = new ManualClock(new Date('2026-03-20T10:00:00.000Z'));

beforeAll(async () => {
  t = await buildTestApp({ clock });
  api = payments(t);
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
  partner = await newPartner(t, admin);
  contract = await newContract(t, admin, partner.id);
});
afterAll(() => t.close());

describeResourceContract(() => t, {
  name: 'payment',
  path: '/v1/payments',
  create: () => paymentBody({ partnerName: 'Contract GmbH' }),
  update: { method: 'PUT', body: { amount: 250 } },
  changedField: 'amount',
});

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

async function create(payload: Record<string, unknown>, user = member): Promise<PaymentView> {
  const res = await api.post(user, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<PaymentView>();
}

describe('payments: create and read', () => {
  it('creates a payment with every field, names filled from the referenced records', async () => {
    const invoice = await newInvoice(t, admin, { partnerId: partner.id, contractId: contract.id });
    const res = await api.post(member, {
      direction: 'INCOMING',
      documentId: invoice.id,
      documentNumber: 'ignored: the document has an id',
      contractId: contract.id,
      contractName: 'ignored',
      partnerId: partner.id,
      partnerName: 'ignored',
      amount: 59.5,
      currency: 'EUR',
      paymentDate: '2026-03-18',
      status: 'PENDING',
      paymentMethod: 'BANK_TRANSFER',
      providerPaymentIntentId: `pi_${Date.now()}_full`,
      failureReason: 'Karte abgelehnt',
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers.etag).toBe('"1"');
    const p = res.json<PaymentView>();
    expect(p.id).toMatch(/^pay_[0-9a-z]{26}$/);
    expect(res.headers.location).toBe(`/v1/payments/${p.id}`);
    expect(p).toEqual({
      id: p.id,
      version: 1,
      direction: 'INCOMING',
      documentId: invoice.id,
      documentNumber: null, // a DRAFT invoice has no number yet
      contractId: contract.id,
      contractName: contract.name,
      partnerId: partner.id,
      partnerName: partner.name,
      amount: 59.5,
      currency: 'EUR',
      paymentDate: '2026-03-18',
      status: 'PENDING',
      paymentMethod: 'BANK_TRANSFER',
      providerPaymentIntentId: expect.stringMatching(/^pi_/),
      failureReason: 'Karte abgelehnt',
      markedAt: null,
      source: 'MANUAL',
      importId: null,
      document: {
        id: invoice.id,
        documentNumber: null,
        paymentStatus: 'UNPAID',
        openAmount: 119,
        paidAt: null,
      },
      createdAt: '2026-03-20T10:00:00.000Z',
      updatedAt: '2026-03-20T10:00:00.000Z',
    });
    const read = await api.get(admin, p.id);
    expect(read.statusCode).toBe(200);
    expect(read.headers.etag).toBe('"1"');
    expect(read.json()).toEqual(p);
  });

  it('defaults the partner from the document, else the contract, and the contract from the document', async () => {
    const invoice = await newInvoice(t, admin, { partnerId: partner.id, contractId: contract.id });
    const fromDocument = await create(
      paymentBody({ documentId: invoice.id, partnerName: undefined }),
    );
    expect(fromDocument).toMatchObject({
      partnerId: partner.id,
      partnerName: partner.name,
      contractId: contract.id,
      contractName: contract.name,
    });
    const fromContract = await create(
      paymentBody({ contractId: contract.id, partnerName: undefined }),
    );
    expect(fromContract).toMatchObject({ partnerId: partner.id, partnerName: partner.name });
  });

  it('keeps client names only without ids, defaults direction, and records a payment as settled', async () => {
    const p = await create({
      partnerName: 'Kiosk am Eck',
      contractName: 'Mündliche Absprache',
      documentNumber: 'Q-7',
      amount: 12.3,
      currency: 'EUR',
      paymentDate: '2026-03-01',
    });
    expect(p).toMatchObject({
      direction: 'INCOMING',
      // Recorded by hand without a provider: money that moved, settled at once.
      status: 'MARKED',
      partnerId: null,
      partnerName: 'Kiosk am Eck',
      contractName: 'Mündliche Absprache',
      documentNumber: 'Q-7',
      paymentMethod: null,
      markedAt: '2026-03-20T10:00:00.000Z',
    });
    // No linked invoice: no `document`.
    expect(p).not.toHaveProperty('document');
    const expected = await create(paymentBody({ status: 'PENDING' }));
    expect(expected).toMatchObject({ status: 'PENDING', markedAt: null });
    // A provider's payment is expected until its webhook reports success.
    const provider = await create(paymentBody({ providerPaymentIntentId: `pi_${Date.now()}_d` }));
    expect(provider).toMatchObject({ status: 'PENDING', markedAt: null });
  });

  it('creates MARKED with markedAt, and honours currencies without and with three decimals', async () => {
    const marked = await create(paymentBody({ status: 'MARKED', amount: 1500, currency: 'JPY' }));
    expect(marked).toMatchObject({
      status: 'MARKED',
      markedAt: '2026-03-20T10:00:00.000Z',
      amount: 1500,
      currency: 'JPY',
    });
    const dinar = await create(paymentBody({ amount: 1.234, currency: 'KWD' }));
    expect(dinar.amount).toBe(1.234);
    const stored = await t.app.ctx.db
      .selectFrom('payments')
      .select(['amount'])
      .where('id', '=', dinar.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.amount)).toBe(1234);
  });
});

describe('payments: bad input', () => {
  it.each([
    ['amount of the wrong type', { amount: '10' }, '/body/amount', 'wrong_type'],
    ['zero amount', { amount: 0 }, '/body/amount', undefined],
    ['negative amount', { amount: -5 }, '/body/amount', undefined],
    ['more decimals than EUR has', { amount: 12.345 }, '/body/amount', 'too_many_decimals'],
    ['decimals for JPY', { amount: 10.5, currency: 'JPY' }, '/body/amount', 'too_many_decimals'],
    ['unknown currency', { currency: 'XXX' }, '/body/currency', 'not_in_enum'],
    ['lower-case currency', { currency: 'eur' }, '/body/currency', 'not_in_enum'],
    ['date in another format', { paymentDate: '20.03.2026' }, '/body/paymentDate', undefined],
    ['impossible date', { paymentDate: '2026-02-30' }, '/body/paymentDate', 'invalid_format'],
    ['direction outside the enum', { direction: 'IN' }, '/body/direction', 'not_in_enum'],
    ['status outside the enum', { status: 'PAID' }, '/body/status', 'not_in_enum'],
    ['method outside the enum', { paymentMethod: 'CASH' }, '/body/paymentMethod', 'not_in_enum'],
    ['unknown field', { note: 'x' }, '/body/note', 'unknown_field'],
    ['too long a name', { partnerName: 'x'.repeat(201) }, '/body/partnerName', 'too_long'],
    [
      'empty provider id',
      { providerPaymentIntentId: '' },
      '/body/providerPaymentIntentId',
      undefined,
    ],
    ['missing amount', { amount: undefined }, '/body/amount', 'required'],
    ['missing currency', { currency: undefined }, '/body/currency', 'required'],
    ['missing date', { paymentDate: undefined }, '/body/paymentDate', 'required'],
    ['no partner at all', { partnerName: undefined }, '/body/partnerId', 'required'],
  ])('400 on %s, naming the field, and nothing written', async (_label, change, path, code) => {
    const before = await auditCount(admin.accountId);
    const res = await api.post(admin, paymentBody(change));
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().code).toBe('validation_failed');
    expect(res.json().errors).toContainEqual(
      expect.objectContaining(code ? { path, code } : { path }),
    );
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('422 reference_not_found at the field for unknown or foreign references', async () => {
    const foreign = await newPartner(t, other, 'Fremd GmbH');
    const foreignInvoice = await newInvoice(t, other);
    for (const [field, id] of [
      ['partnerId', foreign.id],
      ['partnerId', 'ptr_01jd8x0000000000000000000'],
      ['documentId', foreignInvoice.id],
      ['contractId', 'ctr_01jd8x0000000000000000000'],
    ] as const) {
      const res = await api.post(admin, paymentBody({ [field]: id }));
      expect(res.statusCode, field).toBe(422);
      expect(res.json()).toMatchObject({ code: 'reference_not_found' });
      expect(res.json().errors).toContainEqual(
        expect.objectContaining({ path: `/body/${field}`, code: 'reference_not_found' }),
      );
    }
  });

  it('422 business_rule_violated when the currency is not the document’s', async () => {
    const invoice = await newInvoice(t, admin, { partnerId: partner.id });
    const res = await api.post(admin, paymentBody({ documentId: invoice.id, currency: 'USD' }));
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'business_rule_violated' });
    expect(res.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/currency', code: 'currency_mismatch' }),
    );
  });

  it('409 duplicate for a provider id that another payment has', async () => {
    const intent = `pi_dup_${Date.now()}`;
    await create(paymentBody({ providerPaymentIntentId: intent }));
    const res = await api.post(admin, paymentBody({ providerPaymentIntentId: intent }));
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'duplicate' });
    expect(res.json().errors[0].path).toBe('/body/providerPaymentIntentId');
  });

  it('400 on a PUT without version', async () => {
    const p = await create(paymentBody());
    const res = await api.put(admin, p.id, { amount: 1 });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/version', code: 'required' }),
    );
  });
});

describe('payments: update and state', () => {
  it('updates partially, null clears optional fields, names follow new links', async () => {
    const p = await create(
      paymentBody({
        partnerId: partner.id,
        contractId: contract.id,
        paymentMethod: 'CREDIT_CARD',
        failureReason: 'declined',
        providerPaymentIntentId: `pi_upd_${Date.now()}`,
      }),
    );
    const res = await api.put(member, p.id, {
      version: 1,
      amount: 120.5,
      paymentDate: '2026-03-21',
      paymentMethod: null,
      failureReason: null,
      providerPaymentIntentId: null,
      contractId: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe('"2"');
    expect(res.json()).toMatchObject({
      version: 2,
      amount: 120.5,
      paymentDate: '2026-03-21',
      paymentMethod: null,
      failureReason: null,
      providerPaymentIntentId: null,
      contractId: null,
      contractName: contract.name, // kept as text, like documents do
      partnerId: partner.id,
      currency: 'EUR',
    });
    const renamed = await newPartner(t, admin, 'Neuer Kunde KG');
    const relinked = await api.put(member, p.id, { version: 2, partnerId: renamed.id });
    expect(relinked.json()).toMatchObject({ partnerId: renamed.id, partnerName: 'Neuer Kunde KG' });
  });

  it('changes the currency keeping the amount, refusing decimals the new one lacks', async () => {
    const p = await create(paymentBody({ amount: 100 }));
    const jpy = await api.put(admin, p.id, { version: 1, currency: 'JPY' });
    expect(jpy.json()).toMatchObject({ amount: 100, currency: 'JPY' });
    const q = await create(paymentBody({ amount: 10.5 }));
    const bad = await api.put(admin, q.id, { version: 1, currency: 'JPY' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toMatchObject({ path: '/body/amount', code: 'too_many_decimals' });
    expect((await api.get(admin, q.id)).json()).toMatchObject({ version: 1, currency: 'EUR' });
  });

  it('refuses a currency change away from the linked document’s', async () => {
    const invoice = await newInvoice(t, admin, { partnerId: partner.id });
    const p = await create(paymentBody({ documentId: invoice.id }));
    const res = await api.put(admin, p.id, { version: 1, currency: 'GBP' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({
      path: '/body/currency',
      code: 'currency_mismatch',
    });
  });

  it('goes PENDING → MARKED → PENDING by the API, with markedAt and audit actions', async () => {
    const p = await create(paymentBody({ status: 'PENDING' }));
    clock.advance(60_000);
    const marked = await api.put(member, p.id, { version: 1, status: 'MARKED' });
    expect(marked.json()).toMatchObject({
      status: 'MARKED',
      markedAt: '2026-03-20T10:01:00.000Z',
      updatedAt: '2026-03-20T10:01:00.000Z',
    });
    clock.advance(60_000);
    // Another write keeps markedAt.
    const edited = await api.put(member, p.id, { version: 2, paymentMethod: 'BANK_TRANSFER' });
    expect(edited.json().markedAt).toBe('2026-03-20T10:01:00.000Z');
    const pending = await api.put(member, p.id, { version: 3, status: 'PENDING' });
    expect(pending.json()).toMatchObject({ status: 'PENDING', markedAt: null, version: 4 });
    const actions = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes', 'actor_id'])
      .where('resource_id', '=', p.id)
      .orderBy('seq')
      .execute();
    expect(actions.map((a) => a.action)).toEqual([
      'payment.created',
      'payment.marked',
      'payment.updated',
      'payment.updated',
    ]);
    expect(JSON.parse(actions[1]!.changes)).toEqual({
      status: { from: 'PENDING', to: 'MARKED' },
      markedAt: { from: null, to: '2026-03-20T10:01:00.000Z' },
    });
    expect(actions[1]!.actor_id).toBe(member.userId);
  });
});

describe('payments: locking, idempotency, audit, tenancy', () => {
  it('409 version_conflict on a stale version and 412 on a failed If-Match, changing nothing', async () => {
    const p = await create(paymentBody());
    expect((await api.put(admin, p.id, { version: 1, amount: 2 })).statusCode).toBe(200);
    const events = await auditCount(admin.accountId, p.id);
    const stale = await api.put(admin, p.id, { version: 1, amount: 3 });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const mismatch = await api.put(admin, p.id, { version: 2, amount: 4 }, { 'if-match': '"1"' });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 2 });
    expect((await api.get(admin, p.id)).json()).toMatchObject({ amount: 2, version: 2 });
    expect(await auditCount(admin.accountId, p.id)).toBe(events);
    expect((await api.del(admin, p.id, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await api.del(admin, p.id, { 'if-match': '"2"' })).statusCode).toBe(204);
    expect((await api.get(admin, p.id)).statusCode).toBe(404);
  });

  it('lets exactly one of two concurrent updates of one version win', async () => {
    const p = await create(paymentBody());
    const results = await Promise.all(
      [5, 6].map((amount) => api.put(admin, p.id, { version: 1, amount })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });

  it('replays the first answer for the same Idempotency-Key and body', async () => {
    const headers = { 'idempotency-key': `pay-${Date.now()}` };
    const body = paymentBody({ partnerName: 'Einmal Zahler' });
    const first = await api.post(admin, body, headers);
    const again = await api.post(admin, body, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    expect((await api.list(admin, 'q=einmal')).data).toHaveLength(1);
    const reused = await api.post(admin, { ...body, amount: 1 }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
  });

  it('writes an audit event per write and rolls the write back when it cannot', async () => {
    const p = await create(paymentBody());
    await api.put(member, p.id, { version: 1, amount: 1.5 });
    expect((await api.del(member, p.id)).statusCode).toBe(204);
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${p.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'payment.deleted',
      'payment.updated',
      'payment.created',
    ]);
    expect(events[1].changes).toEqual({ amount: { from: 119, to: 1.5 } });
    expect(events[2].actor).toMatchObject({ type: 'user', userId: member.userId });

    const spy = vi.spyOn(audit, 'appendAudit').mockRejectedValueOnce(new Error('audit down'));
    const before = await auditCount(admin.accountId);
    const res = await api.post(admin, paymentBody({ partnerName: 'Nie gespeichert' }));
    expect(res.statusCode).toBe(500);
    spy.mockRestore();
    expect((await api.list(admin, 'q=nie%20gespeichert')).data).toHaveLength(0);
    expect(await auditCount(admin.accountId)).toBe(before);
  });
});

describe('payments: references held', () => {
  it('keeps a partner, contract and draft document with payments from deletion (409 in_use)', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner, 'Bleibt GmbH');
    const c = await newContract(t, owner, p.id);
    const invoice = await newInvoice(t, owner, { partnerId: p.id });
    const payment = await create(
      paymentBody({ partnerId: p.id, contractId: c.id, documentId: invoice.id }),
      owner,
    );
    for (const url of [
      `/v1/documents/${invoice.id}`,
      `/v1/contracts/${c.id}`,
      `/v1/partners/${p.id}`,
    ]) {
      const res = await t.request({ method: 'DELETE', url, token: owner.token });
      expect(res.statusCode, url).toBe(409);
      expect(res.json().code).toBe('in_use');
      expect(res.json().detail).toContain('payments');
    }
    expect((await api.del(owner, payment.id)).statusCode).toBe(204);
    const doc = await t.request({
      method: 'DELETE',
      url: `/v1/documents/${invoice.id}`,
      token: owner.token,
    });
    expect(doc.statusCode).toBe(204);
  });
});
