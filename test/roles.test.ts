import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/shared/clock.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../src/modules/documents/documents.test-support.js';
import { newContract } from '../src/modules/contracts/contracts.test-support.js';
import { expectProblem } from './contract.js';
import { auditCount, buildTestApp, createUser, type TestApp, type TestUser } from './helpers.js';

/**
 * Who may do what (docs/auth.md, "Roles"): a plain user keeps the books day to day, and runs
 * billing and dunning only as dry runs; real runs (documents made and mailed to customers) and
 * corrections of FINAL invoices (Storno, credit notes) need an admin. A refused request writes
 * nothing.
 */

const TODAY = '2026-06-30';
let t: TestApp;
let admin: TestUser;
let member: TestUser;
let partnerId: string;

const post = (u: TestUser, url: string, payload?: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url, token: u.token, headers, ...(payload ? { payload } : {}) });

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date(`${TODAY}T08:00:00Z`)) });
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  partnerId = (
    await call<{ id: string }>(t, member, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('buchhaltung@kunde.example')],
    })
  ).id;
  await newContract(t, member, partnerId, {
    status: 'ACTIVE',
    billing: {
      interval: 'MONTHLY',
      nextInvoiceDate: '2026-06-01',
      lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 100 }],
    },
  });
});
afterAll(async () => {
  await t.app.ctx.jobs.drain();
  await t.close();
});

describe('runs', () => {
  for (const [name, url, made] of [
    ['billing', '/v1/contracts/billing-runs', 'invoices'],
    ['dunning', '/v1/dunning/runs', 'letters'],
  ] as const) {
    it(`a ${name} run: a user may only dry-run it, an admin runs it`, async () => {
      const before = await auditCount(t, admin.accountId);
      // Without a body, with an empty one, and with dryRun false: a real run.
      for (const body of [undefined, {}, { dryRun: false }]) {
        const key = `${name}-${String(body?.dryRun)}`;
        const res = await post(member, url, body, { 'idempotency-key': key });
        expect(res.statusCode, `${JSON.stringify(body)}: ${res.body}`).toBe(403);
        expect(expectProblem(res, 'forbidden').detail).toContain('admin role');
      }
      expect(await auditCount(t, admin.accountId)).toBe(before);
      // The refusal claimed no idempotency key: the key is free for the dry run.
      const dry = await post(member, url, { dryRun: true }, { 'idempotency-key': `${name}-false` });
      expect(dry.statusCode, dry.body).toBe(200);
      expect(dry.json<{ dryRun: boolean }>().dryRun).toBe(true);
      const real = await post(admin, url, {});
      expect(real.statusCode, real.body).toBe(200);
      expect(real.json<Record<string, unknown[]>>()[made]).toEqual(
        name === 'billing' ? [expect.objectContaining({ status: 'DRAFT' })] : [],
      );
    });
  }
});

describe('corrections of a FINAL invoice', () => {
  it('cancelling (Storno) and crediting need an admin; a user’s attempt changes nothing', async () => {
    // Drafting and finalizing stay with every user.
    const invoice = await finalInvoice<{ id: string }>(t, member, partnerId, '2026-07-15');
    const credit = { lineItems: [{ description: 'Korrektur', quantity: 1, unitPrice: 10 }] };
    for (const [path, body] of [
      ['credit-notes', credit],
      ['cancel', {}],
    ] as const) {
      const res = await post(member, `/v1/documents/${invoice.id}/${path}`, body);
      expect(res.statusCode, `${path}: ${res.body}`).toBe(403);
      expectProblem(res, 'forbidden');
    }
    const untouched = await call<Body>(t, member, 'GET', `/v1/documents/${invoice.id}`);
    expect(untouched.cancelledByDocumentId ?? null).toBeNull();
    const other = await finalInvoice<{ id: string }>(t, member, partnerId, '2026-07-15');
    expect((await post(admin, `/v1/documents/${other.id}/credit-notes`, credit)).statusCode).toBe(
      201,
    );
    expect((await post(admin, `/v1/documents/${invoice.id}/cancel`, {})).statusCode).toBe(201);
  });
});
