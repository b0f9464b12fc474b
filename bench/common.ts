/**
 * What the bench scripts share (`bench/run.ts`, `bench/lists.ts`): printing, shell commands,
 * free ports, stopping a server, PostgreSQL's command-line arguments, the built app from `dist/`
 * driven in-process for seeding, and a bench account made through the API. Not a test.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';

const HERE = path.dirname(fileURLToPath(import.meta.url));

export function say(line = ''): void {
  process.stdout.write(`${line}\n`);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs a command, answers its stdout; throws with its stderr when it fails. */
export function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr || r.error?.message || r.status}`);
  return r.stdout;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

/** SIGTERM, SIGKILL after 15 s; resolves once the process has exited. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await gone;
  clearTimeout(timer);
}

/** `createdb`/`dropdb`/`psql` arguments for a server URL (`postgres://user@host:port`). */
export function pgArgs(pgUrl: string): string[] {
  const u = new URL(pgUrl);
  return [
    '-h',
    u.hostname,
    '-p',
    u.port || '5432',
    '-U',
    decodeURIComponent(u.username || 'postgres'),
  ];
}

/**
 * A bench's `--node-args="…"` and `--probe DIR` for the Kontor server called `name`: the flags
 * for its `node` and the environment it adds. With a probe, bench/tail-probe.cjs writes what
 * stalled the server (event-loop delays, GC pauses, WAL flushes, checkpoints, pool waits) to
 * `DIR/<name>.jsonl`, each event with its wall-clock time.
 */
export function serverProbe(
  opt: { 'node-args': string; probe?: string },
  name: string,
): { args: string[]; env: Record<string, string> } {
  const args = opt['node-args'].split(' ').filter(Boolean);
  if (!opt.probe) return { args, env: {} };
  fs.mkdirSync(path.resolve(opt.probe), { recursive: true });
  return {
    args: [...args, '--require', path.join(HERE, 'tail-probe.cjs')],
    env: { PROBE_FILE: path.resolve(opt.probe, `${name}.jsonl`) },
  };
}

export interface InjectResponse {
  statusCode: number;
  body: string;
}

export interface KontorApp {
  inject(req: {
    method: string;
    url: string;
    headers?: Record<string, string>;
    payload?: unknown;
  }): Promise<InjectResponse>;
  close(): Promise<void>;
  ctx: { db: Kysely<unknown> };
}

export interface KontorDist {
  buildApp(config: unknown, options?: { logStream?: NodeJS.WritableStream }): Promise<KontorApp>;
  loadConfig(env: NodeJS.ProcessEnv): unknown;
  verifyAuditChain(db: unknown): Promise<Record<string, unknown>>;
}

/** The built app of the checkout at `root` (`npm run build` first). */
export async function loadDist(root: string): Promise<KontorDist> {
  const dist = path.join(root, 'dist');
  if (!fs.existsSync(path.join(dist, 'server.js')))
    throw new Error('dist/ missing: run `npm run build`');
  const app = (await import(path.join(dist, 'app.js'))) as Pick<KontorDist, 'buildApp'>;
  const config = (await import(path.join(dist, 'config.js'))) as Pick<KontorDist, 'loadConfig'>;
  const audit = (await import(path.join(dist, 'shared', 'audit.js'))) as Pick<
    KontorDist,
    'verifyAuditChain'
  >;
  return { ...app, ...config, ...audit };
}

/** A call through `inject` that answers the JSON body and throws on anything but 2xx. */
export type Call = (
  method: string,
  url: string,
  payload?: unknown,
) => Promise<Record<string, unknown>>;

/** `Call` on `app` with the API key and, when given, a bearer token. */
export function caller(app: KontorApp, name: string, apiKey: string, token?: string): Call {
  return async (method, url, payload) => {
    const res = await app.inject({
      method,
      url,
      headers: {
        'x-api-key': apiKey,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    if (res.statusCode >= 300)
      throw new Error(
        `${name}: ${method} ${url} answered ${res.statusCode}: ${res.body.slice(0, 300)}`,
      );
    return (res.body ? JSON.parse(res.body) : {}) as Record<string, unknown>;
  };
}

/**
 * A bench account made as a user makes one: register → the code from the outbox mail (in
 * `dataDir`) → confirm → login → `POST /v1/api-tokens`. Answers the API token and a `Call`
 * that uses it.
 */
export async function registerAccount(
  app: KontorApp,
  name: string,
  apiKey: string,
  dataDir: string,
): Promise<{ token: string; call: Call }> {
  const anonymous = caller(app, name, apiKey);
  const email = `bench-${Date.now()}@example.com`;
  const password = 'a long passphrase for the bench';
  await anonymous('POST', '/v1/auth/register', {
    email,
    password,
    name: 'Bench',
    companyName: 'Bench GmbH',
  });
  const outbox = path.join(dataDir, 'outbox');
  let code: string | undefined;
  for (let i = 0; i < 120 && !code; i++) {
    await sleep(250);
    if (!fs.existsSync(outbox)) continue;
    for (const f of fs.readdirSync(outbox).filter((n) => n.endsWith('.eml')))
      code ??= /code: (\d{6})/.exec(fs.readFileSync(path.join(outbox, f), 'utf8'))?.[1];
  }
  if (!code) throw new Error(`${name}: no confirmation mail in ${outbox}`);
  await anonymous('POST', '/v1/auth/confirm', { email, code });
  const { accessToken } = (await anonymous('POST', '/v1/auth/login', { email, password })) as {
    accessToken: string;
  };
  const session = caller(app, name, apiKey, accessToken);
  const { token } = (await session('POST', '/v1/api-tokens', { name: 'bench' })) as {
    token: string;
  };
  if (!token.startsWith('kpat_')) throw new Error(`${name}: unexpected api-token answer`);
  return { token, call: caller(app, name, apiKey, token) };
}

/** One `wrk` measurement: rate, count, latency percentiles (ms) and failed answers. */
export interface WrkResult {
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  bad: number;
}

/**
 * `wrk` (1 thread, `bench/bench.lua` with `env`) against `url` for `seconds`, pinned to `cpu`.
 * A 30 s timeout: wrk's default of 2 s would count a slow answer (a finalize renders a PDF)
 * as an error.
 */
export function runWrk(options: {
  url: string;
  env: Record<string, string>;
  seconds: number;
  cpu: string;
  connections: number;
}): Promise<WrkResult> {
  const { url, env, seconds, cpu, connections } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(
      'taskset',
      [
        '-c',
        cpu,
        'wrk',
        '-t1',
        `-c${connections}`,
        `-d${seconds}s`,
        '--timeout',
        '30s',
        '--latency',
        '-s',
        path.join(HERE, 'bench.lua'),
        url,
      ],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      const line = /RESULT (\{.*\})/.exec(out)?.[1];
      if (code !== 0 || !line) return reject(new Error(`wrk failed (${code}): ${out.slice(-500)}`));
      const r = JSON.parse(line) as Record<string, number>;
      resolve({
        rps: r.requests! / (r.duration_us! / 1e6),
        requests: r.requests!,
        p50: r.p50! / 1000,
        p99: r.p99! / 1000,
        bad: r.errors! + r.status!,
      });
    });
  });
}
