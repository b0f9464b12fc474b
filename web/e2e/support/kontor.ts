/**
 * A real Kontor for browser tests: `node dist/server.js` (built first, only when its sources
 * changed, web/dist included) on a fresh data directory and a free port, on its embedded
 * SQLite — nothing from the caller's environment that points at a database, Redis or a mail
 * server reaches it. `kontorPerFile()` starts one before a spec file's first test and stops it
 * after its last, so files do not share accounts.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '..', '..', '..');

export interface Kontor {
  /** `http://127.0.0.1:<port>`, also its PUBLIC_URL. */
  readonly url: string;
  /** The data directory (outbox mails land in `<dataDir>/outbox`). */
  readonly dataDir: string;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /**
   * The first group of `pattern` in a mail to `to` in the outbox (no SMTP configured: mails are
   * files in `<dataDir>/outbox`); waits for it up to 10 s.
   */
  mail(to: string, pattern: RegExp): Promise<string>;
  /** The setup link the first start prints (`…/setup#token=…`); waits for it up to 10 s. */
  setupLink(): Promise<string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** The caller's environment minus anything that would point Kontor at shared services. */
function isolatedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (/^(DATABASE_|REDIS_|PG|SMTP_|S3_|API_KEYS$|CHROMIUM_PATH$)/.test(name)) delete env[name];
  }
  return { ...env, HOST: '127.0.0.1', ...extra };
}

async function waitForHealth(url: string, child: ChildProcess, output: () => string) {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) {
      throw new Error(`Kontor exited with ${child.exitCode}:\n${output()}`);
    }
    try {
      const res = await fetch(`${url}/health`);
      if (res.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Kontor did not answer /health within 60 s:\n${output()}`);
}

export interface KontorOptions {
  /**
   * Extra environment for this Kontor (e.g. `WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true'` for a
   * receiver on 127.0.0.1, `REMINDER_INTERVAL_MS: '0'` to keep the schedules still). Set
   * after the defaults, so it can override them.
   */
  env?: Record<string, string>;
}

export async function startKontor(options: KontorOptions = {}): Promise<Kontor> {
  const built = spawnSync(process.execPath, ['scripts/build.mjs', '--if-changed'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('node scripts/build.mjs --if-changed failed');

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-web-e2e-'));
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: root,
    env: isolatedEnv({
      DATA_DIR: dataDir,
      PORT: String(port),
      PUBLIC_URL: url,
      TEMPLATE_RENDER_LIMIT_MS: '10000',
      ...options.env,
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    await waitForHealth(url, child, () => output);
  } catch (err) {
    await stop();
    throw err;
  }

  return {
    url,
    dataDir,
    output: () => output,
    async mail(to, pattern) {
      const outbox = path.join(dataDir, 'outbox');
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const files = fs.existsSync(outbox) ? fs.readdirSync(outbox).sort() : [];
        // The newest mail first: a second code replaces the first.
        for (const file of files.reverse().filter((name) => name.endsWith('.eml'))) {
          const text = fs.readFileSync(path.join(outbox, file), 'utf8');
          const found = text.includes(to) ? pattern.exec(text)?.[1] : undefined;
          if (found !== undefined) return found;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`no mail to ${to} matching ${String(pattern)} in ${outbox}`);
    },
    async setupLink() {
      const deadline = Date.now() + 10_000;
      while (Date.now() < deadline) {
        const link = /(\S*\/setup#token=[^\s"'\\]+)/.exec(output)?.[1];
        if (link !== undefined) return link;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`Kontor printed no setup link (…/setup#token=…):\n${output}`);
    },
    stop,
  };
}

/**
 * Registers a Kontor for the current spec file: started in beforeAll, stopped in afterAll.
 * Returns a getter (the server exists only once beforeAll ran).
 */
export function kontorPerFile(options: KontorOptions = {}): () => Kontor {
  let kontor: Kontor | undefined;
  test.beforeAll(async () => {
    test.setTimeout(180_000);
    kontor = await startKontor(options);
  });
  test.afterAll(async () => {
    await kontor?.stop();
  });
  return () => {
    if (kontor === undefined) throw new Error('Kontor is not started (use it inside a test)');
    return kontor;
  };
}
