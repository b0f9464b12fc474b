import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import type { ImportView } from './bank-imports.schemas.js';
import { retainedUntil } from './bank-imports.retention.js';
import { mt940, uploadStatement, type Line } from './bank-imports.test-support.js';

/**
 * Deleting the statement file of an import (issue 11): an ACTIVE import keeps it in use, a
 * FINALIZED one keeps it for the GoBD retention period and says until when, a DISCARDED one
 * lets it go — with the discarded import, which the foreign key would otherwise keep.
 */

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const LINES: Line[] = [
  { date: '2026-03-02', cents: 119_000, name: 'Müller GmbH', purpose: 'Rechnung 1', ref: 'R1' },
  { date: '2026-03-05', cents: -4_999, name: 'Papierhaus', purpose: 'Bürobedarf', ref: 'R2' },
];

async function startImport(user: TestUser): Promise<{ imp: ImportView; fileId: string }> {
  const file = await uploadStatement(t, user, mt940(LINES));
  const res = await t.request({
    method: 'POST',
    url: '/v1/bank-statement-imports',
    token: user.token,
    payload: { ...file, periodFrom: '2026-03-01', periodTo: '2026-03-31', autoApprove: true },
  });
  expect(res.statusCode, res.body).toBe(201);
  return { imp: res.json<ImportView>(), fileId: file.fileId };
}

const deleteFile = (user: TestUser, fileId: string) =>
  t.request({ method: 'DELETE', url: `/v1/files/${fileId}`, token: user.token });

const getFile = (user: TestUser, fileId: string) =>
  t.request({ method: 'GET', url: `/v1/files/${fileId}`, token: user.token });

const getImport = (user: TestUser, id: string) =>
  t.request({ method: 'GET', url: `/v1/bank-statement-imports/${id}`, token: user.token });

describe('statement files of bank imports', () => {
  it('keeps the file of an ACTIVE import in use (409 in_use)', async () => {
    const user = await createUser(t);
    const { imp, fileId } = await startImport(user);
    const refused = await deleteFile(user, fileId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'in_use',
      referencedBy: ['1 bank statement imports'],
    });
    expect(refused.json<{ detail: string }>().detail).toContain('finalize or discard it first');
    expect(refused.json()).not.toHaveProperty('retainedUntil');
    expect((await getFile(user, fileId)).statusCode).toBe(200);
    expect((await getImport(user, imp.id)).json()).toMatchObject({ status: 'ACTIVE' });
  });

  it('deletes the file of a DISCARDED import, and the discarded import with it', async () => {
    const user = await createUser(t);
    const { imp, fileId } = await startImport(user);
    const discard = await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${imp.id}`,
      token: user.token,
    });
    expect(discard.statusCode, discard.body).toBe(204);

    // Another account cannot delete it, and nothing of the import goes.
    const other = await createUser(t);
    expect((await deleteFile(other, fileId)).statusCode).toBe(404);
    expect((await getImport(user, imp.id)).json()).toMatchObject({ status: 'DISCARDED' });

    const deleted = await deleteFile(user, fileId);
    expect(deleted.statusCode, deleted.body).toBe(204);
    expect((await getFile(user, fileId)).statusCode).toBe(404);
    expect((await getImport(user, imp.id)).statusCode).toBe(404);
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'resource_id'])
      .where('account_id', '=', user.accountId)
      .where('action', 'in', ['bank_import.deleted', 'file.deleted'])
      .orderBy('seq')
      .execute();
    expect(events).toEqual([
      { action: 'bank_import.deleted', resource_id: imp.id },
      { action: 'file.deleted', resource_id: fileId },
    ]);

    // The slot is free and the same statement imports again from a new upload.
    expect((await startImport(user)).imp.status).toBe('ACTIVE');
  });

  it('keeps the file of a FINALIZED import under GoBD retention and says until when', async () => {
    const user = await createUser(t);
    const { imp, fileId } = await startImport(user);
    const done = await t.request({
      method: 'POST',
      url: `/v1/bank-statement-imports/${imp.id}/finalize`,
      token: user.token,
      payload: { version: imp.version },
    });
    expect(done.statusCode, done.body).toBe(200);
    const finalizedAt = done.json<{ finalizedAt: string }>().finalizedAt;
    const until = `${Number(new Intl.DateTimeFormat('en', { timeZone: 'Europe/Berlin', year: 'numeric' }).format(new Date(finalizedAt))) + 8}-12-31`;

    const refused = await deleteFile(user, fileId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'in_use',
      referencedBy: ['1 bank statement imports'],
      retainedUntil: until,
    });
    const { detail } = refused.json<{ detail: string }>();
    expect(detail).toContain('GoBD (§147 AO)');
    expect(detail).toContain(`until ${until}`);
    expect((await getFile(user, fileId)).statusCode).toBe(200);
    expect((await getImport(user, imp.id)).json()).toMatchObject({ status: 'FINALIZED' });
  });

  it('counts eight years from the end of the German calendar year of booking', () => {
    expect(retainedUntil('2026-11-24T10:00:00.000Z')).toBe('2034-12-31');
    expect(retainedUntil('2026-01-01T00:00:00.000Z')).toBe('2034-12-31');
    // 23:30 UTC on 31 December is 00:30 on 1 January in Berlin: booked in 2027.
    expect(retainedUntil('2026-12-31T23:30:00.000Z')).toBe('2035-12-31');
  });
});
