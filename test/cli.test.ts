import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from './helpers.js';

const run = promisify(execFile);
let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** Runs the operator CLI against the test app's database, as an operator would. */
async function kontor(...args: string[]): Promise<{ code: number; out: string }> {
  const env = {
    ...process.env,
    DATA_DIR: t.dataDir,
    DATABASE_URL:
      dbKind === 'postgres'
        ? process.env.DATABASE_URL!
        : `sqlite:${path.join(t.dataDir, 'kontor.sqlite')}`,
    LOG_LEVEL: 'silent',
  };
  try {
    const { stdout, stderr } = await run(process.execPath, ['dist/cli.js', ...args], { env });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

describe('kontor CLI', () => {
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

  it('prints usage for an unknown command', async () => {
    const res = await kontor('frobnicate');
    expect(res.code).toBe(64);
    expect(res.out).toContain('Usage: kontor');
  });
});
