import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../test/helpers.js';
import { redact, verifyAuditChain } from './audit.js';

let t: TestApp;
let admin: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
});
afterAll(() => t.close());

async function writeSome(user: TestUser, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: `Chain ${i}` },
    });
    ids.push(res.json<{ id: string }>().id);
  }
  return ids;
}

async function brokenFor(accountId: string) {
  return (await verifyAuditChain(t.app.ctx.db)).broken.filter((b) => b.accountId === accountId);
}

describe('audit chain', () => {
  it('chains events per account with gapless sequence numbers, even under concurrent writes', async () => {
    const user = await createUser(t);
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        t.request({
          method: 'POST',
          url: '/v1/partners',
          token: user.token,
          payload: { name: `Concurrent ${i}` },
        }),
      ),
    );
    const rows = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .orderBy('seq')
      .execute();
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.prev_hash).toBe(rows[i - 1]!.hash);
    expect(await brokenFor(user.accountId)).toEqual([]);
  });

  it('detects an edited, a deleted and a re-hashed event', async () => {
    const user = await createUser(t);
    await writeSome(user, 4);
    const db = t.app.ctx.db;
    const events = await db
      .selectFrom('audit_events')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .orderBy('seq')
      .execute();

    await db
      .updateTable('audit_events')
      .set({ changes: '{"name":"forged"}' })
      .where('id', '=', events[1]!.id)
      .execute();
    expect((await brokenFor(user.accountId)).map((b) => b.reason)).toContain(
      'content does not match its hash',
    );
    await db
      .updateTable('audit_events')
      .set({ changes: events[1]!.changes })
      .where('id', '=', events[1]!.id)
      .execute();
    expect(await brokenFor(user.accountId)).toEqual([]);

    await db.deleteFrom('audit_events').where('id', '=', events[2]!.id).execute();
    const reasons = (await brokenFor(user.accountId)).map((b) => b.reason);
    expect(reasons.join(' ')).toMatch(/sequence gap/);
    expect(reasons.join(' ')).toMatch(/link to the previous event/);
  });

  it('lists events for admins with filters and pages, and refuses users', async () => {
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    const ids = await writeSome(member, 3);
    const all = await t.request({
      method: 'GET',
      url: '/v1/audit-events?limit=2',
      token: admin.token,
    });
    expect(all.statusCode).toBe(200);
    expect(all.json().data).toHaveLength(2);
    expect(all.json().nextCursor).toEqual(expect.any(String));
    const byResource = await t.request({
      method: 'GET',
      url: `/v1/audit-events?resourceId=${ids[0]}`,
      token: admin.token,
    });
    expect(byResource.json().data).toHaveLength(1);
    expect(byResource.json().data[0]).toMatchObject({
      action: 'partner.created',
      resourceType: 'partner',
      actor: { userId: member.userId },
    });
    const byActor = await t.request({
      method: 'GET',
      url: `/v1/audit-events?actorId=${member.userId}&action=partner.created`,
      token: admin.token,
    });
    expect(byActor.json().data).toHaveLength(3);
    const future = await t.request({
      method: 'GET',
      url: `/v1/audit-events?from=2999-01-01T00:00:00Z`,
      token: admin.token,
    });
    expect(future.json().data).toHaveLength(0);
    const badTime = await t.request({
      method: 'GET',
      url: '/v1/audit-events?from=yesterday',
      token: admin.token,
    });
    expect(badTime.statusCode).toBe(400);
    const forbidden = await t.request({
      method: 'GET',
      url: '/v1/audit-events',
      token: member.token,
    });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('forbidden');
  });
});

describe('audit: redaction', () => {
  it('drops secrets but keeps business codes such as postalCode, unitCode and exemptionCode', () => {
    expect(
      Object.keys(
        redact({
          password: 'x',
          code: '123456',
          tokenId: 't',
          iban: 'DE02…',
          postalCode: '10115',
          unitCode: 'HUR',
          exemptionCode: 'VATEX-EU-AE',
        }),
      ),
    ).toEqual(['postalCode', 'unitCode', 'exemptionCode']);
  });
});
