import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../shared/ids.js';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import {
  SAMPLES,
  expectWholeReads,
  localPath,
  putBytes,
  requestUpload,
  tamper,
  tokenOf,
  upload,
  withToken,
  type UploadTicket,
} from './files.test-support.js';
import { fileKey } from './keys.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
});
afterAll(() => t.close());

const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const stored = (key: string) => path.join(t.dataDir, 'files', ...key.split('/'));
const tmpFiles = () => {
  const dir = path.join(t.dataDir, 'files', '.tmp');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
};

function getFile(user: TestUser, id: string) {
  return t.request({ method: 'GET', url: `/v1/files/${id}`, token: user.token });
}
function downloadUrl(user: TestUser, id: string) {
  return t.request({
    method: 'GET',
    url: `/v1/files/download-url?fileId=${id}`,
    token: user.token,
  });
}
function remove(user: TestUser, id: string) {
  return t.request({ method: 'DELETE', url: `/v1/files/${id}`, token: user.token });
}

describe('POST /v1/files/upload-url', () => {
  const valid = { fileName: 'Rechnung März.pdf', contentType: 'application/pdf', size: 1000 };

  it('creates a PENDING file under a generated key and answers a signed PUT target', async () => {
    const before = await auditCount(t, admin.accountId);
    const res = await requestUpload(t, member, valid);
    expect(res.statusCode).toBe(201);
    const ticket = res.json<UploadTicket>();
    expect(ticket.fileId).toMatch(/^fil_[0-9a-z]{26}$/);
    expect(ticket.key).toBe(`${admin.accountId}/${ticket.fileId}`);
    expect(ticket.method).toBe('PUT');
    expect(ticket.headers).toEqual({ 'Content-Type': 'application/pdf' });
    expect(ticket.uploadUrl).toMatch(/^http:\/\/127\.0\.0\.1:3000\/v1\/files\/upload\?token=/);
    const ttl = Date.parse(ticket.expiresAt) - Date.now();
    expect(ttl).toBeGreaterThan(895_000);
    expect(ttl).toBeLessThanOrEqual(900_000);
    const file = (await getFile(admin, ticket.fileId)).json();
    expect(file).toMatchObject({
      id: ticket.fileId,
      key: ticket.key,
      fileName: 'Rechnung März.pdf',
      contentType: 'application/pdf',
      size: 1000,
      status: 'PENDING',
      sha256: null,
    });
    expect(await auditCount(t, admin.accountId)).toBe(before + 1);
    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .selectAll()
      .where('resource_id', '=', ticket.fileId)
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({ action: 'file.upload_requested', actor_id: member.userId });
  });

  it.each([
    [{ ...valid, fileName: undefined }, '/body/fileName', 'required'],
    [{ ...valid, contentType: undefined }, '/body/contentType', 'required'],
    [{ ...valid, size: undefined }, '/body/size', 'required'],
    [{ ...valid, extra: 1 }, '/body/extra', 'unknown_field'],
    [{ ...valid, fileName: '' }, '/body/fileName', 'too_short'],
    [{ ...valid, fileName: 'x'.repeat(201) }, '/body/fileName', 'too_long'],
    [{ ...valid, fileName: 42 }, '/body/fileName', 'wrong_type'],
    [{ ...valid, fileName: '../..' }, '/body/fileName', 'invalid_value'],
    [{ ...valid, fileName: '\u0007\u202e' }, '/body/fileName', 'invalid_value'],
    [{ ...valid, contentType: 'text/html' }, '/body/contentType', 'not_in_enum'],
    [{ ...valid, contentType: 'application/octet-stream' }, '/body/contentType', 'not_in_enum'],
    [{ ...valid, contentType: 'APPLICATION/PDF' }, '/body/contentType', 'not_in_enum'],
    [{ ...valid, size: 0 }, '/body/size', 'too_small'],
    [{ ...valid, size: -5 }, '/body/size', 'too_small'],
    [{ ...valid, size: 1.5 }, '/body/size', 'wrong_type'],
    [{ ...valid, size: '100' }, '/body/size', 'wrong_type'],
  ])('refuses %j with 400 naming %s', async (payload, pointer, code) => {
    const res = await requestUpload(t, admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path: pointer, code }));
  });

  it('answers 413 naming size above MAX_UPLOAD_BYTES, and accepts exactly the maximum', async () => {
    const max = t.app.ctx.config.maxUploadBytes;
    const res = await requestUpload(t, admin, { ...valid, size: max + 1 });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toMatchObject({
      code: 'payload_too_large',
      errors: [{ path: '/body/size', code: 'too_large' }],
    });
    expect((await requestUpload(t, admin, { ...valid, size: max })).statusCode).toBe(201);
  });

  it('keeps only a sanitised base name as metadata; the key never comes from it', async () => {
    const res = await requestUpload(t, admin, {
      ...valid,
      // NUL itself is refused for every string before any route (issue 11); other control
      // characters reach the sanitiser.
      fileName: '../../etc/\u202epasswd\u0007  x.pdf',
    });
    expect(res.statusCode).toBe(201);
    const { fileId, key } = res.json<UploadTicket>();
    expect(key).toBe(`${admin.accountId}/${fileId}`);
    expect((await getFile(admin, fileId)).json().fileName).toBe('passwd x.pdf');
  });

  it('needs a bearer token and still accepts JSON only', async () => {
    const anonymous = await t.request({
      method: 'POST',
      url: '/v1/files/upload-url',
      payload: valid,
    });
    expect(anonymous.statusCode).toBe(401);
    const raw = await t.request({
      method: 'POST',
      url: '/v1/files/upload-url',
      token: admin.token,
      payload: SAMPLES.pdf,
      headers: { 'content-type': 'application/pdf' },
    });
    expect(raw.statusCode).toBe(415);
    expect(raw.json().code).toBe('unsupported_media_type');
  });
});

describe('the embedded storage round trip', () => {
  it('uploads, lists as UPLOADED with its SHA-256, and downloads the same bytes', async () => {
    const { ticket, put } = await upload(
      t,
      member,
      'application/pdf',
      SAMPLES.pdf,
      'Vertrag «Ü».pdf',
    );
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      id: ticket.fileId,
      status: 'UPLOADED',
      sha256: sha(SAMPLES.pdf),
      size: SAMPLES.pdf.length,
    });
    expect(fs.readFileSync(stored(ticket.key)).equals(SAMPLES.pdf)).toBe(true);
    expect(tmpFiles()).toEqual([]);

    const list = await t.request({
      method: 'GET',
      url: '/v1/files?status=UPLOADED',
      token: admin.token,
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toContainEqual(
      expect.objectContaining({ id: ticket.fileId, status: 'UPLOADED', sha256: sha(SAMPLES.pdf) }),
    );

    const link = await downloadUrl(member, ticket.fileId);
    expect(link.statusCode).toBe(200);
    const { url, expiresAt } = link.json<{ url: string; expiresAt: string }>();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:3000\/v1\/files\/download\?token=/);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(895_000);
    const got = await t.app.inject({ method: 'GET', url: localPath(url) });
    expect(got.statusCode).toBe(200);
    expect(got.rawPayload.equals(SAMPLES.pdf)).toBe(true);
    expect(got.headers).toMatchObject({
      'content-type': 'application/pdf',
      'content-length': String(SAMPLES.pdf.length),
      'x-content-type-options': 'nosniff',
      'content-disposition': `attachment; filename="Vertrag ___.pdf"; filename*=UTF-8''Vertrag%20%C2%AB%C3%9C%C2%BB.pdf`,
    });

    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('resource_id', '=', ticket.fileId)
      .orderBy('seq')
      .execute();
    expect(audit).toEqual([
      { action: 'file.upload_requested', actor_type: 'user' },
      { action: 'file.uploaded', actor_type: 'system' },
    ]);
  });

  it.each([
    ['image/png', SAMPLES.png],
    ['image/jpeg', SAMPLES.jpeg],
    ['image/webp', SAMPLES.webp],
    ['text/csv', SAMPLES.csv],
    ['text/plain', SAMPLES.mt940],
    ['application/xml', SAMPLES.xml],
    ['text/xml', Buffer.from('<Document/>')],
    ['text/csv', Buffer.from('Datum;Betrag\n01.03.2025;12,00\n', 'latin1')],
  ])('accepts genuine %s', async (contentType, bytes) => {
    const { put } = await upload(t, admin, contentType, bytes);
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json().status).toBe('UPLOADED');
  });

  it('accepts a charset parameter on the Content-Type of text uploads', async () => {
    const res = await requestUpload(t, admin, {
      fileName: 'umsaetze.csv',
      contentType: 'text/csv',
      size: SAMPLES.csv.length,
    });
    const put = await putBytes(t, res.json().uploadUrl, SAMPLES.csv, 'text/csv; charset=utf-8');
    expect(put.statusCode).toBe(200);
  });

  it('streams a body without Content-Length and still enforces the declared size', async () => {
    const res = await requestUpload(t, admin, {
      fileName: 'a.pdf',
      contentType: 'application/pdf',
      size: SAMPLES.pdf.length,
    });
    const { uploadUrl } = res.json<UploadTicket>();
    const streamed = (bytes: Buffer) =>
      t.app.inject({
        method: 'PUT',
        url: localPath(uploadUrl),
        payload: Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]),
        headers: { 'content-type': 'application/pdf' },
      });
    const long = await streamed(Buffer.concat([SAMPLES.pdf, Buffer.from('more')]));
    expect(long.statusCode).toBe(413);
    const short = await streamed(SAMPLES.pdf.subarray(0, 20));
    expect(short.statusCode).toBe(422);
    expect(short.json().code).toBe('content_mismatch');
    expect(tmpFiles()).toEqual([]);
    const ok = await streamed(SAMPLES.pdf);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().sha256).toBe(sha(SAMPLES.pdf));
  });

  it('answers 409 state_conflict to a second upload to the same URL', async () => {
    const { ticket, put } = await upload(t, admin, 'image/png', SAMPLES.png);
    expect(put.statusCode).toBe(200);
    const again = await putBytes(t, ticket.uploadUrl, SAMPLES.png, 'image/png');
    expect(again.statusCode).toBe(409);
    expect(again.json().code).toBe('state_conflict');
    expect(fs.readFileSync(stored(ticket.key)).equals(SAMPLES.png)).toBe(true);
  });
});

describe('checking the uploaded bytes', () => {
  async function refused(contentType: string, bytes: Buffer) {
    const { ticket, put } = await upload(t, admin, contentType, bytes);
    expect(put.statusCode, put.body).toBe(422);
    expect(put.json().code).toBe('content_mismatch');
    expect(fs.existsSync(stored(ticket.key))).toBe(false);
    expect(tmpFiles()).toEqual([]);
    return ticket;
  }

  it('rejects bytes of another type (magic numbers), keeps nothing and marks the file REJECTED', async () => {
    const ticket = await refused('application/pdf', SAMPLES.png);
    const file = (await getFile(admin, ticket.fileId)).json();
    expect(file).toMatchObject({ status: 'REJECTED', sha256: null });
    expect(file.rejectionReason).toMatch(/PDF/);
    const retry = await putBytes(t, ticket.uploadUrl, SAMPLES.png, 'application/pdf');
    expect(retry.statusCode).toBe(409);
    const link = await downloadUrl(admin, ticket.fileId);
    expect(link.statusCode).toBe(422);
    expect(link.json().code).toBe('content_mismatch');
  });

  it.each([
    ['image/png', SAMPLES.jpeg],
    ['image/jpeg', SAMPLES.png],
    ['image/webp', Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE'), Buffer.alloc(8)])],
    ['application/xml', Buffer.from('{"not": "xml"}')],
    ['text/csv', Buffer.from('a;b\n1;\u0000\n', 'latin1')],
    ['text/plain', Buffer.concat([SAMPLES.mt940, Buffer.from([0, 1, 2])])],
    ['text/csv', SAMPLES.pdf],
    ['text/plain', Buffer.from('PK\u0003\u0004 a zip archive', 'latin1')],
  ])('rejects bytes declared as %s that are not', async (contentType, bytes) => {
    await refused(contentType, bytes);
  });

  it('refuses a body of another size or Content-Type, leaving the file PENDING for a retry', async () => {
    const res = await requestUpload(t, admin, {
      fileName: 'a.pdf',
      contentType: 'application/pdf',
      size: SAMPLES.pdf.length,
    });
    const { fileId, key, uploadUrl } = res.json<UploadTicket>();
    const longer = await putBytes(
      t,
      uploadUrl,
      Buffer.concat([SAMPLES.pdf, Buffer.from('x')]),
      'application/pdf',
    );
    expect(longer.statusCode).toBe(413);
    expect(longer.json().code).toBe('payload_too_large');
    const shorter = await putBytes(t, uploadUrl, SAMPLES.pdf.subarray(1), 'application/pdf');
    expect(shorter.statusCode).toBe(422);
    expect(shorter.json().code).toBe('content_mismatch');
    const wrongType = await putBytes(t, uploadUrl, SAMPLES.pdf, 'image/png');
    expect(wrongType.statusCode).toBe(415);
    expect(wrongType.json().code).toBe('unsupported_media_type');
    const noType = await putBytes(t, uploadUrl, SAMPLES.pdf, undefined);
    expect(noType.statusCode).toBe(415);
    const json = await putBytes(t, uploadUrl, SAMPLES.pdf, 'application/json');
    expect(json.statusCode).toBe(415);
    expect(fs.existsSync(stored(key))).toBe(false);
    expect((await getFile(admin, fileId)).json().status).toBe('PENDING');
    expect((await downloadUrl(admin, fileId)).statusCode).toBe(409);
    const ok = await putBytes(t, uploadUrl, SAMPLES.pdf, 'application/pdf');
    expect(ok.statusCode).toBe(200);
  });
});

describe('signed URLs', () => {
  let ticket: UploadTicket;
  beforeAll(async () => {
    const res = await requestUpload(t, admin, {
      fileName: 'a.pdf',
      contentType: 'application/pdf',
      size: SAMPLES.pdf.length,
    });
    ticket = res.json<UploadTicket>();
  });

  it('refuses a missing, malformed or tampered upload token with 403 url_invalid', async () => {
    const token = tokenOf(ticket.uploadUrl);
    const missing = await t.app.inject({
      method: 'PUT',
      url: '/v1/files/upload',
      payload: SAMPLES.pdf,
      headers: { 'content-type': 'application/pdf' },
    });
    expect(missing.statusCode).toBe(400);
    const lastChar = token.endsWith('A') ? 'B' : 'A';
    for (const forged of [
      'nonsense',
      `${token}x`,
      token.slice(0, -1) + lastChar,
      tamper(token, { s: SAMPLES.pdf.length + 1 }),
      tamper(token, { t: 'image/png' }),
      tamper(token, { e: 4_000_000_000 }),
    ]) {
      const res = await putBytes(
        t,
        withToken(ticket.uploadUrl, forged),
        SAMPLES.pdf,
        'application/pdf',
      );
      expect(res.statusCode, forged).toBe(403);
      expect(res.json().code).toBe('url_invalid');
    }
  });

  it('refuses a token of account A altered to name account B’s file', async () => {
    const res = await requestUpload(t, other, {
      fileName: 'b.pdf',
      contentType: 'application/pdf',
      size: SAMPLES.pdf.length,
    });
    const theirs = res.json<UploadTicket>();
    const forged = tamper(tokenOf(ticket.uploadUrl), {
      f: theirs.fileId,
      a: other.accountId,
      k: theirs.key,
    });
    const put = await putBytes(
      t,
      withToken(ticket.uploadUrl, forged),
      SAMPLES.pdf,
      'application/pdf',
    );
    expect(put.statusCode).toBe(403);
    expect(put.json().code).toBe('url_invalid');
    expect((await getFile(other, theirs.fileId)).json().status).toBe('PENDING');
  });

  it('does not accept a download token as an upload token, nor the reverse', async () => {
    const { ticket: done } = await upload(t, admin, 'application/pdf', SAMPLES.pdf);
    const { url } = (await downloadUrl(admin, done.fileId)).json<{ url: string }>();
    const asUpload = await putBytes(
      t,
      withToken(ticket.uploadUrl, tokenOf(url)),
      SAMPLES.pdf,
      'application/pdf',
    );
    expect(asUpload.statusCode).toBe(403);
    const asDownload = await t.app.inject({
      method: 'GET',
      url: `/v1/files/download?token=${tokenOf(done.uploadUrl)}`,
    });
    expect(asDownload.statusCode).toBe(403);
    expect(asDownload.json().code).toBe('url_invalid');
  });

  it('refuses a tampered download token', async () => {
    const { ticket: done } = await upload(t, admin, 'application/pdf', SAMPLES.pdf);
    const { url } = (await downloadUrl(admin, done.fileId)).json<{ url: string }>();
    const res = await t.app.inject({
      method: 'GET',
      url: localPath(withToken(url, tamper(tokenOf(url), { e: 4_000_000_000 }))),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('url_invalid');
  });

  it('stops working when deleted: the download URL answers 404', async () => {
    const { ticket: done } = await upload(t, admin, 'application/pdf', SAMPLES.pdf);
    const { url } = (await downloadUrl(admin, done.fileId)).json<{ url: string }>();
    expect((await remove(admin, done.fileId)).statusCode).toBe(204);
    const res = await t.app.inject({ method: 'GET', url: localPath(url) });
    expect(res.statusCode).toBe(404);
  });
});

describe('listing and reading', () => {
  it('pages newest first and filters by status, contentType and q', async () => {
    const u = await createUser(t);
    const ids: string[] = [];
    for (const [name, type, bytes] of [
      ['Kontoauszug Januar.sta', 'text/plain', SAMPLES.mt940],
      ['Logo.png', 'image/png', SAMPLES.png],
      ['Rechnung Müller.pdf', 'application/pdf', SAMPLES.pdf],
    ] as const)
      ids.push((await upload(t, u, type, bytes, name)).ticket.fileId);
    const pending = (
      await requestUpload(t, u, { fileName: 'later.csv', contentType: 'text/csv', size: 10 })
    ).json<UploadTicket>();
    const list = async (query: string) => {
      const res = await t.request({ method: 'GET', url: `/v1/files?${query}`, token: u.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json<{ data: { id: string }[]; nextCursor: string | null }>();
    };
    const first = await list('limit=2');
    expect(first.data.map((f) => f.id)).toEqual([pending.fileId, ids[2]]);
    const second = await list(`limit=2&cursor=${first.nextCursor}`);
    expect(second.data.map((f) => f.id)).toEqual([ids[1], ids[0]]);
    expect(second.nextCursor).toBeNull();
    expect((await list('status=PENDING')).data.map((f) => f.id)).toEqual([pending.fileId]);
    expect((await list('contentType=image/png')).data.map((f) => f.id)).toEqual([ids[1]]);
    expect((await list('q=muller')).data.map((f) => f.id)).toEqual([ids[2]]);
    expect((await list('q=KONTO')).data.map((f) => f.id)).toEqual([ids[0]]);
    const bad = await t.request({ method: 'GET', url: '/v1/files?status=LOST', token: u.token });
    expect(bad.statusCode).toBe(400);
  });

  it('answers 404 for another account’s file id on get, download-url and delete', async () => {
    const { ticket } = await upload(t, admin, 'application/pdf', SAMPLES.pdf);
    for (const res of [
      await getFile(other, ticket.fileId),
      await downloadUrl(other, ticket.fileId),
      await remove(other, ticket.fileId),
    ]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().code).toBe('not_found');
    }
    const theirs = await t.request({
      method: 'GET',
      url: '/v1/files?limit=100',
      token: other.token,
    });
    expect(theirs.json().data.map((f: { id: string }) => f.id)).not.toContain(ticket.fileId);
    expect(fs.existsSync(stored(ticket.key))).toBe(true);
  });

  it('answers 400 without a fileId and 404 for an unknown one', async () => {
    const none = await t.request({
      method: 'GET',
      url: '/v1/files/download-url',
      token: admin.token,
    });
    expect(none.statusCode).toBe(400);
    expect((await downloadUrl(admin, 'fil_01jd8x0000000000000000000')).statusCode).toBe(404);
  });
});

describe('DELETE /v1/files/{fileId}', () => {
  it('removes record and object with an audit event', async () => {
    const { ticket } = await upload(t, admin, 'image/png', SAMPLES.png);
    const res = await remove(member, ticket.fileId);
    expect(res.statusCode).toBe(204);
    expect(fs.existsSync(stored(ticket.key))).toBe(false);
    expect((await getFile(admin, ticket.fileId)).statusCode).toBe(404);
    expect((await remove(admin, ticket.fileId)).statusCode).toBe(404);
    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_id'])
      .where('resource_id', '=', ticket.fileId)
      .orderBy('seq', 'desc')
      .executeTakeFirstOrThrow();
    expect(event).toEqual({ action: 'file.deleted', actor_id: member.userId });
  });

  it('deletes PENDING and REJECTED files too', async () => {
    const pending = (
      await requestUpload(t, admin, { fileName: 'x.pdf', contentType: 'application/pdf', size: 5 })
    ).json<UploadTicket>();
    expect((await remove(admin, pending.fileId)).statusCode).toBe(204);
    const put = await putBytes(t, pending.uploadUrl, Buffer.from('%PDF-'), 'application/pdf');
    expect(put.statusCode).toBe(404);
    const { ticket } = await upload(t, admin, 'application/pdf', SAMPLES.png);
    expect((await remove(admin, ticket.fileId)).statusCode).toBe(204);
  });

  it('is refused with 409 in_use while a product photo or partner logo references the file', async () => {
    const { ticket } = await upload(t, admin, 'image/png', SAMPLES.png);
    const product = await t.request({
      method: 'POST',
      url: '/v1/products',
      token: admin.token,
      payload: {
        name: 'Beratung',
        type: 'SERVICE',
        unitPrice: 100,
        currency: 'EUR',
        photoFileId: ticket.fileId,
      },
    });
    expect(product.statusCode, product.body).toBe(201);
    const partner = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      payload: { name: 'Muster GmbH', logoFileId: ticket.fileId },
    });
    expect(partner.statusCode, partner.body).toBe(201);
    const refused = await remove(admin, ticket.fileId);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'in_use',
      referencedBy: ['1 products', '1 partners'],
    });
    expect(fs.existsSync(stored(ticket.key))).toBe(true);
    expect((await getFile(admin, ticket.fileId)).statusCode).toBe(200);

    for (const [url, field, body] of [
      [`/v1/products/${product.json().id}`, 'photoFileId', product.json()],
      [`/v1/partners/${partner.json().id}`, 'logoFileId', partner.json()],
    ] as const) {
      const cleared = await t.request({
        method: 'PUT',
        url,
        token: admin.token,
        payload: { version: body.version, [field]: null },
      });
      expect(cleared.statusCode, cleared.body).toBe(200);
    }
    expect((await remove(admin, ticket.fileId)).statusCode).toBe(204);
  });
});

describe('reading a stored file whole', () => {
  it('reads into a buffer the caller gives when the file fits, else into its own', async () => {
    const key = fileKey(admin.accountId, newId('file'));
    await t.app.ctx.storage.write(key, SAMPLES.pdf, 'application/pdf');
    await expectWholeReads(t.app.ctx.storage, key, SAMPLES.pdf);
    await t.app.ctx.storage.remove(key);
  });
});

describe('non-JSON bodies elsewhere', () => {
  it('still answer 415 on the other routes', async () => {
    for (const type of ['text/plain', 'application/octet-stream', 'application/pdf']) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/partners',
        token: admin.token,
        payload: 'name=x',
        headers: { 'content-type': type },
      });
      expect(res.statusCode, type).toBe(415);
      expect(res.json().code).toBe('unsupported_media_type');
    }
  });
});
