import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { HOUR, ManualClock, MINUTE } from '../../shared/clock.js';
import { expireAbandonedUploads } from './expire-uploads.job.js';
import { SAMPLES, requestUpload, upload } from './files.test-support.js';

let clock: ManualClock;
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-06-01T08:00:00Z'));
  t = await buildTestApp({ clock });
  user = await createUser(t);
});
afterAll(() => t.close());

const usedBytes = async () =>
  (await t.request({ method: 'GET', url: '/v1/usage', token: user.token })).json<{
    storage: { usedBytes: number };
  }>().storage.usedBytes;

const status = async (fileId: string) =>
  (await t.request({ method: 'GET', url: `/v1/files/${fileId}`, token: user.token })).statusCode;

describe('abandoned uploads', () => {
  it('removes PENDING files an hour past their upload URL, and nothing else', async () => {
    const abandoned = (
      await requestUpload(t, user, {
        fileName: 'never.pdf',
        contentType: 'application/pdf',
        size: 5000,
      })
    ).json<{ fileId: string; expiresAt: string }>();
    const arrived = (await upload(t, user, 'application/pdf', SAMPLES.pdf)).ticket.fileId;
    expect(await usedBytes()).toBe(5000 + SAMPLES.pdf.length);

    // Expired, but within the hour's grace: kept (an S3 upload may still be checked).
    clock.advance(Date.parse(abandoned.expiresAt) - clock.now().getTime() + 30 * MINUTE);
    const late = (
      await requestUpload(t, user, { fileName: 'late.csv', contentType: 'text/csv', size: 10 })
    ).json<{ fileId: string }>();
    expect(await expireAbandonedUploads(t.app.ctx)).toEqual({ expired: 0 });

    clock.advance(HOUR);
    const before = await auditCount(t, user.accountId, abandoned.fileId);
    expect(await expireAbandonedUploads(t.app.ctx)).toEqual({ expired: 1 });
    expect(await status(abandoned.fileId)).toBe(404);
    expect(await status(arrived)).toBe(200);
    expect(await status(late.fileId)).toBe(200);
    expect(await auditCount(t, user.accountId, abandoned.fileId)).toBe(before + 1);
    expect(await usedBytes()).toBe(SAMPLES.pdf.length + 10);
    // A second run finds nothing more.
    expect(await expireAbandonedUploads(t.app.ctx)).toEqual({ expired: 0 });
  });
});
