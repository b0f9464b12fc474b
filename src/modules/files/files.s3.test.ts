import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { requireUploadedFile, storeGeneratedFile, systemActor } from './files.api.js';
import {
  SAMPLES,
  expectWholeReads,
  requestUpload,
  type UploadTicket,
} from './files.test-support.js';

/**
 * The S3 storage against a real S3-compatible server (s3rver) on a random port. s3rver does
 * not enforce the signed Content-Type and Content-Length of a presigned PUT (AWS S3 does),
 * which lets these tests show that the lazy check catches a wrong size or type anyway.
 */
const BUCKET = 'kontor-files';
let server: S3rver;
let s3Dir: string;
let endpoint: string;
let s3: S3Client;
let t: TestApp;
let user: TestUser;
let other: TestUser;

beforeAll(async () => {
  s3Dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-s3rver-'));
  server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: s3Dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
  s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials });
  t = await buildTestApp({
    env: {
      S3_BUCKET: BUCKET,
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
  });
  user = await createUser(t);
  other = await createUser(t);
});
afterAll(async () => {
  await t.close();
  s3.destroy();
  await server.close();
  fs.rmSync(s3Dir, { recursive: true, force: true });
});

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

async function ticketFor(contentType: string, size: number, fileName = 'f.bin') {
  const res = await requestUpload(t, user, { fileName, contentType, size });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<UploadTicket>();
}

function putTo(ticket: UploadTicket, bytes: Buffer, contentType?: string) {
  return fetch(ticket.uploadUrl, {
    method: 'PUT',
    body: bytes,
    headers: { ...ticket.headers, ...(contentType ? { 'Content-Type': contentType } : {}) },
  });
}

function downloadUrl(u: TestUser, id: string) {
  return t.request({ method: 'GET', url: `/v1/files/download-url?fileId=${id}`, token: u.token });
}

function getFile(id: string) {
  return t.request({ method: 'GET', url: `/v1/files/${id}`, token: user.token });
}

describe('S3 storage', () => {
  it('issues a presigned PUT with the content type and length signed', async () => {
    const ticket = await ticketFor('application/pdf', SAMPLES.pdf.length);
    const url = new URL(ticket.uploadUrl);
    expect(url.origin).toBe(endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/incoming/${ticket.key}`);
    expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect(ticket.headers).toEqual({ 'Content-Type': 'application/pdf' });
  });

  it('round trip: presigned upload, lazy check on first use, presigned download', async () => {
    const ticket = await ticketFor('application/pdf', SAMPLES.pdf.length, 'Rechnung März.pdf');
    expect((await downloadUrl(user, ticket.fileId)).json().code).toBe('state_conflict');
    const put = await putTo(ticket, SAMPLES.pdf);
    expect(put.status).toBe(200);
    expect((await getFile(ticket.fileId)).json().status).toBe('PENDING');

    const link = await downloadUrl(user, ticket.fileId);
    expect(link.statusCode, link.body).toBe(200);
    expect((await getFile(ticket.fileId)).json()).toMatchObject({
      status: 'UPLOADED',
      sha256: sha(SAMPLES.pdf),
    });
    expect(await exists(ticket.key)).toBe(true);
    expect(await exists(`incoming/${ticket.key}`)).toBe(false);

    const got = await fetch(link.json<{ url: string }>().url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(SAMPLES.pdf)).toBe(true);
    expect(got.headers.get('content-disposition')).toBe(
      `attachment; filename="Rechnung M_rz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`,
    );
    expect(got.headers.get('content-type')).toBe('application/pdf');

    const file = await requireUploadedFile(t.app.ctx, user.accountId, ticket.fileId);
    expect((await file.read()).equals(SAMPLES.pdf)).toBe(true);
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', '=', ticket.fileId)
      .orderBy('seq')
      .execute();
    expect(audit.map((e) => e.action)).toEqual(['file.upload_requested', 'file.uploaded']);
  });

  it('keeps the checked copy when the upload URL is used again afterwards', async () => {
    const ticket = await ticketFor('image/png', SAMPLES.png.length);
    await putTo(ticket, SAMPLES.png);
    await requireUploadedFile(t.app.ctx, user.accountId, ticket.fileId);
    const evil = Buffer.alloc(SAMPLES.png.length, 0x41);
    expect((await putTo(ticket, evil)).status).toBe(200);
    const file = await requireUploadedFile(t.app.ctx, user.accountId, ticket.fileId);
    expect((await file.read()).equals(SAMPLES.png)).toBe(true);
    expect(file.file.sha256).toBe(sha(SAMPLES.png));
  });

  it.each([
    ['bytes of another type', 'application/pdf', SAMPLES.png, SAMPLES.png.length, undefined, /PDF/],
    [
      'a larger body',
      'image/png',
      Buffer.concat([SAMPLES.png, Buffer.from('xx')]),
      SAMPLES.png.length,
      undefined,
      /size/,
    ],
    [
      'another Content-Type',
      'image/png',
      SAMPLES.png,
      SAMPLES.png.length,
      'image/jpeg',
      /image\/jpeg/,
    ],
    ['binary declared as CSV', 'text/csv', Buffer.from('a;b\n\0\0', 'latin1'), 6, undefined, /NUL/],
  ])(
    'rejects %s on first use: REJECTED, objects deleted, 422',
    async (_, type, bytes, declared, sent, reason) => {
      const ticket = await ticketFor(type, declared);
      expect((await putTo(ticket, bytes, sent)).status).toBe(200);
      const link = await downloadUrl(user, ticket.fileId);
      expect(link.statusCode).toBe(422);
      expect(link.json().code).toBe('content_mismatch');
      const file = (await getFile(ticket.fileId)).json();
      expect(file.status).toBe('REJECTED');
      expect(file.rejectionReason).toMatch(reason);
      expect(await exists(ticket.key)).toBe(false);
      expect(await exists(`incoming/${ticket.key}`)).toBe(false);
      await expect(
        requireUploadedFile(t.app.ctx, user.accountId, ticket.fileId, { field: 'fileId' }),
      ).rejects.toMatchObject({ code: 'content_mismatch' });
    },
  );

  it('answers 404 for another account’s file and deletes both objects', async () => {
    const ticket = await ticketFor('image/png', SAMPLES.png.length);
    await putTo(ticket, SAMPLES.png);
    expect((await downloadUrl(other, ticket.fileId)).statusCode).toBe(404);
    expect((await getFile(ticket.fileId)).json().status).toBe('PENDING');
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/files/${ticket.fileId}`,
      token: user.token,
    });
    expect(del.statusCode).toBe(204);
    expect(await exists(`incoming/${ticket.key}`)).toBe(false);
    expect(await exists(ticket.key)).toBe(false);
  });

  it('stores generated files directly', async () => {
    const file = await storeGeneratedFile(t.app.ctx, systemActor(user.accountId), {
      fileName: 'seite-1.png',
      contentType: 'image/png',
      bytes: SAMPLES.png,
    });
    expect(await exists(file.key)).toBe(true);
    const got = await requireUploadedFile(t.app.ctx, user.accountId, file.id);
    expect((await got.read()).equals(SAMPLES.png)).toBe(true);
    // Whole, as the DATEV export reads its PDFs.
    await expectWholeReads(t.app.ctx.storage, file.key, SAMPLES.png);
  });

  it('has no use for the embedded signed routes', async () => {
    const res = await t.app.inject({
      method: 'PUT',
      url: '/v1/files/upload?token=x.y',
      payload: SAMPLES.pdf,
      headers: { 'content-type': 'application/pdf' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('url_invalid');
  });
});
