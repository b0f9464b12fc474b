import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../test/helpers.js';
import { newId } from './ids.js';
import { CompiledQuery } from 'kysely';
import { auditEventsPage, redact, sealAllAudit, sealAudit, verifyAuditChain } from './audit.js';

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

/** `n` partner creates of `user` sent at once: their events commit in no set order. */
async function writeAtOnce(user: TestUser, n: number): Promise<void> {
  await Promise.all(
    Array.from({ length: n }, (_, i) =>
      t.request({
        method: 'POST',
        url: '/v1/partners',
        token: user.token,
        payload: { name: `Zugleich ${i}` },
      }),
    ),
  );
}

/** An event as a PostgreSQL writer commits it, before any seal chains it. */
async function insertPending(accountId: string): Promise<string> {
  const id = newId('auditEvent');
  await t.app.ctx.db
    .insertInto('audit_pending')
    .values({
      id,
      account_id: accountId,
      occurred_at: new Date().toISOString(),
      actor_type: 'system',
      actor_id: null,
      token_id: null,
      action: 'partner.updated',
      resource_type: 'partner',
      resource_id: 'ptr_x',
      changes: '{}',
      request_id: null,
      ip: null,
    })
    .execute();
  return id;
}

/**
 * `promise`, or a failure when it is still pending after 10 s of real time; for tests whose
 * timers are fake (setImmediate still runs), where a wait for a timer would never end.
 */
function settlesSoon<T>(promise: Promise<T>): Promise<T> {
  const deadline = performance.now() + 10_000;
  let settled = false;
  return new Promise<T>((resolve, reject) => {
    promise.then(
      (value) => ((settled = true), resolve(value)),
      (error: unknown) => ((settled = true), reject(error as Error)),
    );
    const poll = () => {
      if (settled) return;
      if (performance.now() > deadline) reject(new Error('still pending after 10 s'));
      else setImmediate(poll);
    };
    setImmediate(poll);
  });
}

async function brokenFor(accountId: string) {
  return (await verifyAuditChain(t.app.ctx.db)).broken.filter((b) => b.accountId === accountId);
}

describe('audit chain', () => {
  it('chains events per account with gapless sequence numbers, even under concurrent writes', async () => {
    const user = await createUser(t);
    await writeAtOnce(user, 12);
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
    // Put it back: on PostgreSQL the suite shares one database, and `kontor audit verify`
    // (cli.test.ts) checks every account's chain.
    await db.insertInto('audit_events').values(events[2]!).execute();
    expect(await brokenFor(user.accountId)).toEqual([]);
  });

  it('keeps one gapless chain when two processes write for one account at once', async () => {
    // A second app on the same database: a second replica (PostgreSQL) or the CLI (SQLite).
    const other = await buildTestApp({
      env: {
        DATABASE_URL:
          dbKind === 'postgres'
            ? process.env.DATABASE_URL!
            : `sqlite:${t.app.ctx.config.database.kind === 'sqlite' ? t.app.ctx.config.database.file : ''}`,
      },
    });
    try {
      const user = await createUser(t);
      const write = (app: TestApp, i: number) =>
        app.request({
          method: 'POST',
          url: '/v1/partners',
          token: user.token,
          payload: { name: `Replica ${i}`, tags: ['a', `t${i % 3}`] },
        });
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) => write(i % 2 === 0 ? t : other, i)),
      );
      expect(answers.map((r) => r.statusCode)).toEqual(Array(40).fill(201));
      const seqs = await t.app.ctx.db
        .selectFrom('audit_events')
        .select('seq')
        .where('account_id', '=', user.accountId)
        .orderBy('seq')
        .execute();
      // Every write had its event chained by the time it answered.
      expect(seqs.map((r) => r.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      expect(await brokenFor(user.accountId)).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('chains what a writer committed but did not live to chain, and what it chained stays verifiable', async () => {
    const user = await createUser(t);
    await writeSome(user, 2);
    const db = t.app.ctx.db;
    const pendingOf = async () =>
      (
        await db
          .selectFrom('audit_pending')
          .select('id')
          .where('account_id', '=', user.accountId)
          .execute()
      ).length;
    expect(await pendingOf()).toBe(0);
    // A PostgreSQL writer that committed its event and died before chaining it.
    const orphan = await insertPending(user.accountId);
    const listed = await t.request({
      method: 'GET',
      url: '/v1/audit-events?limit=1',
      token: user.token,
    });
    if (dbKind === 'postgres') {
      // Reading the trail chains it first; the orphan is the newest event.
      expect(listed.json().data[0]).toMatchObject({ id: orphan, seq: 3 });
      expect(await pendingOf()).toBe(0);
    } else {
      // SQLite chains inline: nothing is ever pending, so nothing is swept (a stray row stays).
      expect(await sealAllAudit(db)).toBe(0);
      await db.deleteFrom('audit_pending').where('id', '=', orphan).execute();
    }
    expect(await brokenFor(user.accountId)).toEqual([]);
  });

  it.runIf(dbKind === 'postgres')(
    "starts a seal someone waits for at once, taking a writer's queued seal with it",
    async () => {
      const user = await createUser(t);
      const db = t.app.ctx.db;
      const pending = await insertPending(user.accountId);
      // Timers stand still: a seal that waited for its gather timer would never end.
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      try {
        const writers = sealAudit(db, user.accountId); // gathers the burst first
        await settlesSoon(sealAudit(db, user.accountId, { now: true })); // hurries that seal
        await writers;
        const next = await insertPending(user.accountId);
        // Queued while nothing runs and hurried before its gather began.
        await settlesSoon(sealAudit(db, user.accountId, { now: true }));
        const chained = await db
          .selectFrom('audit_events')
          .select(['id', 'seq'])
          .where('account_id', '=', user.accountId)
          .orderBy('seq')
          .execute();
        expect(chained.map((e) => e.id)).toEqual([pending, next]);
      } finally {
        vi.useRealTimers();
      }
      expect(await brokenFor(user.accountId)).toEqual([]);
    },
  );

  it.runIf(dbKind === 'postgres')(
    'links in the database what the code verifies: awkward text, a new chain, batches of 1,000',
    async () => {
      const db = t.app.ctx.db;
      // No head yet: the chain starts at the genesis hash. 1,005 events: two seal batches.
      const accountId = `acc_${newId('auditEvent')}`;
      const awkward = [
        'quote " backslash \\ slash / tab \t newline \n return \r',
        'controls \u0001\u001f\u007f \b \f (PostgreSQL text holds no NUL)',
        'Müller & Söhne – “Zitat” € 𝄞 😀 \u2028 \u2029',
      ];
      const rows = Array.from({ length: 1005 }, (_, i) => ({
        id: newId('auditEvent'),
        account_id: accountId,
        occurred_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        actor_type: i % 2 ? 'user' : 'system',
        actor_id: i % 2 ? 'usr_1' : null,
        token_id: null,
        action: 'partner.updated',
        resource_type: 'partner',
        resource_id: `ptr_${i}`,
        changes: JSON.stringify({ name: { from: awkward[i % 3], to: awkward[(i + 1) % 3] } }),
        request_id: i % 3 ? `req-${i}` : null,
        ip: i % 2 ? '2001:db8::1' : null,
      }));
      await db.insertInto('audit_pending').values(rows).execute();
      await sealAudit(db, accountId, { now: true });
      const chained = await db
        .selectFrom('audit_events')
        .select(['id', 'seq'])
        .where('account_id', '=', accountId)
        .orderBy('seq')
        .execute();
      expect(chained.map((e) => e.id)).toEqual(rows.map((r) => r.id));
      expect(chained.at(-1)?.seq).toBe(1005);
      expect(await brokenFor(accountId)).toEqual([]);
    },
  );

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

describe('audit: the list', () => {
  it("pages through the whole trail newest first in the chain's order, each event once", async () => {
    const owner = await createUser(t);
    // Writes at once: on PostgreSQL an event's id is made before its commit, its place in the
    // chain after it, so the two orders can differ.
    await writeAtOnce(owner, 7);
    const seqs: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await t.request({
        method: 'GET',
        url: `/v1/audit-events?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`,
        token: owner.token,
      });
      expect(res.statusCode, res.body).toBe(200);
      const page = res.json<{ data: { seq: number }[]; nextCursor: string | null }>();
      seqs.push(...page.data.map((e) => e.seq));
      cursor = page.nextCursor;
    } while (cursor !== null);
    expect(seqs.length).toBeGreaterThanOrEqual(7);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs.length - i));
  });

  it("pages a filtered list by cursor; another account's event is no cursor (400)", async () => {
    const owner = await createUser(t);
    const member = await createUser(t, { role: 'user', accountId: owner.accountId });
    for (const user of [owner, member, owner, member, member]) await writeSome(user, 1);
    const page = async (query: string, user = owner) => {
      const res = await t.request({
        method: 'GET',
        url: `/v1/audit-events?${query}`,
        token: user.token,
      });
      return res;
    };
    const first = (await page(`actorId=${member.userId}&limit=2`)).json<{
      data: { seq: number; actor: { userId: string } }[];
      nextCursor: string;
    }>();
    const second = (
      await page(`actorId=${member.userId}&limit=2&cursor=${first.nextCursor}`)
    ).json<{
      data: { seq: number; actor: { userId: string } }[];
      nextCursor: string | null;
    }>();
    const seqs = [...first.data, ...second.data].map((e) => e.seq);
    expect(seqs).toHaveLength(3);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    expect(new Set([...first.data, ...second.data].map((e) => e.actor.userId))).toEqual(
      new Set([member.userId]),
    );
    expect(second.nextCursor).toBeNull();
    const stranger = await createUser(t);
    const foreign = await page(`limit=2&cursor=${first.nextCursor}`, stranger);
    expect(foreign.statusCode).toBe(400);
    expect(foreign.json()).toMatchObject({ errors: [{ path: '/querystring/cursor' }] });
  });

  it.runIf(dbKind === 'sqlite')(
    "reads a page through the (account, sequence) index, without sorting the account's events",
    async () => {
      const plan = async (afterSeq: number | undefined) => {
        const page = auditEventsPage(t.app.ctx.db, admin.accountId, {
          afterSeq,
          limit: 26,
        }).compile();
        const rows = await t.app.ctx.db.executeQuery<{ detail: string }>(
          CompiledQuery.raw(`explain query plan ${page.sql}`, [...page.parameters]),
        );
        return rows.rows.map((r) => r.detail).join('\n');
      };
      // The unique (account, sequence) index, SQLite's second automatic index of the table.
      for (const afterSeq of [undefined, 5]) {
        const detail = await plan(afterSeq);
        expect(detail).toMatch(/audit_events USING INDEX sqlite_autoindex_audit_events_2/);
        expect(detail).not.toMatch(/TEMP B-TREE/);
      }
    },
  );
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
