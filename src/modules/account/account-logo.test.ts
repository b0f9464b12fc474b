import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { requestUpload, SAMPLES, upload } from '../files/files.test-support.js';

/**
 * The account's logo (`logoFileId` of the account settings): an uploaded image of the
 * account, set and cleared by PATCH, which cannot be deleted while it is the logo.
 */

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const path = '/v1/account/addresses';
type Settings = { version: number; logoFileId: string | null };

const read = async (user: TestUser) =>
  (await t.request({ method: 'GET', url: path, token: user.token })).json<Settings>();
const patch = (user: TestUser, payload: Record<string, unknown>) =>
  t.request({ method: 'PATCH', url: path, token: user.token, payload });
const deleteFile = (user: TestUser, id: string) =>
  t.request({ method: 'DELETE', url: `/v1/files/${id}`, token: user.token });

async function uploaded(user: TestUser, type: string, bytes: Buffer): Promise<string> {
  const { ticket, put } = await upload(t, user, type, bytes, 'logo');
  expect(put.statusCode).toBeLessThan(300);
  return ticket.fileId;
}

describe('account settings: logo', () => {
  it('is null at first; set to an uploaded image, it answers and audits it', async () => {
    const admin = await createUser(t);
    const before = await read(admin);
    expect(before.logoFileId).toBeNull();
    const png = await uploaded(admin, 'image/png', SAMPLES.png);
    const res = await patch(admin, { version: before.version, logoFileId: png });
    expect(res.statusCode).toBe(200);
    expect(res.headers.etag).toBe(`"${before.version + 1}"`);
    expect(res.json<Settings>()).toMatchObject({ logoFileId: png, version: before.version + 1 });
    expect((await read(admin)).logoFileId).toBe(png);
    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes'])
      .where('account_id', '=', admin.accountId)
      .where('action', '=', 'account.settings_changed')
      .executeTakeFirstOrThrow();
    expect(event.changes).toContain(png);
    // Other settings leave it alone.
    const other = await patch(admin, { version: before.version + 1, dateFormat: 'DD/MM/YYYY' });
    expect(other.json<Settings>().logoFileId).toBe(png);
  });

  it('refuses what is not an uploaded image of the account, naming logoFileId', async () => {
    const admin = await createUser(t);
    const stranger = await createUser(t);
    const pdf = await uploaded(admin, 'application/pdf', SAMPLES.pdf);
    const foreign = await uploaded(stranger, 'image/png', SAMPLES.png);
    const pending = (
      await requestUpload(t, admin, { fileName: 'x.png', contentType: 'image/png', size: 10 })
    ).json<{ fileId: string }>().fileId;
    const { version } = await read(admin);
    const cases: [unknown, number, string][] = [
      [pdf, 422, 'business_rule_violated'],
      [foreign, 422, 'reference_not_found'],
      ['fil_doesnotexist', 422, 'reference_not_found'],
      [pending, 409, 'state_conflict'],
      ['', 400, 'validation_failed'],
      [42, 400, 'validation_failed'],
    ];
    for (const [logoFileId, status, code] of cases) {
      const res = await patch(admin, { version, logoFileId });
      expect(res.statusCode, JSON.stringify(logoFileId)).toBe(status);
      expect(res.json()).toMatchObject({ code });
      expect(res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toContain(
        '/body/logoFileId',
      );
    }
    expect(await read(admin)).toMatchObject({ version, logoFileId: null });
    // Members may read it but not change it.
    const member = await createUser(t, { role: 'user', accountId: admin.accountId });
    const png = await uploaded(admin, 'image/png', SAMPLES.png);
    expect((await patch(member, { version, logoFileId: png })).statusCode).toBe(403);
  });

  it('keeps the logo file while it is the logo; cleared, the file can go', async () => {
    const admin = await createUser(t);
    const png = await uploaded(admin, 'image/png', SAMPLES.png);
    const spare = await uploaded(admin, 'image/png', SAMPLES.png);
    const { version } = await read(admin);
    expect((await patch(admin, { version, logoFileId: png })).statusCode).toBe(200);

    const refused = await deleteFile(admin, png);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'in_use',
      referencedBy: ['account settings'],
    });
    // Another image of the account is not affected.
    expect((await deleteFile(admin, spare)).statusCode).toBe(204);

    const cleared = await patch(admin, { version: version + 1, logoFileId: null });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json<Settings>().logoFileId).toBeNull();
    expect((await deleteFile(admin, png)).statusCode).toBe(204);
  });

  it('lets a delete and a new logo race without leaving a logo that is gone', async () => {
    const admin = await createUser(t);
    const png = await uploaded(admin, 'image/png', SAMPLES.png);
    const { version } = await read(admin);
    const [set, del] = await Promise.all([
      patch(admin, { version, logoFileId: png }),
      deleteFile(admin, png),
    ]);
    // Either the logo was set first (the delete is refused) or the file went first (the
    // logo is refused); never both.
    expect([set.statusCode, del.statusCode].sort()).toEqual(
      set.statusCode === 200 ? [200, 409] : [204, 422],
    );
    const after = await read(admin);
    if (set.statusCode === 200) expect(after.logoFileId).toBe(png);
    else expect(after.logoFileId).toBeNull();
  });
});
