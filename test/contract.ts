/**
 * The hostile matrix every account-scoped resource answers the same way (docs/api-conventions.md),
 * registered for a resource from a small description instead of retyped per test file:
 * tenancy, unknown fields, stale versions, idempotent replays and the problem shape. Each case
 * is its own `it`, named after the resource. Credentials and roles are checked for every route
 * at once from the route table (test/foundation.test.ts, "deny by default").
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createUser, type TestApp, type TestUser } from './helpers.js';

export interface ResourceContract {
  /** Singular, for the test names (`partner`). */
  name: string;
  /** The collection (`/v1/partners`); records live at `${path}/{id}`. */
  path: string;
  /**
   * A valid create body (given a user of the account, for bodies that reference records); each
   * call may answer another (unique names), the replay test sends one body twice.
   */
  create: (
    t: TestApp,
    user: TestUser,
  ) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** How a record changes: the method and a valid body without `version`. */
  update: { method: 'PUT' | 'PATCH'; body: Record<string, unknown> };
  /** A field whose value the update changes, to see that refused writes change nothing. */
  changedField: string;
  /** Fields only the create answer carries (a secret shown once); reads are compared without them. */
  shownOnce?: string[];
}

type Json = Record<string, unknown>;

/** The RFC 9457 shape every error has, with its content type. */
/**
 * The RFC 9457 shape of an answer, with its `code`; answers the problem. `detail` is required
 * unless `detail: 'optional'` (the 507 of a full disk says no more than its title).
 */
export function expectProblem(
  res: { statusCode: number; headers: Json; json: () => unknown },
  code: string,
  opts: { detail?: 'required' | 'optional' } = {},
) {
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  const body = res.json() as Json;
  expect(body).toMatchObject({ status: res.statusCode, code });
  const members = ['type', 'title', 'requestId'];
  if (opts.detail !== 'optional' || 'detail' in body) members.push('detail');
  for (const member of members) expect(typeof body[member], member).toBe('string');
  return body;
}

export function describeResourceContract(getApp: () => TestApp, spec: ResourceContract): void {
  const { name, path } = spec;
  let t: TestApp;
  let owner: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = getApp();
    owner = await createUser(t);
    stranger = await createUser(t);
  });

  const create = async (user: TestUser, headers: Record<string, string> = {}) =>
    t.request({
      method: 'POST',
      url: path,
      token: user.token,
      headers,
      payload: await spec.create(t, user),
    });
  /** A new record of `user`'s account, as the create answered it. */
  const created = async (user: TestUser) => {
    const res = await create(user);
    expect(res.statusCode, res.body).toBe(201);
    const record = res.json<Json>();
    for (const field of spec.shownOnce ?? []) delete record[field];
    return record;
  };
  const read = (user: TestUser, id: string) =>
    t.request({ method: 'GET', url: `${path}/${id}`, token: user.token });
  const update = (
    user: TestUser,
    id: string,
    version: number,
    headers: Record<string, string> = {},
  ) =>
    t.request({
      method: spec.update.method,
      url: `${path}/${id}`,
      token: user.token,
      headers,
      payload: { ...spec.update.body, version },
    });

  describe(`${name}: the hostile matrix (test/contract.ts)`, () => {
    it(`answers 404 for another account’s ${name} on read, update and delete, and changes nothing`, async () => {
      const record = await created(stranger);
      const id = String(record.id);
      for (const res of [
        await read(owner, id),
        await update(owner, id, 1),
        await t.request({ method: 'DELETE', url: `${path}/${id}`, token: owner.token }),
      ]) {
        expect(res.statusCode).toBe(404);
        expectProblem(res, 'not_found');
      }
      const list = (
        await t.request({ method: 'GET', url: `${path}?limit=100`, token: owner.token })
      ).json<{
        data: Json[];
      }>();
      expect(list.data.map((r) => r.id)).not.toContain(id);
      expect((await read(stranger, id)).json()).toEqual(record);
    });

    it(`400 naming an unknown field on create and on update; nothing is written`, async () => {
      const before = (
        await t.request({ method: 'GET', url: `${path}?limit=100`, token: owner.token })
      ).json<{
        data: Json[];
      }>().data.length;
      const refused = await t.request({
        method: 'POST',
        url: path,
        token: owner.token,
        payload: { ...(await spec.create(t, owner)), surprise: 1 },
      });
      expect(refused.statusCode).toBe(400);
      const problem = expectProblem(refused, 'validation_failed');
      expect(JSON.stringify(problem.errors)).toContain('surprise');
      const after = (
        await t.request({ method: 'GET', url: `${path}?limit=100`, token: owner.token })
      ).json<{
        data: Json[];
      }>().data.length;
      expect(after).toBe(before);

      const record = await created(owner);
      const change = await t.request({
        method: spec.update.method,
        url: `${path}/${String(record.id)}`,
        token: owner.token,
        payload: { ...spec.update.body, version: record.version, surprise: 1 },
      });
      expect(change.statusCode).toBe(400);
      expect(JSON.stringify(expectProblem(change, 'validation_failed').errors)).toContain(
        'surprise',
      );
      expect((await read(owner, String(record.id))).json()).toEqual(record);
    });

    it(`409 for a stale version and 412 for a stale If-Match; the ${name} keeps the winner`, async () => {
      const record = await created(owner);
      const id = String(record.id);
      const first = await update(owner, id, Number(record.version));
      expect(first.statusCode, first.body).toBe(200);
      const winner = first.json<Json>();
      const stale = await update(owner, id, Number(record.version));
      expect(stale.statusCode).toBe(409);
      expect(expectProblem(stale, 'version_conflict')).toMatchObject({
        currentVersion: winner.version,
      });
      const mismatch = await update(owner, id, Number(winner.version), { 'if-match': '"999"' });
      expect(mismatch.statusCode).toBe(412);
      expectProblem(mismatch, 'precondition_failed');
      const del = await t.request({
        method: 'DELETE',
        url: `${path}/${id}`,
        token: owner.token,
        headers: { 'if-match': `"${String(record.version)}"` },
      });
      expect(del.statusCode).toBe(412);
      expect((await read(owner, id)).json()).toEqual(winner);
    });

    it(`replays a create with the same Idempotency-Key, once, and refuses the key for another body`, async () => {
      const key = `contract-${name.replace(/\W+/g, '-')}-${Date.now()}`;
      const body = await spec.create(t, owner);
      const post = (payload: Json) =>
        t.request({
          method: 'POST',
          url: path,
          token: owner.token,
          headers: { 'idempotency-key': key },
          payload,
        });
      const first = await post(body);
      const again = await post(body);
      expect(first.statusCode, first.body).toBe(201);
      expect(again.statusCode).toBe(201);
      expect(again.json()).toEqual(first.json());
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const other = await post({
        ...body,
        [spec.changedField]: spec.update.body[spec.changedField],
      });
      expect(other.statusCode).toBe(422);
      expectProblem(other, 'idempotency_key_reused');
    });
  });
}
