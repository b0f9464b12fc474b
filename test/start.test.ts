/**
 * `npm start` as an operator runs it: from the build, and stopped cleanly by SIGTERM (a
 * process manager) or SIGINT (Ctrl-C) sent to npm itself. Before, npm died and left the
 * server running with nobody to stop it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { freePort, loadEnsureBuilt, root } from './processes.js';
import { report } from './report.js';

async function healthy(port: number, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return true;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function refused(port: number): Promise<boolean> {
  try {
    await fetch(`http://127.0.0.1:${port}/health`);
    return false;
  } catch {
    return true;
  }
}

let ensureBuilt: () => boolean;
beforeAll(async () => {
  // The build `npm ci` made (prepare); rebuilt here only when the sources changed since.
  ensureBuilt = await loadEnsureBuilt();
  ensureBuilt();
}, 180_000);

describe('npm start', () => {
  it('does not rebuild when the sources are those of the last build', () => {
    expect(ensureBuilt()).toBe(false);
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'starts from the build and stops cleanly on %s sent to npm',
    async (signal) => {
      const port = await freePort();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-start-'));
      const started = Date.now();
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: root,
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          REDIS_URL: '',
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (d: Buffer) => (output += d.toString()));
      npm.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const exited = new Promise<number | null>((resolve) =>
        npm.on('exit', (code) => resolve(code)),
      );
      try {
        expect(await healthy(port, Date.now() + 60_000), output).toBe(true);
        report(`npm start → healthy in ${Date.now() - started} ms (stopped with ${signal})`);
        npm.kill(signal);
        expect(await exited, output).toBe(0);
        expect(await refused(port)).toBe(true);
      } finally {
        npm.kill('SIGKILL');
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    90_000,
  );

  it('refuses a port another program holds with one clear line, before creating or printing anything', async () => {
    const port = await freePort();
    const other = net.createServer();
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-busy-'));
    try {
      const npm = spawn('npm', ['start', '--silent'], {
        cwd: root,
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          REDIS_URL: '',
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (d: Buffer) => (output += d.toString()));
      npm.stderr.on('data', (d: Buffer) => (output += d.toString()));
      const code = await new Promise<number | null>((resolve) => npm.on('exit', resolve));
      expect(code, output).not.toBe(0);
      expect(output.trim()).toBe(
        `Port ${port} is in use by another program; set PORT=… to use another port (e.g. PORT=3001 npm start). Kontor did not start.`,
      );
      // Nothing was created: no database, no first-start key to lose.
      expect(fs.readdirSync(dataDir)).toEqual([]);
    } finally {
      other.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
