import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrations } from '../src/db/migrations/index.js';
import { isoDate, latestDocumentDate } from '../src/shared/dates.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, logSink, type TestApp } from './helpers.js';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** The environment that points the CLI (or a second app) at the test app's database. */
const cliEnv = () => ({
  DATA_DIR: t.dataDir,
  DATABASE_URL:
    dbKind === 'postgres'
      ? process.env.DATABASE_URL!
      : `sqlite:${path.join(t.dataDir, 'kontor.sqlite')}`,
});

/** Runs the operator CLI against the test app's database, as an operator would. */
const kontor = (...args: string[]) => kontorOn(cliEnv(), ...args);

/** Runs the operator CLI against the database `database` names (DATA_DIR, DATABASE_URL). */
async function kontorOn(
  database: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; out: string }> {
  const env = { ...process.env, ...database, LOG_LEVEL: 'silent' };
  try {
    const { stdout, stderr } = await run(process.execPath, ['dist/cli.js', ...args], { env });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('kontor CLI', () => {
  it.skipIf(dbKind === 'postgres')(
    'prints a one-time setup link while the installation has no user, and refuses after',
    async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-setup-'));
      try {
        const env = {
          DATA_DIR: empty,
          DATABASE_URL: `sqlite:${path.join(empty, 'kontor.sqlite')}`,
          PUBLIC_URL: 'http://127.0.0.1:4999',
        };
        const first = await kontorOn(env, 'setup-link');
        expect(first.code).toBe(0);
        expect(first.out).toMatch(/http:\/\/127\.0\.0\.1:4999\/setup#token=kst_\w{40}/);
        const db = new SQLite(path.join(empty, 'kontor.sqlite'));
        // Any user at all ends the setup links; its account does not matter here.
        db.pragma('foreign_keys = OFF');
        db.prepare(
          `INSERT INTO users (id, account_id, email, name, role, status, version, created_at, updated_at)
           VALUES ('usr_x', 'acc_x', 'x@example.com', 'X', 'admin', 'ACTIVE', 1, '2026-01-01', '2026-01-01')`,
        ).run();
        db.close();
        const after = await kontorOn(env, 'setup-link');
        expect(after.code).toBe(1);
        expect(after.out).toContain('has users already');
      } finally {
        fs.rmSync(empty, { recursive: true, force: true });
      }
    },
  );

  it('creates, lists and revokes API keys; a revoked key stops working in the running service at once', async () => {
    const created = await kontor('api-keys', 'create', '--name', 'ops');
    expect(created.code).toBe(0);
    const key = /(kak_[0-9A-Za-z]{40})/.exec(created.out)?.[1];
    const id = /(key_[0-9a-z]{26})/.exec(created.out)?.[1];
    expect(key).toBeDefined();
    // The key is accepted: what is missing now is the bearer.
    const noBearer = await t.request({ method: 'GET', url: '/v1/users', key });
    expect(noBearer.json().code).toBe('token_invalid');

    const user = await createUser(t);
    const before = await t.request({ method: 'GET', url: '/v1/partners', key, token: user.token });
    expect(before.statusCode).toBe(200); // now cached

    const list = await kontor('api-keys', 'list');
    expect(list.out).toContain(id);
    expect(list.out).toContain('ops');
    expect(list.out).not.toContain(key);

    const revoked = await kontor('api-keys', 'revoke', id!);
    expect(revoked.code).toBe(0);
    // Embedded: SQLite's data_version reveals the CLI's write. PostgreSQL: the CLI's Redis
    // broadcast does (multi-replica deployments need REDIS_URL anyway).
    if (dbKind === 'sqlite' || process.env.REDIS_URL) {
      // The Redis broadcast is asynchronous: allow it a moment to arrive.
      let after = await t.request({ method: 'GET', url: '/v1/partners', key, token: user.token });
      for (let i = 0; i < 40 && after.statusCode !== 401; i++) {
        await new Promise((r) => setTimeout(r, 25));
        after = await t.request({ method: 'GET', url: '/v1/partners', key, token: user.token });
      }
      expect(after.statusCode).toBe(401);
      expect(after.json().code).toBe('api_key_invalid');
    }
    expect((await kontor('api-keys', 'revoke', id!)).code).toBe(1);
  });

  it('verifies the audit chain and migrates idempotently', async () => {
    const user = await createUser(t);
    await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'Audit me' },
    });
    const verify = await kontor('audit', 'verify');
    expect(verify.code).toBe(0);
    expect(verify.out).toContain('Every chain is intact');
    expect((await kontor('migrate')).out).toContain('up to date');
  });

  it.runIf(dbKind === 'sqlite')(
    'writes a consistent SQLite backup while the service runs',
    async () => {
      const user = await createUser(t);
      await t.request({
        method: 'POST',
        url: '/v1/partners',
        token: user.token,
        payload: { name: 'Backed up' },
      });
      const file = path.join(t.dataDir, 'backup.sqlite');
      const res = await kontor('backup', file);
      expect(res.code).toBe(0);
      const copy = new SQLite(file, { readonly: true });
      const row = copy
        .prepare('select name from partners where account_id = ?')
        .get(user.accountId) as { name: string };
      copy.close();
      expect(row.name).toBe('Backed up');
      expect((await kontor('backup', file)).code).toBe(1); // never overwrites
    },
  );

  it('doctor lists stored dates the API refuses, and exits 1 until they are corrected', async () => {
    const user = await createUser(t);
    const clean = await createUser(t);
    const partner = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'Datum' },
    });
    const partnerId = partner.json<{ id: string }>().id;
    const note = await t.request({
      method: 'POST',
      url: '/v1/notes',
      token: user.token,
      payload: { parentType: 'PARTNER', parentId: partnerId, title: 'Termin', content: '' },
    });
    const noteId = note.json<{ id: string }>().id;
    const draft = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: {
        documentType: 'INVOICE',
        name: 'Alt',
        partnerId,
        creationDate: '2026-03-02',
        lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 10 }],
      },
    });
    const documentId = draft.json<{ id: string }>().id;
    expect((await kontor('doctor', '--account', clean.accountId)).code).toBe(0);

    // Rows as an older release accepted them, written straight into the database.
    const db = t.app.ctx.db;
    await sql`update documents set creation_date = ${'1900-01-01'}, due_date = ${'2026-13-45'}
      where id = ${documentId}`.execute(db);
    await sql`update notes set due_date = ${'2026-02-30'} where id = ${noteId}`.execute(db);

    const found = await kontor('doctor', '--account', user.accountId);
    expect(found.code).toBe(1);
    const lines = found.out.split('\n').filter((l) => l.includes('\t'));
    expect(lines.sort()).toEqual(
      [
        `documents\t${documentId}\taccount ${user.accountId}\tcreation_date\t1900-01-01\toutside 2000-01-01 to ${latestDocumentDate(isoDate(new Date()))} (one year after today)`,
        `documents\t${documentId}\taccount ${user.accountId}\tdue_date\t2026-13-45\tnot a calendar date`,
        `notes\t${noteId}\taccount ${user.accountId}\tdue_date\t2026-02-30\tnot a calendar date`,
      ].sort(),
    );
    expect(found.out).toContain('3 stored date(s) need correcting');
    // Unfiltered it finds them too, and `migrate` warns with the count.
    expect((await kontor('doctor')).code).toBe(1);
    expect((await kontor('migrate')).out).toMatch(/WARNING: \d+ stored date\(s\)/);
    // A start of the service warns with the count in its log.
    const log = logSink();
    const started = await buildApp(
      loadConfig({ ...cliEnv(), LOG_LEVEL: 'warn', JOB_POLL_INTERVAL_MS: '0' }),
      { logStream: log.stream, jobsSchema: `pgboss_w${process.env.VITEST_POOL_ID ?? '1'}` },
    );
    await started.close();
    expect(log.text()).toMatch(
      /"level":40.*"count":\d+.*stored date\(s\) are impossible or out of range/,
    );
    // The account without bad dates is clean, and so is this one once they are corrected.
    const none = await kontor('doctor', '--account', clean.accountId);
    expect(none.out).toContain('Every stored date is a calendar date in its range.');
    await sql`update documents set creation_date = ${'2026-03-02'}, due_date = ${'2026-03-31'}
      where id = ${documentId}`.execute(db);
    await sql`update notes set due_date = ${'2026-03-02'} where id = ${noteId}`.execute(db);
    expect((await kontor('doctor', '--account', user.accountId)).code).toBe(0);
  });

  it('migrate names the migrations it applied to an empty database, then says it is up to date', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-migrate-'));
    const fresh = { DATA_DIR: dir, DATABASE_URL: `sqlite:${path.join(dir, 'fresh.sqlite')}` };
    try {
      const names = Object.keys(migrations);
      const first = await kontorOn(fresh, 'migrate');
      expect(first.code).toBe(0);
      expect(first.out).toContain(`Applied ${names.length} migrations:\n`);
      for (const name of names) expect(first.out).toContain(`  ${name}\n`);
      expect(first.out).not.toContain('Database is up to date');
      const again = await kontorOn(fresh, 'migrate');
      expect(again.code).toBe(0);
      expect(again.out.trim()).toBe(`Database is up to date (${names.length} migrations).`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.runIf(dbKind === 'sqlite')('doctor exits 0 on a database without bad dates', async () => {
    expect((await kontor('doctor')).code).toBe(0);
    expect((await kontor('migrate')).out).not.toContain('WARNING');
  });

  it('prints usage for an unknown command', async () => {
    const res = await kontor('frobnicate');
    expect(res.code).toBe(64);
    expect(res.out).toContain('Usage: npx kontor <command>');
  });
});

describe.runIf(dbKind === 'sqlite')('kontor audit verify on a database of one account', () => {
  it('counts in words that agree with the number', async () => {
    const one = await buildTestApp();
    try {
      const user = await createUser(one);
      await one.request({
        method: 'POST',
        url: '/v1/partners',
        token: user.token,
        payload: { name: 'Einzeln' },
      });
      const env = {
        ...process.env,
        DATA_DIR: one.dataDir,
        DATABASE_URL: `sqlite:${path.join(one.dataDir, 'kontor.sqlite')}`,
        LOG_LEVEL: 'silent',
      };
      const { stdout } = await run(process.execPath, ['dist/cli.js', 'audit', 'verify'], { env });
      expect(stdout).toMatch(/^Checked \d+ events? in 1 account\.$/m);
    } finally {
      await one.close();
    }
  });
});
