import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  codeFor,
  createUser,
  email,
  mailsTo,
  PASSWORD,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t, { email: email('admin') });
  member = await createUser(t, { role: 'user', accountId: admin.accountId, email: email('m') });
  other = await createUser(t, { email: email('other') });
});
afterAll(() => t.close());

type Body = Record<string, unknown>;

const invite = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/v1/users', token: user.token, payload, headers });

const preview = (user: TestUser, payload: Body) =>
  t.request({ method: 'POST', url: '/v1/users/confirm', token: user.token, payload });

const patch = (
  user: TestUser,
  userId: string,
  payload: Body,
  headers: Record<string, string> = {},
) =>
  t.request({ method: 'PATCH', url: `/v1/users/${userId}`, token: user.token, payload, headers });

const remove = (user: TestUser, userId: string) =>
  t.request({ method: 'DELETE', url: `/v1/users/${userId}`, token: user.token });

const get = (user: TestUser | string, userId: string) =>
  t.request({
    method: 'GET',
    url: `/v1/users/${userId}`,
    token: typeof user === 'string' ? user : user.token,
  });

async function count(table: 'users' | 'audit_events', accountId: string): Promise<number> {
  const row = await t.app.ctx.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A fresh account: one admin, and `members` further users (role `user`). */
async function team(members = 0): Promise<{ admin: TestUser; members: TestUser[] }> {
  const owner = await createUser(t, { email: email('owner') });
  const rest: TestUser[] = [];
  for (let i = 0; i < members; i++)
    rest.push(
      await createUser(t, { role: 'user', accountId: owner.accountId, email: email('team') }),
    );
  return { admin: owner, members: rest };
}

describe('users: reading', () => {
  it('lists and gets users for the `user` role, without secrets', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/users', token: member.token });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.nextCursor).toBeNull();
    expect(body.data.map((u: { id: string }) => u.id).sort()).toEqual(
      [admin.userId, member.userId].sort(),
    );
    expect(JSON.stringify(body)).not.toMatch(/password|hash/i);

    const one = await get(member, admin.userId);
    expect(one.statusCode).toBe(200);
    expect(one.headers.etag).toBe('"1"');
    expect(one.json()).toEqual({
      id: admin.userId,
      version: 1,
      name: 'Test User',
      email: admin.email,
      role: 'admin',
      status: 'ACTIVE',
      lastLoginAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
  });

  it('filters by role and status, and pages', async () => {
    const { admin: owner } = await team(2);
    const list = async (qs: string) =>
      (await t.request({ method: 'GET', url: `/v1/users?${qs}`, token: owner.token })).json();
    expect((await list('role=admin')).data.map((u: { id: string }) => u.id)).toEqual([
      owner.userId,
    ]);
    expect((await list('role=user')).data).toHaveLength(2);
    expect((await list('status=INVITED')).data).toHaveLength(0);
    const page1 = await list('limit=2');
    expect(page1.data).toHaveLength(2);
    const page2 = await list(`limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((u: { id: string }) => u.id)).toEqual([owner.userId]);
    expect(page2.nextCursor).toBeNull();
    for (const qs of ['role=owner', 'status=GONE', 'colour=red', 'limit=0']) {
      const res = await t.request({ method: 'GET', url: `/v1/users?${qs}`, token: owner.token });
      expect(res.statusCode, qs).toBe(400);
    }
  });
});

describe('users: invitations', () => {
  it('invites a user who sets a password with the mailed code and signs in', async () => {
    const { admin: owner } = await team();
    const address = email('invitee');
    const events = await count('audit_events', owner.accountId);
    const res = await invite(owner, { name: 'Ina Invitee', email: address.toUpperCase() });
    expect(res.statusCode).toBe(201);
    const user = res.json();
    expect(user).toMatchObject({
      name: 'Ina Invitee',
      email: address,
      role: 'user',
      status: 'INVITED',
      version: 1,
      lastLoginAt: null,
    });
    expect(user.id).toMatch(/^usr_[0-9a-z]{26}$/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/users/${user.id}`);
    expect(await count('audit_events', owner.accountId)).toBe(events + 1);

    const mails = await mailsTo(t, address);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('invited');
    const code = await codeFor(t, address);
    expect(code).toMatch(/^\d{6}$/);

    // An invited user cannot sign in before setting a password.
    const early = await t.request({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: address, password: PASSWORD },
    });
    expect(early.statusCode).toBe(401);

    const reset = await t.request({
      method: 'POST',
      url: '/v1/auth/reset-password',
      payload: { email: address, code, newPassword: PASSWORD },
    });
    expect(reset.statusCode).toBe(200);

    const login = await t.request({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: address, password: PASSWORD },
    });
    expect(login.statusCode).toBe(200);
    const session = login.json();
    expect(session.user).toMatchObject({ id: user.id, role: 'user', status: 'ACTIVE' });

    const me = await get(session.accessToken as string, user.id);
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ status: 'ACTIVE', version: 2 });
    expect(me.json().lastLoginAt).toEqual(expect.any(String));

    // The code works once.
    const replay = await t.request({
      method: 'POST',
      url: '/v1/auth/reset-password',
      payload: { email: address, code, newPassword: `${PASSWORD}!` },
    });
    expect(replay.statusCode).toBe(400);
  });

  it('invites an admin when asked', async () => {
    const { admin: owner } = await team();
    const res = await invite(owner, { name: 'Second Admin', email: email('adm'), role: 'admin' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ role: 'admin', status: 'INVITED' });
  });

  it('previews an invitation without creating anything', async () => {
    const { admin: owner } = await team();
    const address = email('preview');
    const users = await count('users', owner.accountId);
    const events = await count('audit_events', owner.accountId);
    const res = await preview(owner, { name: 'Pre View', email: address, role: 'admin' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      valid: true,
      emailAvailable: true,
      seats: { used: 1, included: 3, afterInvite: 2 },
      priceEffect: { currency: 'EUR', monthlyDelta: 0 },
      problems: [],
    });
    expect(res.json().action).toContain(address);
    expect(await count('users', owner.accountId)).toBe(users);
    expect(await count('audit_events', owner.accountId)).toBe(events);
    expect(await mailsTo(t, address, 1, 200)).toHaveLength(0);
    // The real invitation still works afterwards.
    expect((await invite(owner, { name: 'Pre View', email: address })).statusCode).toBe(201);
  });

  it('409 duplicate when the email is taken; the preview says so for its own account only', async () => {
    const {
      admin: owner,
      members: [mate],
    } = await team(1);
    for (const address of [admin.email, admin.email.toUpperCase(), other.email]) {
      const res = await invite(owner, { name: 'Dup', email: address });
      expect(res.statusCode, address).toBe(409);
      expect(res.json().code).toBe('duplicate');
    }
    for (const address of [mate!.email, mate!.email.toUpperCase()]) {
      const pre = (await preview(owner, { name: 'Dup', email: address })).json();
      expect(pre).toMatchObject({ valid: false, emailAvailable: false });
      expect(pre.problems).toContainEqual(expect.objectContaining({ code: 'duplicate' }));
    }
    expect(await count('users', owner.accountId)).toBe(2);
  });

  it('the preview does not tell whether another account has the email', async () => {
    const { admin: owner } = await team();
    const strip = (body: { action: string }) => ({ ...body, action: undefined });
    const unknown = (await preview(owner, { name: 'X', email: email('nobody') })).json();
    for (const address of [admin.email, other.email]) {
      const pre = (await preview(owner, { name: 'X', email: address })).json();
      expect(strip(pre)).toEqual(strip(unknown));
    }
  });

  it('422 seat_limit_reached beyond the plan’s 3 seats; the preview says valid:false', async () => {
    const { admin: owner } = await team();
    for (let i = 0; i < 2; i++)
      expect((await invite(owner, { name: `Seat ${i}`, email: email('seat') })).statusCode).toBe(
        201,
      );
    const address = email('fourth');
    const pre = await preview(owner, { name: 'Fourth', email: address });
    expect(pre.statusCode).toBe(200);
    expect(pre.json()).toMatchObject({
      valid: false,
      emailAvailable: true,
      seats: { used: 3, included: 3, afterInvite: 4 },
    });
    expect(pre.json().problems).toContainEqual(
      expect.objectContaining({ code: 'seat_limit_reached' }),
    );
    const events = await count('audit_events', owner.accountId);
    const res = await invite(owner, { name: 'Fourth', email: address });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('seat_limit_reached');
    expect(await count('users', owner.accountId)).toBe(3);
    expect(await count('audit_events', owner.accountId)).toBe(events);
    expect(await mailsTo(t, address, 1, 200)).toHaveLength(0);
  });

  it('lets only one of two concurrent invitations take the last seat', async () => {
    const { admin: owner } = await team(1);
    const results = await Promise.all(
      ['a', 'b'].map((label) => invite(owner, { name: label, email: email(label) })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 422]);
    expect(await count('users', owner.accountId)).toBe(3);
  });

  it('replays an invitation with the same Idempotency-Key instead of inviting twice', async () => {
    const { admin: owner } = await team();
    const headers = { 'idempotency-key': `inv-${Date.now()}` };
    const payload = { name: 'Once', email: email('once') };
    const first = await invite(owner, payload, headers);
    const again = await invite(owner, payload, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(await count('users', owner.accountId)).toBe(2);
  });
});

describe('users: bad input', () => {
  it.each([
    ['missing name', { email: 'a@example.com' }, '/body/name', 'required'],
    ['missing email', { name: 'A' }, '/body/email', 'required'],
    ['bad email', { name: 'A', email: 'not-an-email' }, '/body/email', 'invalid_format'],
    ['bad role', { name: 'A', email: 'a@example.com', role: 'owner' }, '/body/role', 'not_in_enum'],
    [
      'unknown field',
      { name: 'A', email: 'a@example.com', team: 'x' },
      '/body/team',
      'unknown_field',
    ],
    ['too long name', { name: 'x'.repeat(201), email: 'a@example.com' }, '/body/name', 'too_long'],
  ])('400 on %s, for invite and preview alike', async (_label, payload, path, code) => {
    const users = await count('users', admin.accountId);
    for (const send of [invite, preview]) {
      const res = await send(admin, payload);
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.json().code).toBe('validation_failed');
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect(await count('users', admin.accountId)).toBe(users);
  });

  it.each([
    ['bad role', { role: 'superuser' }, '/body/role', 'not_in_enum'],
    ['missing role', {}, '/body/role', 'required'],
    ['unknown field', { role: 'user', version: 1 }, '/body/version', 'unknown_field'],
  ])('400 on a PATCH with %s', async (_label, payload, path, code) => {
    const res = await patch(admin, member.userId, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    expect((await get(admin, member.userId)).json()).toMatchObject({ role: 'user', version: 1 });
  });
});

describe('users: authorization and tenancy', () => {
  it('403 forbidden for the `user` role on every write, and nothing changes', async () => {
    const address = email('forbidden');
    const users = await count('users', admin.accountId);
    for (const res of [
      await invite(member, { name: 'X', email: address }),
      await preview(member, { name: 'X', email: address }),
      await patch(member, member.userId, { role: 'admin' }),
      await patch(member, admin.userId, { role: 'user' }),
      await remove(member, admin.userId),
      await remove(member, member.userId),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('forbidden');
    }
    expect(await count('users', admin.accountId)).toBe(users);
    expect((await get(admin, member.userId)).json()).toMatchObject({ role: 'user', version: 1 });
  });

  it('answers 404 for another account’s user on read, role change and delete', async () => {
    for (const res of [
      await get(admin, other.userId),
      await patch(admin, other.userId, { role: 'user' }),
      await remove(admin, other.userId),
      await get(admin, 'usr_doesnotexist'),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    expect((await get(other, other.userId)).json()).toMatchObject({ role: 'admin', version: 1 });
    const list = (await t.request({ method: 'GET', url: '/v1/users', token: admin.token })).json();
    expect(list.data.map((u: { id: string }) => u.id)).not.toContain(other.userId);
  });
});

describe('users: role changes', () => {
  it('changes a role, bumps the version and the ETag, and writes one audit event', async () => {
    const { admin: owner, members } = await team(1);
    const target = members[0]!;
    const events = await count('audit_events', owner.accountId);
    const res = await patch(owner, target.userId, { role: 'admin' }, { 'if-match': '"1"' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: target.userId, role: 'admin', version: 2 });
    expect(res.headers.etag).toBe('"2"');
    expect(await count('audit_events', owner.accountId)).toBe(events + 1);
    const audit = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${target.userId}`,
        token: owner.token,
      })
    ).json().data;
    expect(audit[0]).toMatchObject({
      action: 'user.role_changed',
      changes: { role: { from: 'user', to: 'admin' } },
    });

    // The same role again changes nothing.
    const same = await patch(owner, target.userId, { role: 'admin' });
    expect(same.statusCode).toBe(200);
    expect(same.json().version).toBe(2);
    expect(await count('audit_events', owner.accountId)).toBe(events + 1);

    // The promoted user has admin rights on the very next request.
    expect((await preview(target, { name: 'P', email: email('p') })).statusCode).toBe(200);
  });

  it('412 when If-Match does not match, and nothing changes', async () => {
    const { admin: owner, members } = await team(1);
    const target = members[0]!;
    for (const ifMatch of ['"2"', 'W/"1"', 'garbage']) {
      const res = await patch(owner, target.userId, { role: 'admin' }, { 'if-match': ifMatch });
      expect(res.statusCode, ifMatch).toBe(412);
      expect(res.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    }
    expect((await get(owner, target.userId)).json()).toMatchObject({ role: 'user', version: 1 });
    const star = await patch(owner, target.userId, { role: 'admin' }, { 'if-match': '*' });
    expect(star.statusCode).toBe(200);
  });

  it('a demoted admin loses admin access on the next request', async () => {
    const { admin: owner, members } = await team(1);
    const second = members[0]!;
    expect((await patch(owner, second.userId, { role: 'admin' })).statusCode).toBe(200);
    // Warm the credential cache with the admin role.
    const adminRoute = () =>
      t.request({ method: 'GET', url: '/v1/audit-events', token: second.token });
    expect((await adminRoute()).statusCode).toBe(200);
    expect((await adminRoute()).statusCode).toBe(200);

    expect((await patch(owner, second.userId, { role: 'user' })).statusCode).toBe(200);
    const after = await adminRoute();
    expect(after.statusCode).toBe(403);
    expect(after.json().code).toBe('forbidden');
    // Still a user: business reads keep working.
    expect(
      (await t.request({ method: 'GET', url: '/v1/users', token: second.token })).statusCode,
    ).toBe(200);
  });

  it('409 last_admin: the only admin can be neither demoted nor deleted', async () => {
    const { admin: owner, members } = await team(1);
    const events = await count('audit_events', owner.accountId);
    const demote = await patch(owner, owner.userId, { role: 'user' });
    expect(demote.statusCode).toBe(409);
    expect(demote.json().code).toBe('last_admin');
    const del = await remove(owner, owner.userId);
    expect(del.statusCode).toBe(409);
    expect(del.json().code).toBe('last_admin');
    expect((await get(owner, owner.userId)).json()).toMatchObject({ role: 'admin', version: 1 });
    expect(await count('audit_events', owner.accountId)).toBe(events);

    // An invited (not yet active) admin does not count as the other admin.
    const invited = await invite(owner, { name: 'Later', email: email('later'), role: 'admin' });
    expect(invited.statusCode).toBe(201);
    expect((await patch(owner, owner.userId, { role: 'user' })).json().code).toBe('last_admin');

    // With a second active admin, the first may step down.
    expect((await patch(owner, members[0]!.userId, { role: 'admin' })).statusCode).toBe(200);
    const stepDown = await patch(owner, owner.userId, { role: 'user' });
    expect(stepDown.statusCode).toBe(200);
    expect(stepDown.json()).toMatchObject({ role: 'user', version: 2 });
  });

  it('of two admins demoting each other at once, exactly one wins', async () => {
    const { admin: a, members } = await team(1);
    const b = members[0]!;
    expect((await patch(a, b.userId, { role: 'admin' })).statusCode).toBe(200);
    const results = await Promise.all([
      patch(a, b.userId, { role: 'user' }),
      patch(b, a.userId, { role: 'user' }),
    ]);
    const codes = results.map((r) => r.statusCode).sort();
    // The loser is refused either as the last admin or, already demoted, as a non-admin.
    expect(codes[0]).toBe(200);
    expect([403, 409]).toContain(codes[1]);
    const admins = (
      await t.request({ method: 'GET', url: '/v1/users?role=admin', token: a.token })
    ).json().data;
    expect(admins).toHaveLength(1);
  });
});

describe('users: removal', () => {
  it('deletes a user; their token stops working at once', async () => {
    const { admin: owner, members } = await team(1);
    const target = members[0]!;
    expect((await get(target.token, target.userId)).statusCode).toBe(200);
    const events = await count('audit_events', owner.accountId);
    const res = await remove(owner, target.userId);
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    const after = await get(target.token, target.userId);
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('token_invalid');
    expect((await get(owner, target.userId)).statusCode).toBe(404);
    expect((await remove(owner, target.userId)).statusCode).toBe(404);
    expect(await count('audit_events', owner.accountId)).toBe(events + 1);
    const tokens = await t.app.ctx.db
      .selectFrom('auth_tokens')
      .select('id')
      .where('user_id', '=', target.userId)
      .execute();
    expect(tokens).toEqual([]);
    // The freed seat can be used again, and the email is free again.
    expect((await invite(owner, { name: 'Back', email: target.email })).statusCode).toBe(201);
  });

  it('ends the sessions of a deleted user too', async () => {
    const { admin: owner } = await team();
    const address = email('session');
    const invited = (await invite(owner, { name: 'Sess', email: address })).json();
    const code = await codeFor(t, address);
    expect(
      (
        await t.request({
          method: 'POST',
          url: '/v1/auth/reset-password',
          payload: { email: address, code, newPassword: PASSWORD },
        })
      ).statusCode,
    ).toBe(200);
    const login = await t.request({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: address, password: PASSWORD },
    });
    const { accessToken, refreshToken } = login.json();
    expect((await get(accessToken as string, invited.id)).statusCode).toBe(200);
    expect((await remove(owner, invited.id)).statusCode).toBe(204);
    expect((await get(accessToken as string, invited.id)).statusCode).toBe(401);
    const refresh = await t.request({
      method: 'POST',
      url: '/v1/auth/refresh',
      payload: { refreshToken },
    });
    expect(refresh.statusCode).toBe(401);
  });

  it('an invited user can be deleted before accepting; the code then fails', async () => {
    const { admin: owner } = await team();
    const address = email('withdrawn');
    const invited = (await invite(owner, { name: 'W', email: address })).json();
    const code = await codeFor(t, address);
    expect((await remove(owner, invited.id)).statusCode).toBe(204);
    const reset = await t.request({
      method: 'POST',
      url: '/v1/auth/reset-password',
      payload: { email: address, code, newPassword: PASSWORD },
    });
    expect(reset.statusCode).toBe(400);
  });
});
