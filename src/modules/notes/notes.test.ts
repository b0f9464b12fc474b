import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { newContract, newPartner } from '../contracts/contracts.test-support.js';
import { describeResourceContract } from '../../../test/contract.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;
let partnerId: string;
let contractId: string;
let otherPartnerId: string;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
  partnerId = (await newPartner(t, admin)).id;
  contractId = (await newContract(t, admin, partnerId)).id;
  otherPartnerId = (await newPartner(t, other)).id;
});
afterAll(() => t.close());

// One partner per account to hang the notes on (a replayed create must send the same body).
const noteParents = new Map<string, string>();
describeResourceContract(() => t, {
  name: 'note',
  path: '/v1/notes',
  create: async (app, user) => {
    if (!noteParents.has(user.accountId))
      noteParents.set(user.accountId, (await newPartner(app, user)).id);
    return {
      parentType: 'PARTNER',
      parentId: noteParents.get(user.accountId)!,
      title: 'Call back',
      content: 'About the renewal.',
    };
  },
  update: { method: 'PUT', body: { title: 'Call back later' } },
  changedField: 'title',
});

type Body = Record<string, unknown>;

const body = (extra: Body = {}): Body => ({
  parentType: 'PARTNER',
  parentId: partnerId,
  title: 'Call back',
  content: 'About the renewal.',
  ...extra,
});

const create = (user: TestUser, payload: Body | string, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: '/v1/notes', token: user.token, payload, headers });

const put = (user: TestUser, id: string, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PUT', url: `/v1/notes/${id}`, token: user.token, payload, headers });

const get = (user: TestUser, id: string) =>
  t.request({ method: 'GET', url: `/v1/notes/${id}`, token: user.token });

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

async function newNote(user: TestUser, extra: Body = {}): Promise<{ id: string; version: number }> {
  const res = await create(user, body(extra));
  if (res.statusCode !== 201) throw new Error(`note not created: ${res.body}`);
  return res.json<{ id: string; version: number }>();
}

describe('notes: happy paths', () => {
  it('creates, reads, updates and deletes a note', async () => {
    const res = await create(member, body());
    expect(res.statusCode).toBe(201);
    const n = res.json();
    expect(n.id).toMatch(/^not_[0-9a-z]{26}$/);
    expect(n).toEqual({
      id: n.id,
      version: 1,
      createdAt: n.createdAt,
      updatedAt: n.updatedAt,
      parentType: 'PARTNER',
      parentId: partnerId,
      type: 'NOTE',
      title: 'Call back',
      content: 'About the renewal.',
      dueDate: null,
      done: false,
    });
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/notes/${n.id}`);

    const read = await get(member, n.id);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(n);
    expect(read.headers.etag).toBe('"1"');

    const upd = await put(member, n.id, { version: 1, title: 'Called', done: true });
    expect(upd.statusCode).toBe(200);
    expect(upd.json()).toMatchObject({
      version: 2,
      title: 'Called',
      content: 'About the renewal.',
      done: true,
    });
    expect(upd.headers.etag).toBe('"2"');

    const del = await t.request({
      method: 'DELETE',
      url: `/v1/notes/${n.id}`,
      token: member.token,
    });
    expect(del.statusCode).toBe(204);
    const gone = await get(member, n.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('not_found');
  });

  it('creates a REMINDER on a contract; PUT sets, changes and (for a NOTE) clears dueDate', async () => {
    const r = await create(member, {
      parentType: 'CONTRACT',
      parentId: contractId,
      type: 'REMINDER',
      title: 'Cancel?',
      content: '',
      dueDate: '2026-04-01',
    });
    expect(r.statusCode).toBe(201);
    expect(r.json()).toMatchObject({
      type: 'REMINDER',
      dueDate: '2026-04-01',
      parentType: 'CONTRACT',
    });
    const moved = await put(member, r.json().id, { version: 1, dueDate: '2026-05-01' });
    expect(moved.json()).toMatchObject({ version: 2, dueDate: '2026-05-01' });

    const n = await newNote(member, { dueDate: '2026-06-01' });
    const cleared = await put(member, n.id, { version: 1, dueDate: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({ dueDate: null, title: 'Call back' });
  });

  it('treats a PUT with only version as a write', async () => {
    const n = await newNote(member);
    const res = await put(member, n.id, { version: 1 });
    expect(res.statusCode).toBe(200);
    expect(res.json().version).toBe(2);
  });
});

describe('notes: bad input', () => {
  it.each([
    ['wrong type', () => body({ title: 42 }), '/body/title', 'wrong_type'],
    ['missing title', () => ({ ...body(), title: undefined }), '/body/title', 'required'],
    ['missing content', () => ({ ...body(), content: undefined }), '/body/content', 'required'],
    ['missing parentId', () => ({ ...body(), parentId: undefined }), '/body/parentId', 'required'],
    [
      'missing parentType',
      () => ({ ...body(), parentType: undefined }),
      '/body/parentType',
      'required',
    ],
    [
      'parentType outside the enum',
      () => body({ parentType: 'PRODUCT' }),
      '/body/parentType',
      'not_in_enum',
    ],
    ['type outside the enum', () => body({ type: 'TODO' }), '/body/type', 'not_in_enum'],
    ['unknown field', () => body({ colour: 'red' }), '/body/colour', 'unknown_field'],
    ['empty title', () => body({ title: '' }), '/body/title', 'too_short'],
    ['too long title', () => body({ title: 'x'.repeat(201) }), '/body/title', 'too_long'],
    ['too long content', () => body({ content: 'x'.repeat(10_001) }), '/body/content', 'too_long'],
    ['REMINDER without dueDate', () => body({ type: 'REMINDER' }), '/body/dueDate', 'required'],
    [
      'impossible dueDate',
      () => body({ dueDate: '2026-02-30' }),
      '/body/dueDate',
      'invalid_format',
    ],
    ['dueDate not ISO', () => body({ dueDate: '01.04.2026' }), '/body/dueDate', 'invalid_format'],
  ])('400 on %s, naming the field, and nothing written', async (_label, payload, path, code) => {
    const before = await auditCount(admin.accountId);
    const res = await create(admin, payload());
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('400 malformed_json on broken JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/notes',
      token: admin.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"title": "x",',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('malformed_json');
  });

  it('400 on PUT without version, with unknown fields, an impossible date, or clearing a REMINDER’s dueDate', async () => {
    const n = await newNote(admin);
    const r = await newNote(admin, { type: 'REMINDER', dueDate: '2026-04-01' });
    for (const [id, payload, path, code] of [
      [n.id, { title: 'W' }, '/body/version', 'required'],
      [n.id, { version: 1, type: 'REMINDER' }, '/body/type', 'unknown_field'],
      [n.id, { version: 1, parentId: partnerId }, '/body/parentId', 'unknown_field'],
      [n.id, { version: 1, done: 'yes' }, '/body/done', 'wrong_type'],
      [n.id, { version: 1, dueDate: '2026-02-30' }, '/body/dueDate', 'invalid_format'],
      [r.id, { version: 1, dueDate: null }, '/body/dueDate', 'required'],
    ] as const) {
      const res = await put(admin, id, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    }
    expect((await get(admin, n.id)).json().version).toBe(1);
    expect((await get(admin, r.id)).json()).toMatchObject({ version: 1, dueDate: '2026-04-01' });
  });

  it('400 on bad list filters', async () => {
    for (const qs of [
      'done=maybe',
      'type=TODO',
      'dueBefore=2026-02-30',
      'limit=101',
      'cursor=x',
      'colour=red',
    ]) {
      const res = await t.request({ method: 'GET', url: `/v1/notes?${qs}`, token: admin.token });
      expect(res.statusCode, qs).toBe(400);
    }
  });
});

describe('notes: authentication and tenancy', () => {
  it('422 reference_not_found for a parent of another account, an unknown one, or the wrong parentType', async () => {
    const before = await auditCount(admin.accountId);
    for (const payload of [
      body({ parentId: otherPartnerId }),
      body({ parentId: 'ptr_01jd8x0000000000000000000' }),
      body({ parentType: 'CONTRACT', parentId: partnerId }),
      body({ parentType: 'PARTNER', parentId: contractId }),
    ]) {
      const res = await create(admin, payload);
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'reference_not_found' });
      expect(res.json().errors).toContainEqual(
        expect.objectContaining({ path: '/body/parentId', code: 'reference_not_found' }),
      );
    }
    expect(await auditCount(admin.accountId)).toBe(before);
  });
});

describe('notes: optimistic locking and idempotency', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const n = await newNote(admin);
    expect((await put(admin, n.id, { version: 1, title: 'First' })).statusCode).toBe(200);
    const events = await auditCount(admin.accountId, n.id);
    const stale = await put(admin, n.id, { version: 1, title: 'Second', done: true });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect((await get(admin, n.id)).json()).toMatchObject({
      title: 'First',
      version: 2,
      done: false,
    });
    expect(await auditCount(admin.accountId, n.id)).toBe(events);
  });

  it('412 when If-Match does not match, on PUT and DELETE', async () => {
    const n = await newNote(admin);
    const mismatch = await put(admin, n.id, { version: 1, title: 'Nope' }, { 'if-match': '"7"' });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await put(admin, n.id, { version: 1, title: 'Yes' }, { 'if-match': '"1"' });
    expect(ok.statusCode).toBe(200);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/notes/${n.id}`,
      token: admin.token,
      headers: { 'if-match': '"1"' },
    });
    expect(del.statusCode).toBe(412);
    const del2 = await t.request({
      method: 'DELETE',
      url: `/v1/notes/${n.id}`,
      token: admin.token,
      headers: { 'if-match': '"2"' },
    });
    expect(del2.statusCode).toBe(204);
  });

  it('replays a POST with the same Idempotency-Key and body, once stored', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    const headers = { 'idempotency-key': `note-${Date.now()}` };
    const payload = body({ parentId: p.id, title: 'Once' });
    const first = await create(owner, payload, headers);
    const again = await create(owner, payload, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    const list = (await t.request({ method: 'GET', url: '/v1/notes', token: owner.token })).json();
    expect(list.data).toHaveLength(1);
    const reused = await create(owner, { ...payload, title: 'Twice' }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
  });
});

describe('notes: lists', () => {
  it('filters by parent, type, done and dueBefore', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    const c = await newContract(t, owner, p.id);
    const mk = async (extra: Body) => {
      const res = await create(owner, {
        parentType: 'PARTNER',
        parentId: p.id,
        content: '',
        ...extra,
      });
      expect(res.statusCode).toBe(201);
      return res.json<{ id: string }>();
    };
    await mk({ title: 'P note' });
    await mk({ title: 'P reminder', type: 'REMINDER', dueDate: '2026-03-01' });
    await mk({ title: 'C note', parentType: 'CONTRACT', parentId: c.id, dueDate: '2026-05-01' });
    const done = await mk({
      title: 'C reminder',
      parentType: 'CONTRACT',
      parentId: c.id,
      type: 'REMINDER',
      dueDate: '2026-04-01',
    });
    expect((await put(owner, done.id, { version: 1, done: true })).statusCode).toBe(200);

    const titles = async (qs: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/notes?${qs}`, token: owner.token });
      expect(res.statusCode, qs).toBe(200);
      return res.json<{ data: { title: string }[] }>().data.map((n) => n.title);
    };
    expect(await titles('')).toEqual(['C reminder', 'C note', 'P reminder', 'P note']);
    expect(await titles('parentType=CONTRACT')).toEqual(['C reminder', 'C note']);
    expect(await titles(`parentId=${p.id}`)).toEqual(['P reminder', 'P note']);
    expect(await titles('type=REMINDER')).toEqual(['C reminder', 'P reminder']);
    expect(await titles('done=true')).toEqual(['C reminder']);
    expect(await titles('done=false&type=REMINDER')).toEqual(['P reminder']);
    expect(await titles('dueBefore=2026-04-02')).toEqual(['C reminder', 'P reminder']);
    expect(await titles('dueBefore=2026-04-01')).toEqual(['P reminder']);
  });

  it('pages newest first with a stable cursor', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    for (let i = 0; i < 5; i++) await create(owner, body({ parentId: p.id, title: `N${i}` }));
    const page = async (qs: string) =>
      (await t.request({ method: 'GET', url: `/v1/notes?${qs}`, token: owner.token })).json<{
        data: { title: string }[];
        nextCursor: string | null;
      }>();
    const page1 = await page('limit=2');
    expect(page1.data.map((n) => n.title)).toEqual(['N4', 'N3']);
    await create(owner, body({ parentId: p.id, title: 'inserted meanwhile' }));
    const page2 = await page(`limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((n) => n.title)).toEqual(['N2', 'N1']);
    const page3 = await page(`limit=2&cursor=${page2.nextCursor}`);
    expect(page3.data.map((n) => n.title)).toEqual(['N0']);
    expect(page3.nextCursor).toBeNull();
  });
});

describe('notes: audit and references', () => {
  it('writes one audit event per write, with the changed fields', async () => {
    const n = await newNote(member, { title: 'Audited' });
    await put(member, n.id, { version: 1, done: true });
    await t.request({ method: 'DELETE', url: `/v1/notes/${n.id}`, token: member.token });
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${n.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'note.deleted',
      'note.updated',
      'note.created',
    ]);
    expect(events[1].changes).toMatchObject({ done: { from: false, to: true } });
    expect(events[2].actor).toMatchObject({ type: 'user', userId: member.userId });
  });

  it('refuses to delete a partner or contract with notes (409 in_use), and allows it once they are gone', async () => {
    const owner = await createUser(t);
    const p = await newPartner(t, owner);
    const c = await newContract(t, owner, p.id);
    const onContract = (
      await create(owner, body({ parentType: 'CONTRACT', parentId: c.id }))
    ).json<{ id: string }>();
    const delContract = await t.request({
      method: 'DELETE',
      url: `/v1/contracts/${c.id}`,
      token: owner.token,
    });
    expect(delContract.statusCode).toBe(409);
    expect(delContract.json()).toMatchObject({ code: 'in_use' });
    expect(delContract.json().detail).toContain('1 notes');
    await t.request({ method: 'DELETE', url: `/v1/notes/${onContract.id}`, token: owner.token });
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/contracts/${c.id}`, token: owner.token }))
        .statusCode,
    ).toBe(204);

    const onPartner = (await create(owner, body({ parentId: p.id }))).json<{ id: string }>();
    const delPartner = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: owner.token,
    });
    expect(delPartner.statusCode).toBe(409);
    expect(delPartner.json()).toMatchObject({ code: 'in_use' });
    expect(delPartner.json().detail).toContain('1 notes');
    expect((await get(owner, onPartner.id)).statusCode).toBe(200);
    await t.request({ method: 'DELETE', url: `/v1/notes/${onPartner.id}`, token: owner.token });
    expect(
      (await t.request({ method: 'DELETE', url: `/v1/partners/${p.id}`, token: owner.token }))
        .statusCode,
    ).toBe(204);
  });
});
