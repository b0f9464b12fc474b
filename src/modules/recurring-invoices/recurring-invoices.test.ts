import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { sql } from 'kysely';
import { ManualClock } from '../../shared/clock.js';
import { call, type Body } from '../documents/documents.test-support.js';

/**
 * Recurring invoices over HTTP (issue 14): a contract's billing plan, the run that bills each
 * due period exactly once (repeated, concurrent), dry runs, FINAL and mailed invoices, the
 * end of a plan, and what a run refuses.
 */

const TODAY = '2026-05-15';
let t: TestApp;
let user: TestUser;
let customer: string;
let bare: string;

const billingAddress = {
  type: 'BILLING',
  street: 'Rathausmarkt 1',
  postalCode: '20095',
  city: 'Hamburg',
  country: 'DE',
  email: 'buchhaltung@kunde.example',
};
const line = { description: 'Wartung', quantity: 1, unitPrice: 100 };

type Billing = Body & { nextInvoiceDate: string; ended: boolean; paused: boolean };
type Contract = Body & {
  id: string;
  version: number;
  billing: Billing | null;
  advanced?: Body | null;
};
type RunInvoice = {
  contractId: string;
  invoiceDate: string;
  servicePeriod: { from: string; to: string };
  status: string;
  documentId: string | null;
  sendQueued: boolean;
};
type Run = { dryRun: boolean; until: string; invoices: RunInvoice[]; problems: Body[] };

async function contract(billing: Body, extra: Body = {}, partnerId = customer): Promise<Contract> {
  return call<Contract>(t, user, 'POST', '/v1/contracts', {
    name: 'Wartungsvertrag',
    partnerId,
    partnerName: 'x',
    startDate: '2026-01-01',
    totalValue: 1200,
    currency: 'EUR',
    status: 'ACTIVE',
    billing: { interval: 'MONTHLY', lineItems: [line], ...billing },
    ...extra,
  });
}

const run = (body: Body, u: TestUser = user) =>
  call<Run>(t, u, 'POST', '/v1/contracts/billing-runs', body, 200);

const invoicesOf = async (id: string) =>
  (
    await call<{ data: (Body & { documentId: string; servicePeriod: Body })[] }>(
      t,
      user,
      'GET',
      `/v1/contracts/${id}/invoices?limit=100`,
    )
  ).data;

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(`${TODAY}T08:00:00Z`)) });
  user = await createUser(t);
  customer = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      type: 'CUSTOMER',
      addresses: [billingAddress],
    })
  ).id;
  bare = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Ohne Adresse',
      type: 'CUSTOMER',
    })
  ).id;
});
afterAll(() => t.close());

describe('a contract’s billing plan', () => {
  it('is answered with its defaults, replaced by PUT and removed by null', async () => {
    const c = await contract({ nextInvoiceDate: '2026-06-01' });
    expect(c.billing).toEqual({
      interval: 'MONTHLY',
      nextInvoiceDate: '2026-06-01',
      endDate: null,
      lineItems: [line],
      period: 'IN_ADVANCE',
      autoFinalize: false,
      autoSend: false,
      paused: false,
      paymentMethod: 'TRANSFER',
      ended: false,
    });
    const put = await call<Contract>(t, user, 'PUT', `/v1/contracts/${c.id}`, {
      version: c.version,
      billing: {
        interval: 'YEARLY',
        nextInvoiceDate: '2027-01-01',
        lineItems: [line],
        paused: true,
      },
    });
    expect(put.billing).toMatchObject({ interval: 'YEARLY', paused: true });
    const cleared = await call<Contract>(t, user, 'PUT', `/v1/contracts/${c.id}`, {
      version: put.version,
      billing: null,
    });
    expect(cleared.billing).toBeNull();
  });

  it('answers a stored plan and terms field by field, whatever else they kept', async () => {
    const c = await contract(
      { nextInvoiceDate: '2026-06-01' },
      { advanced: { autoRenew: true, noticePeriodDays: 30 } },
    );
    const stored = (
      await sql<{ billing: string; advanced: string }>`
        select billing, advanced from contracts where id = ${c.id}`.execute(t.app.ctx.db)
    ).rows[0]!;
    const billing = JSON.parse(stored.billing) as Body & { lineItems: Body[] };
    // What an older or a future version might have kept beside the answer's fields.
    const kept = {
      billing: JSON.stringify({
        ...billing,
        legacyField: 1,
        lineItems: billing.lineItems.map((l) => ({ ...l, priceSource: 'product' })),
      }),
      advanced: JSON.stringify({ ...JSON.parse(stored.advanced), legacyTerm: 'x' }),
    };
    await sql`update contracts set billing = ${kept.billing}, advanced = ${kept.advanced}
      where id = ${c.id}`.execute(t.app.ctx.db);
    const read = await call<Contract>(t, user, 'GET', `/v1/contracts/${c.id}`);
    expect(read.billing).toEqual(c.billing);
    expect(read.advanced).toEqual(c.advanced);
    expect(read.advanced).toMatchObject({ autoRenew: true, noticePeriodDays: 30 });
    const page = await call<{ data: Contract[] }>(t, user, 'GET', '/v1/contracts?limit=100');
    expect(page.data.find((x) => x.id === c.id)?.billing).toEqual(c.billing);
  });

  it('refuses a plan it could not run, naming the field', async () => {
    const cases: [Body, number, string][] = [
      [{ nextInvoiceDate: '2026-02-30' }, 400, '/body/billing/nextInvoiceDate'],
      [{ nextInvoiceDate: '2026-06-01', autoSend: true }, 422, '/body/billing/autoSend'],
      [{ nextInvoiceDate: '2026-06-01', endDate: '2026-05-01' }, 422, '/body/billing/endDate'],
      [{ nextInvoiceDate: '2026-06-01', lineItems: [] }, 400, '/body/billing/lineItems'],
      [{ nextInvoiceDate: '2026-06-01', interval: 'WEEKLY' }, 400, '/body/billing/interval'],
      [{ nextInvoiceDate: '2026-06-01', surprise: 1 }, 400, '/body/billing/surprise'],
    ];
    for (const [billing, status, path] of cases) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/contracts',
        token: user.token,
        payload: {
          name: 'X',
          partnerId: customer,
          partnerName: 'x',
          startDate: '2026-01-01',
          totalValue: 1,
          currency: 'EUR',
          billing: { interval: 'MONTHLY', lineItems: [line], ...billing },
        },
      });
      expect(res.statusCode, `${JSON.stringify(billing)}: ${res.body}`).toBe(status);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(path);
    }
  });
});

describe('a billing run', () => {
  it('dry run: proposes each due period on the anchor day, and writes nothing', async () => {
    const c = await contract({ nextInvoiceDate: '2026-01-31' });
    const before = await auditCount(t, user.accountId);
    const res = await run({ dryRun: true, until: '2026-04-30', contractId: c.id });
    expect(res.dryRun).toBe(true);
    expect(
      res.invoices.map((i) => [i.invoiceDate, i.servicePeriod.from, i.servicePeriod.to, i.status]),
    ).toEqual([
      ['2026-01-31', '2026-01-31', '2026-02-27', 'PROPOSED'],
      ['2026-02-28', '2026-02-28', '2026-03-30', 'PROPOSED'],
      ['2026-03-31', '2026-03-31', '2026-04-29', 'PROPOSED'],
      ['2026-04-30', '2026-04-30', '2026-05-30', 'PROPOSED'],
    ]);
    expect(res.invoices.every((i) => i.documentId === null)).toBe(true);
    expect(await auditCount(t, user.accountId)).toBe(before);
    expect(await invoicesOf(c.id)).toEqual([]);
    const after = await call<Contract>(t, user, 'GET', `/v1/contracts/${c.id}`);
    expect(after.billing!.nextInvoiceDate).toBe('2026-01-31');
    // A dry run may look past today; a real one may not date an invoice in the future.
    const future = await t.request({
      method: 'POST',
      url: '/v1/contracts/billing-runs',
      token: user.token,
      payload: { until: '2026-12-31' },
    });
    expect(future.statusCode, future.body).toBe(422);
    expect(future.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe('/body/until');
  });

  it('bills every due period once, however often and however concurrently it runs', async () => {
    const c = await contract({
      nextInvoiceDate: '2026-02-01',
      interval: 'QUARTERLY',
      period: 'IN_ARREARS',
    });
    const runs = await Promise.all([
      run({ contractId: c.id }),
      run({ contractId: c.id }),
      run({ contractId: c.id }),
    ]);
    const made = runs.flatMap((r) => r.invoices);
    expect(made.map((i) => i.invoiceDate).sort()).toEqual(['2026-02-01', '2026-05-01']);
    expect(made.map((i) => i.servicePeriod)).toEqual(
      expect.arrayContaining([
        // The contract starts on 2026-01-01: the first quarter billed starts with it.
        { from: '2026-01-01', to: '2026-01-31' },
        { from: '2026-02-01', to: '2026-04-30' },
      ]),
    );
    expect((await run({ contractId: c.id })).invoices).toEqual([]);
    const listed = await invoicesOf(c.id);
    expect(listed).toHaveLength(2);
    for (const inv of listed) {
      const doc = await call<Body>(t, user, 'GET', `/v1/documents/${inv.documentId}`);
      expect(doc).toMatchObject({
        documentType: 'INVOICE',
        status: 'DRAFT',
        contractId: c.id,
        partnerId: customer,
        servicePeriod: inv.servicePeriod,
        grossTotal: 119,
      });
    }
    const after = await call<Contract>(t, user, 'GET', `/v1/contracts/${c.id}`);
    expect(after.billing!.nextInvoiceDate).toBe('2026-08-01');
    expect(after.version).toBe(c.version + 2);
  });

  it('makes FINAL invoices with numbers and mails them to the BILLING address once', async () => {
    const c = await contract({ nextInvoiceDate: '2026-04-01', autoFinalize: true, autoSend: true });
    const res = await run({ contractId: c.id });
    expect(res.invoices.map((i) => [i.invoiceDate, i.status, i.sendQueued])).toEqual([
      ['2026-04-01', 'FINAL', true],
      ['2026-05-01', 'FINAL', true],
    ]);
    await t.app.ctx.jobs.drain();
    const mails = await mailsTo(t, billingAddress.email, 2);
    expect(mails).toHaveLength(2);
    for (const inv of res.invoices) {
      const doc = await call<Body & { documentNumber: string; sentAt: string | null }>(
        t,
        user,
        'GET',
        `/v1/documents/${inv.documentId}`,
      );
      expect(doc.documentNumber).toMatch(/\d/);
      expect(doc.sentAt).not.toBeNull();
    }
    await run({ contractId: c.id });
    await t.app.ctx.jobs.drain();
    expect(await mailsTo(t, billingAddress.email, 3, 300)).toHaveLength(2);
  });

  it('makes a DRAFT and says why when an invoice cannot be FINAL', async () => {
    const c = await contract({ nextInvoiceDate: '2026-05-01', autoFinalize: true }, {}, bare);
    const res = await run({ contractId: c.id });
    expect(res.invoices.map((i) => i.status)).toEqual(['DRAFT']);
    expect(res.problems).toHaveLength(1);
    expect(res.problems[0]).toMatchObject({
      contractId: c.id,
      invoiceDate: '2026-05-01',
      outcome: 'DRAFT_MADE',
    });
    expect(await invoicesOf(c.id)).toHaveLength(1);
  });

  it('skips paused plans and DRAFT contracts, and ends a plan at its end date', async () => {
    const paused = await contract({ nextInvoiceDate: '2026-03-01', paused: true });
    const draft = await contract({ nextInvoiceDate: '2026-03-01' }, { status: 'DRAFT' });
    const ending = await contract({ nextInvoiceDate: '2026-03-01', endDate: '2026-04-15' });
    const noRenewal = await contract(
      { nextInvoiceDate: '2026-03-10', interval: 'MONTHLY' },
      { endDate: '2026-03-31' },
    );
    await run({});
    expect(await invoicesOf(paused.id)).toEqual([]);
    expect(await invoicesOf(draft.id)).toEqual([]);
    expect((await invoicesOf(ending.id)).map((i) => i.servicePeriod)).toEqual([
      { from: '2026-04-01', to: '2026-04-30' },
      { from: '2026-03-01', to: '2026-03-31' },
    ]);
    const ended = await call<Contract>(t, user, 'GET', `/v1/contracts/${ending.id}`);
    expect(ended.billing).toMatchObject({ ended: true, nextInvoiceDate: '2026-05-01' });
    expect(await invoicesOf(noRenewal.id)).toHaveLength(1);
    // Resumed: the periods due meanwhile are billed on the next run.
    const p = await call<Contract>(t, user, 'GET', `/v1/contracts/${paused.id}`);
    await call(t, user, 'PUT', `/v1/contracts/${paused.id}`, {
      version: p.version,
      billing: { ...p.billing, ended: undefined, paused: false },
    });
    expect((await run({ contractId: paused.id })).invoices).toHaveLength(3);
  });

  it('keeps to the caller’s account: another account’s or an unknown contract is 404', async () => {
    const other = await createUser(t);
    const c = await contract({ nextInvoiceDate: '2026-05-01' });
    for (const [contractId, dryRun] of [
      [c.id, false],
      [c.id, true],
      ['con_unknown', false],
    ] as const) {
      const ran = await t.request({
        method: 'POST',
        url: '/v1/contracts/billing-runs',
        token: other.token,
        payload: { contractId, dryRun },
      });
      expect(ran.statusCode, ran.body).toBe(404);
      expect(ran.json<{ code: string }>().code).toBe('not_found');
    }
    expect(await invoicesOf(c.id)).toEqual([]);
    const res = await t.request({
      method: 'GET',
      url: `/v1/contracts/${c.id}/invoices`,
      token: other.token,
    });
    expect(res.statusCode).toBe(404);
  });
});

describe('a plan and its contract’s start', () => {
  const periods = async (billing: Body, startDate: string, until: string) => {
    const c = await contract(billing, { startDate });
    const res = await run({ dryRun: true, until, contractId: c.id });
    return res.invoices.map((i) => [i.invoiceDate, i.servicePeriod.from, i.servicePeriod.to]);
  };

  it('bills no service period before the contract starts, whatever the interval', async () => {
    const arrears = { period: 'IN_ARREARS', nextInvoiceDate: '2024-01-01' };
    expect(await periods(arrears, '2024-01-01', '2024-03-01')).toEqual([
      ['2024-02-01', '2024-01-01', '2024-01-31'],
      ['2024-03-01', '2024-02-01', '2024-02-29'],
    ]);
    expect(
      await periods({ ...arrears, interval: 'QUARTERLY' }, '2024-01-01', '2024-07-01'),
    ).toEqual([
      ['2024-04-01', '2024-01-01', '2024-03-31'],
      ['2024-07-01', '2024-04-01', '2024-06-30'],
    ]);
    expect(await periods({ ...arrears, interval: 'YEARLY' }, '2024-01-01', '2025-01-01')).toEqual([
      ['2025-01-01', '2024-01-01', '2024-12-31'],
    ]);
    // A start on the 31st: the plan keeps its anchor day, the first period starts on the start.
    const on31st = { period: 'IN_ARREARS', nextInvoiceDate: '2024-01-31' };
    expect(await periods(on31st, '2024-01-31', '2024-03-31')).toEqual([
      ['2024-02-29', '2024-01-31', '2024-02-28'],
      ['2024-03-31', '2024-02-29', '2024-03-30'],
    ]);
    // A period that straddles the start bills from the start, in arrears and in advance.
    expect(await periods(on31st, '2024-01-01', '2024-01-31')).toEqual([
      ['2024-01-31', '2024-01-01', '2024-01-30'],
    ]);
    expect(await periods({ nextInvoiceDate: '2023-12-15' }, '2024-01-01', '2024-01-15')).toEqual([
      ['2023-12-15', '2024-01-01', '2024-01-14'],
      ['2024-01-15', '2024-01-15', '2024-02-14'],
    ]);
  });

  it('makes the first IN_ARREARS invoice for the first interval of the contract', async () => {
    const c = await contract(
      { period: 'IN_ARREARS', nextInvoiceDate: '2024-01-01' },
      { startDate: '2024-01-01' },
    );
    expect((await run({ until: '2024-01-31', contractId: c.id })).invoices).toEqual([]);
    const res = await run({ until: '2024-02-01', contractId: c.id });
    expect(res.invoices.map((i) => [i.invoiceDate, i.servicePeriod])).toEqual([
      ['2024-02-01', { from: '2024-01-01', to: '2024-01-31' }],
    ]);
    expect((await invoicesOf(c.id)).map((i) => i.servicePeriod)).toEqual([
      { from: '2024-01-01', to: '2024-01-31' },
    ]);
    const after = await call<Contract>(t, user, 'GET', `/v1/contracts/${c.id}`);
    expect(after.billing!.nextInvoiceDate).toBe('2024-03-01');
  });
});
