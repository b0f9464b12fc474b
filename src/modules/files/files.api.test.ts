import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  logSink,
  type TestApp,
  type TestUser,
  checkAnswers,
} from '../../../test/helpers.js';
import { buildApp } from '../../app.js';
import { loadConfig } from '../../config.js';
import { createApiKey } from '../api-keys/api-keys.service.js';
import { DEFAULT_PLANS } from '../plans/plans.catalogue.js';
import { ManualClock } from '../../shared/clock.js';
import { settleAudit, type Actor } from '../../shared/audit.js';
import { AppError } from '../../shared/errors.js';
import {
  IMAGE_CONTENT_TYPES,
  lockUploadedFile,
  onFileDelete,
  requireUploadedFile,
  storageUsedBytes,
  storeGeneratedFile,
  systemActor,
} from './files.api.js';
import {
  SAMPLES,
  localPath,
  putBytes,
  requestUpload,
  upload,
  type UploadTicket,
} from './files.test-support.js';

function actorOf(user: TestUser): Actor {
  return { ...systemActor(user.accountId), type: 'user', userId: user.userId };
}

describe('expiry of signed URLs (test clock)', () => {
  let t: TestApp;
  let clock: ManualClock;
  let user: TestUser;
  beforeAll(async () => {
    clock = new ManualClock();
    t = await buildTestApp({ clock });
    user = await createUser(t);
  });
  afterAll(() => t.close());

  it('refuses an upload or download URL after its expiresAt with 403 url_invalid', async () => {
    const res = await requestUpload(t, user, {
      fileName: 'a.pdf',
      contentType: 'application/pdf',
      size: SAMPLES.pdf.length,
    });
    const ticket = res.json<UploadTicket>();
    expect(Date.parse(ticket.expiresAt)).toBe(
      Math.floor(clock.now().getTime() / 1000) * 1000 + 900_000,
    );
    clock.advance(901_000);
    const late = await putBytes(t, ticket.uploadUrl, SAMPLES.pdf, 'application/pdf');
    expect(late.statusCode).toBe(403);
    expect(late.json().code).toBe('url_invalid');

    const { ticket: done, put } = await upload(t, user, 'application/pdf', SAMPLES.pdf);
    expect(put.statusCode).toBe(200);
    const { url } = (
      await t.request({
        method: 'GET',
        url: `/v1/files/download-url?fileId=${done.fileId}`,
        token: user.token,
      })
    ).json<{ url: string }>();
    clock.advance(899_000);
    expect((await t.app.inject({ method: 'GET', url: localPath(url) })).statusCode).toBe(200);
    clock.advance(2_000);
    const expired = await t.app.inject({ method: 'GET', url: localPath(url) });
    expect(expired.statusCode).toBe(403);
    expect(expired.json().code).toBe('url_invalid');
  });
});

describe('the plan’s storage limit', () => {
  let t: TestApp;
  let user: TestUser;
  let planDir: string;
  beforeAll(async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-plans-'));
    const file = path.join(dir, 'plans.json');
    fs.writeFileSync(
      file,
      JSON.stringify(
        DEFAULT_PLANS.map((p) => ({
          ...p,
          requestsPerMinute: 100_000,
          requestsPerMonth: 10_000_000,
          storageBytes: p.id === 'FREE' ? 1000 : p.storageBytes,
        })),
      ),
    );
    t = await buildTestApp({ env: { PLANS_FILE: file } });
    user = await createUser(t);
    planDir = dir;
  });
  afterAll(async () => {
    await t.close();
    fs.rmSync(planDir, { recursive: true, force: true });
  });

  it('counts PENDING and UPLOADED files, refuses what does not fit with 409, and frees on delete', async () => {
    const ask = (size: number) =>
      requestUpload(t, user, { fileName: 'x.csv', contentType: 'text/csv', size });
    const first = await ask(600);
    expect(first.statusCode).toBe(201);
    expect(await storageUsedBytes(t.app.ctx.db, user.accountId)).toBe(600);
    const refused = await ask(401);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      code: 'storage_limit_exceeded',
      usedBytes: 600,
      limitBytes: 1000,
      errors: [{ path: '/body/size', code: 'storage_limit_exceeded' }],
    });
    expect((await ask(400)).statusCode).toBe(201);
    expect(await storageUsedBytes(t.app.ctx.db, user.accountId)).toBe(1000);

    await expect(
      storeGeneratedFile(t.app.ctx, actorOf(user), {
        fileName: 'x.png',
        contentType: 'image/png',
        bytes: SAMPLES.png,
      }),
    ).rejects.toMatchObject({ code: 'storage_limit_exceeded' });
    const kept = await storeGeneratedFile(t.app.ctx, actorOf(user), {
      fileName: 'final.png',
      contentType: 'image/png',
      bytes: SAMPLES.png,
      enforceLimit: false,
    });
    expect(kept.status).toBe('UPLOADED');
    expect(await storageUsedBytes(t.app.ctx.db, user.accountId)).toBe(1000 + SAMPLES.png.length);

    const del = await t.request({
      method: 'DELETE',
      url: `/v1/files/${first.json().fileId}`,
      token: user.token,
    });
    expect(del.statusCode).toBe(204);
    expect(await storageUsedBytes(t.app.ctx.db, user.accountId)).toBe(400 + SAMPLES.png.length);
  });

  it('does not count REJECTED files', async () => {
    const u = await createUser(t);
    const { put } = await upload(t, u, 'application/pdf', SAMPLES.png);
    expect(put.statusCode).toBe(422);
    expect(await storageUsedBytes(t.app.ctx.db, u.accountId)).toBe(0);
  });
});

describe('the API for other modules (embedded storage)', () => {
  let t: TestApp;
  let user: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    user = await createUser(t);
    other = await createUser(t);
  });
  afterAll(() => t.close());

  it('storeGeneratedFile stores bytes as an UPLOADED file that requireUploadedFile reads back', async () => {
    const file = await storeGeneratedFile(t.app.ctx, actorOf(user), {
      fileName: 'Rechnung 2025-0001.pdf',
      contentType: 'application/pdf',
      bytes: SAMPLES.pdf,
    });
    expect(file).toMatchObject({
      status: 'UPLOADED',
      size: SAMPLES.pdf.length,
      fileName: 'Rechnung 2025-0001.pdf',
    });
    const got = await requireUploadedFile(t.app.ctx, user.accountId, file.id);
    expect(got.file).toEqual(file);
    expect((await got.read()).equals(SAMPLES.pdf)).toBe(true);
    const chunks: Buffer[] = [];
    for await (const chunk of await got.open()) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(SAMPLES.pdf)).toBe(true);
    // PostgreSQL chains events just after the commit: wait for it before reading the trail.
    await settleAudit(t.app.ctx.db);
    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', '=', file.id)
      .executeTakeFirstOrThrow();
    expect(event.action).toBe('file.generated');
    // Downloadable like an upload.
    const link = await t.request({
      method: 'GET',
      url: `/v1/files/download-url?fileId=${file.id}`,
      token: user.token,
    });
    const res = await t.app.inject({ method: 'GET', url: localPath(link.json().url) });
    expect(res.rawPayload.equals(SAMPLES.pdf)).toBe(true);
  });

  it('storeGeneratedFile keeps no object when the record cannot be written', async () => {
    const ghost = 'acc_01jd8x0000000000000000000';
    await expect(
      t.app.ctx.db.transaction().execute(async (trx) => {
        await storeGeneratedFile(
          t.app.ctx,
          { ...actorOf(user), accountId: ghost },
          { fileName: 'x.pdf', contentType: 'application/pdf', bytes: SAMPLES.pdf },
          trx,
        );
      }),
    ).rejects.toThrow();
    const dir = path.join(t.dataDir, 'files', ghost);
    expect(fs.existsSync(dir) ? fs.readdirSync(dir) : []).toEqual([]);
  });

  it('requireUploadedFile answers the documented problems', async () => {
    const { ticket } = await upload(t, user, 'application/pdf', SAMPLES.pdf);
    const pending = (
      await requestUpload(t, user, { fileName: 'p.png', contentType: 'image/png', size: 10 })
    ).json<UploadTicket>();
    const { ticket: rejected } = await upload(t, user, 'image/png', SAMPLES.pdf);
    const require = (id: string, options = {}) =>
      requireUploadedFile(t.app.ctx, user.accountId, id, options);

    await expect(require('fil_01jd8x0000000000000000000')).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(
      require('fil_01jd8x0000000000000000000', { field: 'photoFileId' }),
    ).rejects.toMatchObject({
      code: 'reference_not_found',
      extras: { errors: [{ path: '/body/photoFileId' }] },
    });
    await expect(
      requireUploadedFile(t.app.ctx, other.accountId, ticket.fileId, { field: 'fileId' }),
    ).rejects.toMatchObject({ code: 'reference_not_found' });
    await expect(
      require(ticket.fileId, { field: 'photoFileId', accept: IMAGE_CONTENT_TYPES }),
    ).rejects.toMatchObject({
      code: 'business_rule_violated',
      extras: { errors: [{ path: '/body/photoFileId', code: 'wrong_content_type' }] },
    });
    await expect(
      require(ticket.fileId, { key: `${user.accountId}/fil_01jd8x0000000000000000000` }),
    ).rejects.toMatchObject({
      code: 'business_rule_violated',
      extras: { errors: [{ path: '/body/key' }] },
    });
    expect((await require(ticket.fileId, { key: ticket.key })).file.id).toBe(ticket.fileId);
    await expect(require(pending.fileId, { field: 'photoFileId' })).rejects.toMatchObject({
      code: 'state_conflict',
    });
    await expect(require(rejected.fileId)).rejects.toMatchObject({ code: 'content_mismatch' });
  });
});

describe('hooks for referencing modules', () => {
  let t: TestApp;
  let user: TestUser;
  beforeAll(async () => {
    t = await buildTestApp();
    user = await createUser(t);
  });
  afterAll(() => t.close());

  it('lockUploadedFile answers an UPLOADED file inside a transaction, else reference_not_found', async () => {
    const { ticket } = await upload(t, user, 'image/png', SAMPLES.png);
    const pending = (
      await requestUpload(t, user, { fileName: 'p.png', contentType: 'image/png', size: 10 })
    ).json<UploadTicket>();
    const locked = await t.app.ctx.db
      .transaction()
      .execute((trx) => lockUploadedFile(trx, user.accountId, ticket.fileId, 'photoFileId'));
    expect(locked).toMatchObject({ id: ticket.fileId, status: 'UPLOADED' });
    await expect(
      t.app.ctx.db
        .transaction()
        .execute((trx) => lockUploadedFile(trx, user.accountId, pending.fileId, 'photoFileId')),
    ).rejects.toMatchObject({
      code: 'reference_not_found',
      extras: { errors: [{ path: '/body/photoFileId' }] },
    });
  });

  it('onFileDelete hooks run in the delete transaction and can refuse it', async () => {
    const { ticket } = await upload(t, user, 'application/pdf', SAMPLES.pdf);
    onFileDelete((_trx, _accountId, fileId) =>
      fileId === ticket.fileId
        ? Promise.reject(new AppError('in_use', 'A FINAL document keeps this file.'))
        : Promise.resolve(),
    );
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/files/${ticket.fileId}`,
      token: user.token,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().code).toBe('in_use');
    const again = await t.request({
      method: 'GET',
      url: `/v1/files/${ticket.fileId}`,
      token: user.token,
    });
    expect(again.statusCode).toBe(200);
    const { ticket: free } = await upload(t, user, 'application/pdf', SAMPLES.pdf);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/files/${free.fileId}`,
      token: user.token,
    });
    expect(del.statusCode).toBe(204);
  });
});

describe('logs', () => {
  it('never contain the signed tokens', async () => {
    const sink = logSink();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-test-'));
    const app = await buildApp(
      loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'debug',
        DATABASE_URL:
          dbKind === 'postgres'
            ? process.env.DATABASE_URL!
            : `sqlite:${path.join(dataDir, 'kontor.sqlite')}`,
      }),
      {
        logStream: sink.stream,
      },
    );
    try {
      checkAnswers(app);
      const { key } = await createApiKey(app.ctx.db, 'test');
      const t = {
        app,
        apiKey: key,
        dataDir,
        close: () => app.close(),
        request: (opts: Parameters<TestApp['request']>[0]) => {
          const { token, headers, ...rest } = opts;
          return app.inject({
            ...rest,
            headers: {
              'x-api-key': key,
              ...(token ? { authorization: `Bearer ${token}` } : {}),
              ...headers,
            },
          });
        },
      } as TestApp;
      const user = await createUser(t);
      const { ticket, put } = await upload(t, user, 'application/pdf', SAMPLES.pdf);
      expect(put.statusCode).toBe(200);
      const { url } = (
        await t.request({
          method: 'GET',
          url: `/v1/files/download-url?fileId=${ticket.fileId}`,
          token: user.token,
        })
      ).json<{ url: string }>();
      await app.inject({ method: 'GET', url: localPath(url) });
      await putBytes(t, ticket.uploadUrl, SAMPLES.pdf, 'application/pdf'); // 409, logged too
      const tokens = [ticket.uploadUrl, url].map((u) => new URL(u).searchParams.get('token')!);
      const log = sink.text();
      expect(log).toContain('/v1/files/upload');
      expect(log).toContain('/v1/files/download');
      for (const token of tokens) {
        expect(log).not.toContain(token);
        expect(log).not.toContain(token.split('.')[1]!);
      }
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
