import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { settleAudit } from '../src/shared/audit.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCursor } from '../src/http/pagination.js';
import { mt940, uploadStatement } from '../src/modules/bank-imports/bank-imports.test-support.js';
import { expectProblem as problemOf } from './contract.js';
import { onServer } from './fresh-database.js';
import { buildTestApp, createUser, dbKind, type TestApp, type TestUser } from './helpers.js';

/**
 * Issue 11, "every bad input is a 4xx problem": each case here answered 500 (or a plain
 * Fastify body) before the central limits in `src/http/input-limits.ts`, `problem.ts` and
 * `pagination.ts`. Runs on SQLite and on PostgreSQL, where most of them broke.
 */

let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
});
afterAll(() => t.close());

type Body = Record<string, unknown>;

const post = (url: string, payload: Body | string) =>
  t.request({
    method: 'POST',
    url,
    token: user.token,
    payload,
    headers: { 'content-type': 'application/json' },
  });

function expectProblem(res: LightMyRequestResponse, status: number, code: string): Body {
  expect(res.statusCode, res.body).toBe(status);
  return problemOf(res, code, { detail: 'optional' });
}

/** A 400 `validation_failed` whose `errors` name `path` with the field code `code`. */
function expectFieldError(res: LightMyRequestResponse, path: string, code: string): void {
  const body = expectProblem(res, 400, 'validation_failed');
  expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
}

/** `{"a":{"a":…1…}}` nested `depth` levels. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const invoice = (fields: string) =>
  `{"documentType":"INVOICE","name":"Tief","creationDate":"2026-01-01",` +
  `"lineItems":[{"description":"A","quantity":1,"unitPrice":1}],"fields":${fields}}`;

describe('timestamps', () => {
  it('an expiresAt with an offset past ±23:59 is a 400 naming the field', async () => {
    const res = await post('/v1/api-tokens', {
      name: 'Offset',
      expiresAt: '2999-01-01T00:00:00+99:00',
    });
    expectFieldError(res, '/body/expiresAt', 'invalid_value');
  });
});

describe('nesting', () => {
  it('free-form objects nested 5 000 levels deep are a 400, not a 500', async () => {
    const doc = await post('/v1/documents', invoice(`{"x":${nested(5000)}}`));
    const body = expectProblem(doc, 400, 'validation_failed');
    const errors = body.errors as { path: string; code: string }[];
    expect(errors[0]!.code).toBe('too_deep');
    expect(errors[0]!.path).toMatch(/^\/body\/fields\/x(\/a)+$/);

    const contract = await post(
      '/v1/contracts',
      `{"name":"Tief","partnerName":"P","startDate":"2026-01-01","totalValue":1,"currency":"EUR","advanced":${nested(5000)}}`,
    );
    expect(expectProblem(contract, 400, 'validation_failed').errors).toContainEqual(
      expect.objectContaining({ code: 'too_deep' }),
    );
    const array = await post(
      '/v1/partners',
      `{"name":"x","tags":${'['.repeat(40)}${']'.repeat(40)}}`,
    );
    expect(expectProblem(array, 400, 'validation_failed').errors).toContainEqual(
      expect.objectContaining({ code: 'too_deep' }),
    );
  });

  it('32 levels are allowed', async () => {
    // The body is level 1, `fields` level 2: 30 more objects reach 32.
    const res = await post('/v1/documents', invoice(`{"x":${nested(29)}}`));
    expect(res.statusCode, res.body).toBeLessThan(500);
    expect(JSON.stringify(res.json())).not.toContain('too_deep');
  });
});

describe('text', () => {
  it('a NUL character is a 400 naming the field, wherever it is, on both databases', async () => {
    expectFieldError(
      await post('/v1/partners', { name: 'a\u0000b' }),
      '/body/name',
      'invalid_character',
    );
    expectFieldError(
      await post('/v1/documents', invoice('{"bad\\u0000key":"x"}')),
      '/body/fields/bad\u0000key',
      'invalid_character',
    );
    expectFieldError(
      await post('/v1/documents', invoice('{"note":"\\u0000"}')),
      '/body/fields/note',
      'invalid_character',
    );
    expectFieldError(
      await t.request({ method: 'GET', url: '/v1/partners?q=%00', token: user.token }),
      '/querystring/q',
      'invalid_character',
    );
    expectFieldError(
      await t.request({ method: 'GET', url: '/v1/partners/ptr_%00', token: user.token }),
      '/params/partnerId',
      'invalid_character',
    );
    const list = await t.request({ method: 'GET', url: '/v1/partners', token: user.token });
    expect(JSON.stringify(list.json())).not.toContain('\\u0000');
  });

  it('a lone surrogate is a 400: it is not Unicode and would be stored as U+FFFD', async () => {
    expectFieldError(
      await post('/v1/partners', '{"name":"a\\ud800b"}'),
      '/body/name',
      'invalid_character',
    );
    expectFieldError(
      await post('/v1/partners', '{"name":"\\udc00"}'),
      '/body/name',
      'invalid_character',
    );
    // A well-formed pair is fine.
    expect((await post('/v1/partners', { name: 'Emoji 😀 GmbH' })).statusCode).toBe(201);
  });
});

describe('integers', () => {
  it('an integer beyond the 32-bit column is a 400, not an overflow in the database', async () => {
    const partner = await post('/v1/partners', { name: 'Version' });
    expect(partner.statusCode).toBe(201);
    const res = await t.request({
      method: 'PUT',
      url: `/v1/partners/${partner.json<{ id: string }>().id}`,
      token: user.token,
      payload: { version: 1e20, name: 'Neu' },
    });
    expectFieldError(res, '/body/version', 'too_large');
    expectFieldError(
      await t.request({
        method: 'PATCH',
        url: '/v1/bank-statement-imports/imp_00000000000000000000000000/transactions/99999999999',
        token: user.token,
        payload: { version: 1, decision: 'IGNORE' },
      }),
      '/params/index',
      'too_large',
    );
  });
});

describe('cursors', () => {
  const forged = [
    ['not base64 JSON', '!!!'],
    ['another shape', Buffer.from('{"v":2}').toString('base64url')],
    ['a NUL id', encodeCursor('\u0000')],
    ['a text id', encodeCursor('abc')],
    ['an index past 32 bits', encodeCursor('99999999999')],
    ['a negative index', encodeCursor('-1')],
    ['a fractional index', encodeCursor('1.5')],
  ] as const;

  it.each(forged)('the import transactions list answers 400 to %s', async (_name, cursor) => {
    const file = await uploadStatement(
      t,
      user,
      mt940([{ date: '2026-03-02', cents: 1000, purpose: 'A' }]),
    );
    const imp = await post('/v1/bank-statement-imports', {
      ...file,
      periodFrom: '2026-03-01',
      periodTo: '2026-03-31',
    });
    expect(imp.statusCode, imp.body).toBe(201);
    const id = imp.json<{ id: string }>().id;
    const res = await t.request({
      method: 'GET',
      url: `/v1/bank-statement-imports/${id}/transactions?cursor=${cursor}`,
      token: user.token,
    });
    expectFieldError(res, '/querystring/cursor', 'invalid_format');
    // Leave no active import behind for the next case.
    await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${id}`,
      token: user.token,
    });
  });

  it.each(forged)('an id-paged list answers 400 to %s', async (_name, cursor) => {
    for (const url of ['/v1/partners', '/v1/audit-events', '/v1/notes']) {
      const res = await t.request({
        method: 'GET',
        url: `${url}?cursor=${cursor}`,
        token: user.token,
      });
      expectFieldError(res, '/querystring/cursor', 'invalid_format');
    }
  });

  it('a cursor the API issued still pages', async () => {
    for (let i = 0; i < 3; i++) await post('/v1/partners', { name: `Seite ${i}` });
    const first = await t.request({
      method: 'GET',
      url: '/v1/partners?limit=2',
      token: user.token,
    });
    const next = first.json<{ nextCursor: string }>().nextCursor;
    expect(next).toBeTruthy();
    const second = await t.request({
      method: 'GET',
      url: `/v1/partners?limit=2&cursor=${next}`,
      token: user.token,
    });
    expect(second.statusCode).toBe(200);
  });
});

describe('every layer answers a problem', () => {
  it('a path segment over the router limit is a 414 problem', async () => {
    const res = await t.request({
      method: 'GET',
      url: `/v1/partners/${'x'.repeat(300)}`,
      token: user.token,
    });
    expectProblem(res, 414, 'uri_too_long');
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('a broken percent-encoding is a 400 problem', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/partners/%E0%A4%A', token: user.token });
    expectProblem(res, 400, 'bad_request');
  });

  it("requests Node's HTTP parser refuses get a problem on the socket", async () => {
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = Number(new URL(address).port);
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1');
        let data = '';
        socket.on('data', (chunk) => (data += chunk.toString()));
        socket.on('error', reject);
        socket.on('close', () => resolve(data));
        socket.write(request);
      });
    const malformed = await raw('GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed).toContain('application/problem+json');
    expect(malformed).toContain('"code":"bad_request"');
    const huge = await raw(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('"code":"headers_too_large"');
  });
});

describe('storage full', () => {
  it.each([
    ['ENOSPC', 'ENOSPC'],
    ['SQLite', 'SQLITE_FULL'],
    ['PostgreSQL', '53100'],
  ])('a %s disk-full error is a 507 problem and /ready answers 503', async (_name, code) => {
    const local = await buildTestApp();
    try {
      local.app.post('/test/full', { config: { access: 'public' } }, () => {
        throw Object.assign(new Error('disk full (injected)'), { code });
      });
      const res = await local.request({ method: 'POST', url: '/test/full' });
      const body = expectProblem(res, 507, 'insufficient_storage');
      expect(Object.keys(body).sort()).toEqual(['code', 'requestId', 'status', 'title', 'type']);
      const ready = await local.request({ method: 'GET', url: '/ready' });
      if (dbKind === 'postgres') {
        // PostgreSQL's disk is not ours to probe: the last failure holds readiness for a while.
        expectProblem(ready, 503, 'service_unavailable');
      } else {
        // SQLite's disk is: the probe write fits, so the instance is ready again.
        expect(ready.statusCode, ready.body).toBe(200);
      }
    } finally {
      await local.close();
    }
  });

  it('a value the database refuses is a 400 problem (mapped by SQLSTATE)', async () => {
    const local = await buildTestApp();
    try {
      local.app.post('/test/value', { config: { access: 'public' } }, () => {
        throw Object.assign(new Error('out of range (injected)'), { code: '22003' });
      });
      expectProblem(
        await local.request({ method: 'POST', url: '/test/value' }),
        400,
        'value_not_storable',
      );
    } finally {
      await local.close();
    }
  });
});

/** A tmpfs of `size` for a real disk-full: needs root (CI containers, this machine). */
function mountTiny(size: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' });
    return dir;
  } catch {
    fs.rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
}

function unmount(dir: string | undefined): void {
  if (!dir) return;
  execFileSync('umount', [dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

/**
 * Fills the disk at `dir` but for a little (a ballast file, so that removing it is "space
 * returns"), then creates partners until one fails: that answer must be a 507 problem, /ready
 * a 503, and exactly the partners that answered 201 may exist. `parallel` creates are sent at
 * a time (on SQLite, those that wait for the connection commit together). Returns the
 * ballast's path.
 */
async function fillUntilFull(local: TestApp, dir: string, parallel = 1): Promise<string> {
  const owner = await createUser(local);
  // PostgreSQL chains the new account's audit events just after the answers: let that write
  // land before measuring the free space, so the ballast does not race it.
  await settleAudit(local.app.ctx.db);
  const ballast = path.join(dir, 'ballast');
  // The database may still write a page between the measure and the ballast: then leave more.
  for (let margin = 96 * 1024; ; margin += 256 * 1024) {
    const { bavail, bsize } = fs.statfsSync(dir);
    try {
      fs.writeFileSync(ballast, Buffer.alloc(Math.max(0, bavail * bsize - margin)));
      break;
    } catch (err) {
      fs.rmSync(ballast, { force: true });
      if ((err as NodeJS.ErrnoException).code !== 'ENOSPC' || margin > 4 * 1024 * 1024) throw err;
    }
  }
  const created: string[] = [];
  let full: LightMyRequestResponse | undefined;
  for (let i = 0; i < 200 && !full; i += parallel) {
    const answers = await Promise.all(
      Array.from({ length: parallel }, (_, k) =>
        local.request({
          method: 'POST',
          url: '/v1/partners',
          token: owner.token,
          // Text no compression shrinks (PostgreSQL compresses a repeated letter to almost
          // nothing): 200 of them fill more than the largest margin above.
          payload: {
            name: `Partner ${i + k}`,
            description: randomBytes(6_750).toString('base64'),
          },
        }),
      ),
    );
    for (const res of answers) {
      if (res.statusCode === 201) created.push(res.json<{ name: string }>().name);
      else {
        expectProblem(res, 507, 'insufficient_storage');
        full ??= res;
      }
    }
  }
  expect(full, 'the disk never filled').toBeDefined();
  expectProblem(full!, 507, 'insufficient_storage');
  expectProblem(await local.request({ method: 'GET', url: '/ready' }), 503, 'service_unavailable');
  // Nothing half-written: exactly the partners that answered 201 exist (over as many pages as
  // that takes: up to 200 may fit).
  const listed: string[] = [];
  let cursor: string | null = null;
  do {
    const page: { data: { name: string }[]; nextCursor: string | null } = (
      await local.request({
        method: 'GET',
        url: `/v1/partners?limit=100${cursor ? `&cursor=${cursor}` : ''}`,
        token: owner.token,
      })
    ).json<{ data: { name: string }[]; nextCursor: string | null }>();
    listed.push(...page.data.map((p) => p.name));
    cursor = page.nextCursor;
  } while (cursor);
  expect(listed.sort()).toEqual(created.sort());
  return ballast;
}

describe.runIf(dbKind === 'sqlite')('storage full, for real (SQLite on a tiny tmpfs)', () => {
  // Collected even when skipped: mount only where the suite runs.
  const mount = dbKind === 'sqlite' ? mountTiny('4m') : undefined;
  afterAll(() => unmount(mount));

  it.runIf(mount !== undefined)(
    'writes answer 507 and change nothing, /ready answers 503 until space returns',
    () =>
      onMount('kontor.sqlite', async (local) => {
        const ballast = await fillUntilFull(local, mount!);
        fs.rmSync(ballast);
        expect((await local.request({ method: 'GET', url: '/ready' })).statusCode).toBe(200);
        const owner = await createUser(local);
        const after = await local.request({
          method: 'POST',
          url: '/v1/partners',
          token: owner.token,
          payload: { name: 'Wieder Platz' },
        });
        expect(after.statusCode).toBe(201);
      }),
  );

  it.runIf(mount !== undefined)(
    'writes sent together answer 201 or 507, and exactly those answered 201 are kept',
    () =>
      onMount('parallel.sqlite', async (local) => {
        fs.rmSync(await fillUntilFull(local, mount!, 10));
      }),
  );

  /** `run` with an app whose database is `file` on the tiny disk; the app closed after. */
  async function onMount(file: string, run: (local: TestApp) => Promise<void>): Promise<void> {
    const local = await buildTestApp({
      env: { DATABASE_URL: `sqlite:${path.join(mount!, file)}` },
    });
    try {
      await run(local);
    } finally {
      await local.close();
    }
  }
});

/** The PostgreSQL server runs on this machine, as its own user: a tablespace can live on a tmpfs. */
function localPostgresUid(): number | undefined {
  if (dbKind !== 'postgres' || process.getuid?.() !== 0) return undefined;
  const host = new URL(process.env.DATABASE_URL!).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost') return undefined;
  try {
    return Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
  } catch {
    return undefined;
  }
}

/**
 * Filling a tablespace leaves dirty buffers PostgreSQL cannot write out, and any other session
 * of the server that evicts one fails with "No space left on device": a test file running
 * beside this one failed so. This test therefore runs alone, with KONTOR_TEST_STORAGE_FULL=1
 * (`.ci/run` runs it in a pass of its own after the PostgreSQL pass).
 */
const storageFullAlone = process.env.KONTOR_TEST_STORAGE_FULL === '1';

describe.runIf(dbKind === 'postgres' && storageFullAlone)(
  'storage full, for real (PostgreSQL tablespace on a tmpfs)',
  () => {
    const uid = localPostgresUid();
    // Collected even when skipped: mount only in the pass that runs it (its afterAll unmounts).
    const mount = uid === undefined || !storageFullAlone ? undefined : mountTiny('16m');
    const name = `kontor_full_${process.pid}`;
    afterAll(async () => {
      if (!mount) return;
      await onServer(`drop database if exists ${name}`);
      await onServer(`drop tablespace if exists ${name}`);
      unmount(mount);
    });

    it.runIf(mount !== undefined)(
      'writes answer 507 (SQLSTATE 53100) and change nothing, /ready answers 503',
      async () => {
        const location = path.join(mount!, 'ts');
        fs.mkdirSync(location);
        fs.chownSync(location, uid!, fs.statSync(location).gid);
        await onServer(`create tablespace ${name} location '${location}'`);
        await onServer(`create database ${name} tablespace ${name}`);
        const url = new URL(process.env.DATABASE_URL!);
        url.pathname = `/${name}`;
        const local = await buildTestApp({ env: { DATABASE_URL: url.toString() } });
        try {
          await fillUntilFull(local, mount!);
        } finally {
          await local.close();
        }
      },
    );
  },
);
