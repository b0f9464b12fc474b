import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import * as audit from '../../shared/audit.js';
import { DAY, ManualClock } from '../../shared/clock.js';
import * as repo from './contracts.repository.js';
import {
  START,
  contractBody,
  deleteContract,
  getContract,
  listNames,
  newContract,
  newPartner,
  postContract,
  putContract,
} from './contracts.test-support.js';

/** States (decisions §7), references, the reminder override, derived dates over time, audit. */

let t: TestApp;
let clock: ManualClock;
let admin: TestUser;
let member: TestUser;
let partnerId: string;

beforeAll(async () => {
  clock = new ManualClock(START);
  t = await buildTestApp({ clock });
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  partnerId = (await newPartner(t, admin)).id;
});
afterAll(() => t.close());

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

const auditActions = async (resourceId: string) =>
  (
    await t.request({
      method: 'GET',
      url: `/v1/audit-events?resourceId=${resourceId}`,
      token: admin.token,
    })
  ).json().data as { action: string; changes: Record<string, unknown>; actor: unknown }[];

describe('contracts: states', () => {
  it('activates a DRAFT, keeps an ACTIVE one editable, and never goes back to DRAFT', async () => {
    const c = await newContract(t, member, partnerId);
    expect(c.status).toBe('DRAFT');
    const active = await putContract(t, member, c.id, { version: 1, status: 'ACTIVE' });
    expect(active.statusCode).toBe(200);
    expect(active.json()).toMatchObject({ status: 'ACTIVE', version: 2 });

    const edited = await putContract(t, member, c.id, {
      version: 2,
      name: 'Renamed',
      status: 'ACTIVE',
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ status: 'ACTIVE', name: 'Renamed', version: 3 });

    const events = await auditCount(admin.accountId, c.id);
    const back = await putContract(t, member, c.id, { version: 3, status: 'DRAFT', name: 'X' });
    expect(back.statusCode).toBe(409);
    expect(back.json()).toMatchObject({ code: 'state_conflict' });
    expect((await getContract(t, member, c.id)).json()).toMatchObject({
      status: 'ACTIVE',
      name: 'Renamed',
      version: 3,
    });
    expect(await auditCount(admin.accountId, c.id)).toBe(events);
  });

  it('creates a contract directly as ACTIVE', async () => {
    const c = await newContract(t, member, partnerId, { status: 'ACTIVE' });
    expect(c).toMatchObject({ status: 'ACTIVE', version: 1 });
  });

  it('deletes only DRAFT contracts: ACTIVE answers 409 state_conflict and stays', async () => {
    const c = await newContract(t, member, partnerId, { status: 'ACTIVE' });
    const events = await auditCount(admin.accountId, c.id);
    for (const headers of [{}, { 'if-match': '"1"' }] as Record<string, string>[]) {
      const del = await deleteContract(t, member, c.id, headers);
      expect(del.statusCode).toBe(409);
      expect(del.json()).toMatchObject({ code: 'state_conflict' });
    }
    expect((await getContract(t, member, c.id)).statusCode).toBe(200);
    expect(await auditCount(admin.accountId, c.id)).toBe(events);
  });

  it('lets exactly one of two concurrent activations of the same DRAFT win', async () => {
    for (let round = 0; round < 5; round++) {
      const c = await newContract(t, member, partnerId);
      const results = await Promise.all(
        [0, 1].map(() => putContract(t, member, c.id, { version: 1, status: 'ACTIVE' })),
      );
      expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
      const actions = (await auditActions(c.id)).map((e) => e.action);
      expect(actions).toEqual(['contract.activated', 'contract.created']);
      expect((await getContract(t, member, c.id)).json()).toMatchObject({
        status: 'ACTIVE',
        version: 2,
      });
    }
  });

  it('makes the activation a compare-and-set on the status, not only on the version', async () => {
    const c = await newContract(t, member, partnerId);
    // Another writer activated it without the version moving (the race the guard is for).
    await t.app.ctx.db
      .updateTable('contracts')
      .set({ status: 'ACTIVE' })
      .where('id', '=', c.id)
      .execute();
    const lost = await t.app.ctx.db
      .transaction()
      .execute((trx) =>
        repo.updateContract(trx, admin.accountId, c.id, 1, { status: 'ACTIVE' }, 'DRAFT'),
      );
    expect(lost).toBeUndefined();
    expect(await repo.deleteContract(t.app.ctx.db, admin.accountId, c.id, 1, 'DRAFT')).toBe(
      undefined,
    );
    expect((await getContract(t, member, c.id)).json()).toMatchObject({ version: 1 });
  });
});

describe('contracts: references', () => {
  it('refuses to delete a partner with contracts (409 in_use) until they are gone', async () => {
    const p = await newPartner(t, admin, { name: 'Referenced' });
    const c = await newContract(t, admin, p.id);
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'in_use' });
    expect(res.json().detail).toContain('1 contracts');
    expect((await getContract(t, admin, c.id)).statusCode).toBe(200);
    expect((await deleteContract(t, admin, c.id)).statusCode).toBe(204);
    const again = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
    });
    expect(again.statusCode).toBe(204);
  });
});

describe('contracts: reminder address override', () => {
  it('refuses advanced.reminderEmail unless the account allows the override', async () => {
    const owner = await createUser(t);
    const user = await createUser(t, { role: 'user', accountId: owner.accountId });
    const p = await newPartner(t, owner);
    const withEmail = contractBody(p.id, { advanced: { reminderEmail: 'ops@example.com' } });

    const before = await auditCount(owner.accountId);
    const refused = await postContract(t, user, withEmail);
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'business_rule_violated' });
    expect(refused.json().detail).toContain('allowContractReminderOverride');
    expect(refused.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/advanced/reminderEmail' }),
    );
    expect(await auditCount(owner.accountId)).toBe(before);

    // null means "no override" and is always accepted.
    const c = await newContract(t, user, p.id, { advanced: { reminderEmail: null } });
    const put = await putContract(t, user, c.id, {
      version: 1,
      advanced: { reminderEmail: 'ops@example.com' },
    });
    expect(put.statusCode).toBe(422);

    const settings = (
      await t.request({ method: 'GET', url: '/v1/account/addresses', token: owner.token })
    ).json();
    const patch = await t.request({
      method: 'PATCH',
      url: '/v1/account/addresses',
      token: owner.token,
      payload: { version: settings.version, allowContractReminderOverride: true },
    });
    expect(patch.statusCode).toBe(200);

    const accepted = await postContract(t, user, withEmail);
    expect(accepted.statusCode).toBe(201);
    expect(accepted.json().advanced).toEqual({ reminderEmail: 'ops@example.com' });
    const put2 = await putContract(t, user, c.id, {
      version: 1,
      advanced: { reminderEmail: 'ops@example.com' },
    });
    expect(put2.statusCode).toBe(200);
  });
});

describe('contracts: derived dates over time', () => {
  it('recomputes deadlines against today; the list filter uses the value of the last write', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    // Today is 2026-03-10: the 2025-12-31 term has rolled to 2026-12-31.
    const c = await newContract(t, owner, p.id, {
      name: 'Rolling',
      startDate: '2024-01-01',
      endDate: '2025-12-31',
      advanced: { autoRenew: true, noticePeriodDays: 30 },
    });
    expect(c).toMatchObject({
      endDate: '2025-12-31',
      nextRenewalDate: '2026-12-31',
      cancellationDeadline: '2026-12-01',
    });
    expect(await listNames(t, owner, 'deadlineBefore=2026-12-02')).toEqual(['Rolling']);

    const elapsed = 300 * DAY; // → 2027-01-04
    clock.advance(elapsed);
    try {
      expect((await getContract(t, owner, c.id)).json()).toMatchObject({
        nextRenewalDate: '2027-12-31',
        cancellationDeadline: '2027-12-01',
      });
      // The stored deadline is still the one computed at the write…
      expect(await listNames(t, owner, 'deadlineBefore=2027-01-01')).toEqual(['Rolling']);
      // …until the next write stores today's value.
      expect((await putContract(t, owner, c.id, { version: 1 })).statusCode).toBe(200);
      expect(await listNames(t, owner, 'deadlineBefore=2027-01-01')).toEqual([]);
      expect(await listNames(t, owner, 'deadlineBefore=2027-12-02')).toEqual(['Rolling']);
    } finally {
      clock.advance(-elapsed);
    }
  });

  it('changes the derived dates with the terms of a PUT', async () => {
    const c = await newContract(t, admin, partnerId, {
      endDate: '2026-06-30',
      advanced: { autoRenew: true, renewalMonths: 6, noticePeriodDays: 0 },
    });
    expect(c).toMatchObject({ cancellationDeadline: '2026-06-30', nextRenewalDate: '2026-06-30' });
    const put = await putContract(t, admin, c.id, {
      version: 1,
      endDate: '2026-01-31',
      advanced: { autoRenew: true, renewalMonths: 1, noticePeriodDays: 10 },
    });
    expect(put.json()).toMatchObject({
      cancellationDeadline: '2026-03-21',
      nextRenewalDate: '2026-03-31',
    });
    const off = await putContract(t, admin, c.id, {
      version: 2,
      advanced: { noticePeriodDays: 10 },
    });
    expect(off.json()).toMatchObject({ cancellationDeadline: '2026-01-21', nextRenewalDate: null });
  });
});

describe('contracts: audit', () => {
  it('writes one event per write: created, updated (diff), activated, deleted', async () => {
    const c = await newContract(t, member, partnerId, { name: 'Audited' });
    await putContract(t, member, c.id, { version: 1, description: 'Neu' });
    await putContract(t, member, c.id, { version: 2, status: 'ACTIVE' });
    const draft = await newContract(t, member, partnerId, { name: 'Gone' });
    expect((await deleteContract(t, member, draft.id)).statusCode).toBe(204);

    const events = await auditActions(c.id);
    expect(events.map((e) => e.action)).toEqual([
      'contract.activated',
      'contract.updated',
      'contract.created',
    ]);
    expect(events[0]!.changes).toEqual({ status: { from: 'DRAFT', to: 'ACTIVE' } });
    expect(events[1]!.changes).toEqual({ description: { from: null, to: 'Neu' } });
    expect(events[2]!.changes).toMatchObject({ name: 'Audited', totalValue: 1200.5 });
    expect(events[2]!.actor).toMatchObject({ type: 'user', userId: member.userId });
    const deleted = await auditActions(draft.id);
    expect(deleted.map((e) => e.action)).toEqual(['contract.deleted', 'contract.created']);
    expect(deleted[0]!.changes).toMatchObject({ id: draft.id, name: 'Gone' });
  });

  it('rolls the write back when its audit event cannot be written (same transaction)', async () => {
    const c = await newContract(t, admin, partnerId, { name: 'Rollback' });
    const spy = vi.spyOn(audit, 'appendAudit').mockRejectedValueOnce(new Error('audit down'));
    const res = await putContract(t, admin, c.id, { version: 1, status: 'ACTIVE' });
    spy.mockRestore();
    expect(res.statusCode).toBe(500);
    expect((await getContract(t, admin, c.id)).json()).toMatchObject({
      status: 'DRAFT',
      version: 1,
    });
  });
});
