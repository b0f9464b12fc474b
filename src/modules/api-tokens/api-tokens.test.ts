import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { DAY, HOUR, ManualClock } from '../../shared/clock.js';
import { sha256 } from '../../shared/secrets.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let colleague: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  colleague = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
});
afterAll(() => t.close());

const create = (
  user: TestUser | string,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  t.request({
    method: 'POST',
    url: '/v1/api-tokens',
    token: typeof user === 'string' ? user : user.token,
    payload,
    headers,
  });

const list = async (user: TestUser | string, qs = '') => {
  const res = await t.request({
    method: 'GET',
    url: `/v1/api-tokens${qs}`,
    token: typeof user === 'string' ? user : user.token,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ data: Record<string, unknown>[]; nextCursor: string | null }>();
};

const remove = (user: TestUser | string, tokenId: string) =>
  t.request({
    method: 'DELETE',
    url: `/v1/api-tokens/${tokenId}`,
    token: typeof user === 'string' ? user : user.token,
  });

/** A request that needs a live bearer: 200 while the token works, 401 once it does not. */
const probe = (token: string) => t.request({ method: 'GET', url: '/v1/users', token });

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

describe('api-tokens: happy paths', () => {
  it('creates a token whose secret is shown once, and lists it without the secret', async () => {
    const res = await create(member, { name: 'CI pipeline' });
    expect(res.statusCode).toBe(201);
    const created = res.json();
    expect(created.id).toMatch(/^tok_[0-9a-z]{26}$/);
    expect(created.token).toMatch(/^kpat_[0-9A-Za-z]{40}$/);
    expect(created).toMatchObject({
      name: 'CI pipeline',
      userId: member.userId,
      lastUsedAt: null,
      expiresAt: null,
    });
    expect(created.token.startsWith(created.prefix)).toBe(true);
    expect(created.prefix).toMatch(/^kpat_/);
    expect(created.prefix.length).toBeLessThan(created.token.length);

    const listed = (await list(member)).data.find((x) => x.id === created.id);
    expect(listed).toBeDefined();
    const { token: secret, ...rest } = created;
    expect(listed).toEqual(rest);
    expect(Object.keys(listed!).sort()).toEqual(
      ['createdAt', 'expiresAt', 'id', 'lastUsedAt', 'name', 'prefix', 'userId'].sort(),
    );
    expect(JSON.stringify(await list(member))).not.toContain(secret);
    expect(JSON.stringify(await list(admin))).not.toContain(secret);
    expect(JSON.stringify(await list(admin))).not.toContain(sha256(secret as string));
  });

  it('authenticates with the new token, acting as its user, and records its last use', async () => {
    const created = (await create(member, { name: 'Script' })).json();
    const me = await t.request({
      method: 'GET',
      url: `/v1/users/${member.userId}`,
      token: created.token,
    });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ id: member.userId, role: 'user' });
    // Acting as a `user`, the token cannot do what only admins may.
    const adminOnly = await t.request({
      method: 'GET',
      url: '/v1/audit-events',
      token: created.token,
    });
    expect(adminOnly.statusCode).toBe(403);
    expect(adminOnly.json().code).toBe('forbidden');

    // The use is recorded off the request path; wait for it.
    await vi.waitFor(
      async () => {
        const row = (await list(member)).data.find((x) => x.id === created.id);
        expect(row?.lastUsedAt).toEqual(expect.any(String));
      },
      { timeout: 3000, interval: 50 },
    );
    const row = (await list(member)).data.find((x) => x.id === created.id)!;
    expect(Date.parse(row.lastUsedAt as string)).toBeGreaterThanOrEqual(
      Date.parse(created.createdAt),
    );
  });

  it('accepts an RFC 3339 expiresAt and a date-only one (end of that day, UTC)', async () => {
    const at = new Date(Date.now() + 7 * DAY).toISOString();
    const ts = await create(member, { name: 'Timestamp', expiresAt: at });
    expect(ts.statusCode).toBe(201);
    expect(ts.json().expiresAt).toBe(at);

    const day = await create(member, { name: 'Date only', expiresAt: '2999-12-31' });
    expect(day.statusCode).toBe(201);
    expect(day.json().expiresAt).toBe('3000-01-01T00:00:00.000Z');
    expect((await probe(day.json().token)).statusCode).toBe(200);

    // An offset is normalised to UTC.
    const offset = await create(member, { name: 'Offset', expiresAt: '2999-06-01T12:00:00+02:00' });
    expect(offset.statusCode).toBe(201);
    expect(offset.json().expiresAt).toBe('2999-06-01T10:00:00.000Z');
  });

  it('keeps the latest possible date usable (no 5-digit years stored)', async () => {
    const last = await create(member, { name: 'Last day', expiresAt: '9999-12-31' });
    expect(last.statusCode).toBe(201);
    expect(last.json().expiresAt).toMatch(/^9999-12-31T23:59:59/);
    expect((await probe(last.json().token)).statusCode).toBe(200);
  });

  it('writes audit events for create and delete, never with the secret', async () => {
    const created = (await create(member, { name: 'Audited' })).json();
    expect((await remove(member, created.id)).statusCode).toBe(204);
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${created.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'api_token.deleted',
      'api_token.created',
    ]);
    expect(events[1].actor).toMatchObject({ userId: member.userId, tokenId: member.tokenId });
    expect(JSON.stringify(events)).not.toContain(created.token);
  });
});

describe('api-tokens: secrets at rest', () => {
  it('stores only a hash of the secret', async () => {
    const created = (await create(member, { name: 'Hashed' })).json();
    const row = await t.app.ctx.db
      .selectFrom('auth_tokens')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.kind).toBe('pat');
    expect(row.token_hash).not.toBe(created.token);
    expect(row.token_hash).toBe(sha256(created.token));
    for (const value of Object.values(row)) expect(String(value)).not.toContain(created.token);
  });

  it('replays a create with the same Idempotency-Key, keeping the secret sealed at rest', async () => {
    const key = `tok-${Date.now()}-${Math.random()}`;
    const first = await create(admin, { name: 'Idempotent' }, { 'idempotency-key': key });
    const again = await create(admin, { name: 'Idempotent' }, { 'idempotency-key': key });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json()).toEqual(first.json());
    const secret: string = first.json().token;

    const mine = (await list(admin, `?userId=${admin.userId}&limit=100`)).data.filter(
      (x) => x.name === 'Idempotent',
    );
    expect(mine).toHaveLength(1);

    const stored = await t.app.ctx.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('scope', '=', `${admin.accountId}:${admin.userId}`)
      .where('key', '=', key)
      .executeTakeFirstOrThrow();
    expect(stored.state).toBe('done');
    expect(stored.response_body).not.toBeNull();
    expect(stored.response_body).not.toContain(secret);
    expect(stored.response_body).not.toContain(secret.slice(5));
    expect(stored.response_body).not.toContain('"name"');
  });
});

describe('api-tokens: bad input', () => {
  it.each([
    ['missing name', {}, '/body/name', 'required'],
    ['wrong type', { name: 42 }, '/body/name', 'wrong_type'],
    ['empty name', { name: '' }, '/body/name', undefined],
    ['too long name', { name: 'x'.repeat(201) }, '/body/name', 'too_long'],
    ['unknown field', { name: 'X', scopes: ['all'] }, '/body/scopes', 'unknown_field'],
    ['unparseable expiresAt', { name: 'X', expiresAt: 'next week' }, '/body/expiresAt', undefined],
    ['impossible date', { name: 'X', expiresAt: '2999-02-30' }, '/body/expiresAt', undefined],
    [
      'impossible date in a timestamp',
      { name: 'X', expiresAt: '2999-02-30T12:00:00Z' },
      '/body/expiresAt',
      undefined,
    ],
    ['hour 24', { name: 'X', expiresAt: '2999-01-01T24:00:00Z' }, '/body/expiresAt', undefined],
    [
      'timestamp without zone',
      { name: 'X', expiresAt: '2999-01-01T10:00:00' },
      '/body/expiresAt',
      undefined,
    ],
    [
      'expiry beyond year 9999',
      { name: 'X', expiresAt: '9999-12-31T23:00:00-05:00' },
      '/body/expiresAt',
      undefined,
    ],
    [
      'expiresAt in the past',
      { name: 'X', expiresAt: '2020-01-01T00:00:00Z' },
      '/body/expiresAt',
      undefined,
    ],
    [
      'date-only expiresAt in the past',
      { name: 'X', expiresAt: '2020-01-01' },
      '/body/expiresAt',
      undefined,
    ],
  ])('400 on %s, naming the field, and nothing created', async (_label, payload, path, code) => {
    const before = (await list(member, '?limit=100')).data.length;
    const events = await auditCount(admin.accountId);
    const res = await create(member, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.json().errors).toContainEqual(
      expect.objectContaining(code === undefined ? { path } : { path, code }),
    );
    expect((await list(member, '?limit=100')).data).toHaveLength(before);
    expect(await auditCount(admin.accountId)).toBe(events);
  });

  it('400 on an unknown query parameter and a bad limit', async () => {
    for (const qs of ['?colour=red', '?limit=0', '?limit=101', '?cursor=garbage']) {
      const res = await t.request({
        method: 'GET',
        url: `/v1/api-tokens${qs}`,
        token: admin.token,
      });
      expect(res.statusCode, qs).toBe(400);
      expect(res.json().code).toBe('validation_failed');
    }
  });
});

describe('api-tokens: authentication', () => {
  it('a token past its expiresAt answers 401, even when it was cached', async () => {
    const clock = new ManualClock();
    const app = await buildTestApp({ clock });
    try {
      const owner = await createUser(app);
      const at = new Date(clock.now().getTime() + HOUR).toISOString();
      const created = await app.request({
        method: 'POST',
        url: '/v1/api-tokens',
        token: owner.token,
        payload: { name: 'Short-lived', expiresAt: at },
      });
      expect(created.statusCode).toBe(201);
      const secret: string = created.json().token;
      const use = () => app.request({ method: 'GET', url: '/v1/api-tokens', token: secret });
      expect((await use()).statusCode).toBe(200);
      clock.advance(HOUR - 1000);
      expect((await use()).statusCode).toBe(200);
      clock.advance(1000);
      const expired = await use();
      expect(expired.statusCode).toBe(401);
      expect(expired.json().code).toBe('token_invalid');
      expect(expired.headers['www-authenticate']).toContain('Bearer');
      // The owner's other token still works and still lists the expired one.
      const rows = (
        await app.request({ method: 'GET', url: '/v1/api-tokens', token: owner.token })
      ).json().data;
      expect(rows.map((r: { id: string }) => r.id)).toContain(created.json().id);
    } finally {
      await app.close();
    }
  });
});

describe('api-tokens: revocation and ownership', () => {
  it('DELETE revokes at once, though the token was cached', async () => {
    const created = (await create(member, { name: 'Revoke me' })).json();
    expect((await probe(created.token)).statusCode).toBe(200);
    expect((await probe(created.token)).statusCode).toBe(200);
    const del = await remove(member, created.id);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    const after = await probe(created.token);
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('token_invalid');
    expect((await list(member)).data.map((x) => x.id)).not.toContain(created.id);
    expect((await remove(member, created.id)).statusCode).toBe(404);
  });

  it('a token can revoke itself, and is refused right after', async () => {
    const created = (await create(member, { name: 'Self' })).json();
    expect((await remove(created.token, created.id)).statusCode).toBe(204);
    expect((await probe(created.token)).statusCode).toBe(401);
  });

  it('a user sees and deletes only their own tokens', async () => {
    const theirs = (await create(colleague, { name: 'Colleague token' })).json();
    const mine = (await list(member, '?limit=100')).data;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((x) => x.userId === member.userId)).toBe(true);
    expect(mine.map((x) => x.id)).not.toContain(theirs.id);
    // Filtering by another user does not widen a user's view.
    expect((await list(member, `?userId=${colleague.userId}`)).data).toEqual([]);

    const del = await remove(member, theirs.id);
    expect(del.statusCode).toBe(404);
    expect(del.json().code).toBe('not_found');
    expect((await probe(theirs.token)).statusCode).toBe(200);
  });

  it('an admin lists every token of the account and deletes another user’s', async () => {
    const theirs = (await create(colleague, { name: 'Admin removes this' })).json();
    expect((await probe(theirs.token)).statusCode).toBe(200);
    const all = (await list(admin, '?limit=100')).data;
    const owners = new Set(all.map((x) => x.userId));
    expect(owners).toEqual(new Set([admin.userId, member.userId, colleague.userId]));
    expect(all.map((x) => x.id)).toContain(theirs.id);
    expect(all.map((x) => x.id)).not.toContain(other.tokenId);
    const filtered = (await list(admin, `?userId=${colleague.userId}&limit=100`)).data;
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((x) => x.userId === colleague.userId)).toBe(true);

    expect((await remove(admin, theirs.id)).statusCode).toBe(204);
    expect((await probe(theirs.token)).statusCode).toBe(401);
  });

  it('another account’s token id answers 404, and it keeps working', async () => {
    const foreign = (await create(other, { name: 'Foreign' })).json();
    const del = await remove(admin, foreign.id);
    expect(del.statusCode).toBe(404);
    expect(del.json().code).toBe('not_found');
    expect((await list(admin, `?userId=${other.userId}`)).data).toEqual([]);
    expect((await probe(foreign.token)).statusCode).toBe(200);
    expect((await remove(admin, 'tok_doesnotexist')).statusCode).toBe(404);
  });

  it('pages newest first with a cursor', async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 3; i++)
      expect((await create(owner, { name: `T${i}` })).statusCode).toBe(201);
    const page1 = await list(owner, '?limit=2');
    expect(page1.data.map((x) => x.name)).toEqual(['T2', 'T1']);
    const page2 = await list(owner, `?limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((x) => x.name)).toEqual(['T0', 'factory']);
    expect(page2.nextCursor).toBeNull();
  });
});

describe('api-tokens: a cap per user', () => {
  it('allows 50 active tokens per user; the 51st is 409 token_limit_reached', async () => {
    const owner = await createUser(t);
    // The factory's own token is the first.
    const ids: string[] = [];
    for (let i = 2; i <= 50; i++) {
      const res = await create(owner, { name: `t${i}` });
      expect(res.statusCode).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    const over = await create(owner, { name: 'one too many' });
    expect(over.statusCode).toBe(409);
    expect(over.headers['content-type']).toContain('application/problem+json');
    expect(over.json()).toMatchObject({ status: 409, code: 'token_limit_reached' });
    // A teammate has their own 50.
    const mate = await createUser(t, { role: 'user', accountId: owner.accountId });
    expect((await create(mate, { name: 'mine' })).statusCode).toBe(201);
    // Deleting one makes room again.
    expect((await remove(owner, ids[0]!)).statusCode).toBe(204);
    expect((await create(owner, { name: 'replacement' })).statusCode).toBe(201);
  });
});
