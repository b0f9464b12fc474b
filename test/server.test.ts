import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dbKind } from './helpers.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** Starts the build (`dist/server.js`) as `npm start` would, in a fresh data directory. */
function startServer(env: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-server-'));
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['dist/server.js'], {
    env: {
      ...process.env,
      DATABASE_URL: '',
      REDIS_URL: '',
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const url = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      if (url) {
        clearInterval(timer);
        resolve(url);
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`server exited with ${code}: ${out}`));
    });
  });
  listening.catch(() => undefined); // a test that expects an exit does not await it
  return { child, dataDir, listening, exited, output: () => out };
}

describe.runIf(dbKind === 'sqlite')('server', () => {
  it('creates and prints an API key on first start, serves, and shuts down cleanly on SIGTERM', async () => {
    const s = startServer();
    const url = await s.listening;
    const key = fs.readFileSync(path.join(s.dataDir, 'api-key.txt'), 'utf8').trim();
    expect(key).toMatch(/^kak_/);
    expect(s.output()).toContain(key);
    // The owner account is created in the browser, with a link printed once the server listens.
    await expect.poll(() => s.output(), { timeout: 10_000 }).toMatch(/\/setup#token=kst_\w{40}/);
    const stat = fs.statSync(path.join(s.dataDir, 'api-key.txt'));
    expect(stat.mode & 0o077).toBe(0);

    const res = await fetch(`${url}/v1/auth/forgot-password`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'nobody@example.com' }),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.output()).toContain('shutting down');
    // Logs carry no secrets: not the key, which was printed once on the console only.
    const logLines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'));
    expect(logLines.join('\n')).not.toContain(key);

    // The second start keeps the key and prints none.
    const again = startServer({ DATA_DIR: s.dataDir });
    await again.listening;
    expect(again.output()).not.toContain('created a client API key');
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    // Two starts of the server: slow on a loaded machine.
  }, 120_000);

  it('backs up into BACKUP_DIR soon after the start, logs it and reports it on /ready', async () => {
    const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-server-backups-'));
    dirs.push(backupDir);
    const s = startServer({ BACKUP_DIR: backupDir });
    const url = await s.listening;
    let ready: { backup?: { status: string; lastSuccess?: { file: string } } } = {};
    for (let i = 0; i < 200 && ready.backup?.status !== 'ok'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      ready = (await (await fetch(`${url}/ready`)).json()) as typeof ready;
    }
    expect(ready.backup?.status).toBe('ok');
    const file = ready.backup!.lastSuccess!.file;
    expect(fs.readdirSync(backupDir)).toEqual([file]);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    // Logs go out in batches: all of them are out once the process has ended.
    expect(s.output()).toMatch(/"msg":"backup written"/);
  }, 60_000);

  it('refuses to start on a bad setting, naming it', async () => {
    const s = startServer({ PORT: 'eighty' });
    expect(await s.exited).toBe(2);
    expect(s.output()).toContain('Invalid configuration: PORT must be a whole number');
  });
});
