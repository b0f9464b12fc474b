/**
 * `npm run bench`: the fair HTTP comparison. Every target runs as its own process pinned to one
 * core (`taskset -c 1`), `wrk` (1 thread, 50 connections, 30 s timeout) and this harness on the
 * other core (`taskset -c 0`); every case gets a warm-up, then a measured run; all servers stay
 * up for the whole run and the rounds are interleaved (A B C … A B C …); ratios are taken per
 * round and then medianed. A measurement with over 0.5 % non-2xx answers or socket errors is left
 * out and named. See docs/benchmarks.md for the targets, options and the size comparison.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import {
  RESOURCE_ENDPOINTS,
  needsOf,
  resourceCase,
  seedResources,
  writeResourceFiles,
  type SeededResources,
} from './seed-resources.js';
import {
  freePort,
  loadDist,
  pgArgs,
  registerAccount,
  runWrk,
  say,
  serverProbe,
  sh,
  sleep,
  stopChild,
} from './common.js';
import { probeEvents, stallsIn, type ProbeEvent } from './probe-stalls.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const ALL_TARGETS = ['bare', 'fastify-min', 'kontor-sqlite', 'kontor-pg'];

const { values: opt } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    partners: { type: 'string', default: '10000' },
    finals: { type: 'string', default: '300' },
    drafts: { type: 'string' },
    sizes: { type: 'string' },
    targets: { type: 'string' },
    endpoints: { type: 'string' },
    pg: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432' },
    redis: { type: 'string', default: 'redis://127.0.0.1:6379' },
    'server-cpu': { type: 'string', default: '1' },
    'load-cpu': { type: 'string', default: '0' },
    'kontor-log': { type: 'string', default: '/dev/null' },
    'with-peer': { type: 'boolean', default: false },
    out: { type: 'string' },
    keep: { type: 'boolean', default: false },
    profile: { type: 'string' },
    'node-args': { type: 'string', default: '' },
    probe: { type: 'string' },
  },
});

const ROUNDS = Number(opt.rounds);
const SECONDS = Number(opt.seconds);
const WARMUP = Number(opt.warmup);
const CONNECTIONS = Number(opt.connections);
const SIZES = opt.sizes?.split(',').map(Number);
const PARTNERS = Number(opt.partners);
const TARGETS = (opt.targets ?? (SIZES ? 'kontor-sqlite' : ALL_TARGETS.join(','))).split(',');
const ASKED = (opt.endpoints ?? (SIZES ? 'get,post' : 'get,list,post,put')).split(',');
const PARTNER_ENDPOINTS = ['get', 'list', 'post', 'put'];
/**
 * The endpoints measured, partners first: a resource endpoint brings the partner endpoint of its
 * verb along (its ratio is taken against it); resources in the order of RESOURCE_ENDPOINTS.
 */
const ENDPOINTS = [
  ...PARTNER_ENDPOINTS.filter(
    (p) => ASKED.includes(p) || ASKED.some((e) => RESOURCE_ENDPOINTS[e]?.verb === p),
  ),
  ...Object.keys(RESOURCE_ENDPOINTS).filter((e) => ASKED.includes(e)),
];
/** Drafts for `inv-finalize` (each renders a PDF): 40 a second over warm-up and measurement, 1.5 × margin. */
const DRAFTS = Number(opt.drafts ?? Math.ceil(40 * (WARMUP + SECONDS) * ROUNDS * 1.5));
const FINALS = Number(opt.finals);
const SERVER_CPU = opt['server-cpu'];
const LOAD_CPU = opt['load-cpu'];

if (!(ROUNDS >= 1 && ROUNDS <= 20 && SECONDS > 0 && SECONDS <= 60 && WARMUP >= 0 && WARMUP <= 10))
  throw new Error('--rounds 1–20, --seconds 1–60, --warmup 0–10');
for (const t of TARGETS)
  if (!ALL_TARGETS.includes(t)) throw new Error(`unknown target ${t} (${ALL_TARGETS.join(', ')})`);
for (const e of ASKED)
  if (!PARTNER_ENDPOINTS.includes(e) && !(e in RESOURCE_ENDPOINTS))
    throw new Error(
      `unknown endpoint ${e} (${[...PARTNER_ENDPOINTS, ...Object.keys(RESOURCE_ENDPOINTS)].join(', ')})`,
    );
for (const n of [DRAFTS, FINALS])
  if (!(Number.isInteger(n) && n >= 0 && n <= 1_000_000))
    throw new Error(`bad --drafts/--finals ${n}`);
for (const n of SIZES ?? [PARTNERS])
  if (!(Number.isInteger(n) && n >= 1 && n <= 1_000_000)) throw new Error(`bad size ${n}`);
if (SIZES && SIZES.length !== 2) throw new Error('--sizes takes two sizes, e.g. 10000,200000');

// ---------------------------------------------------------------------------------------------
// Processes

/** Pins this process (and so wrk's parent) to the load core. */
function pinSelf(): void {
  sh('taskset', ['-cp', LOAD_CPU, String(process.pid)]);
}

interface Server {
  name: string;
  child: ChildProcess;
  base: string;
  exited: boolean;
  prefix: string;
  wrkEnv: Record<string, string>;
  ids?: string[];
  idsFile?: string;
  putState?: string;
  resources?: SeededResources;
  /** Per resource endpoint: the file of ids (getid, post) or "id version" lines (put). */
  files: Record<string, string>;
}

const children: ChildProcess[] = [];

function startProcess(
  name: string,
  args: string[],
  env: Record<string, string>,
  port: number,
  logFile: string,
): Server {
  const out = fs.openSync(logFile, 'a');
  const child = spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  children.push(child);
  const server: Server = {
    name,
    child,
    base: `http://127.0.0.1:${port}`,
    exited: false,
    prefix: '',
    wrkEnv: {},
    files: {},
  };
  child.on('exit', () => (server.exited = true));
  return server;
}

async function waitHttp(server: Server, pathName: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (server.exited) throw new Error(`${server.name} exited while starting`);
    try {
      await fetch(`${server.base}${pathName}`);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new Error(`${server.name} did not answer within 30 s`);
}

// ---------------------------------------------------------------------------------------------
// Targets

const NAMES = ['Müller', 'Schäfer', 'Weiß', 'Becker', 'Hoffmann', 'Köhler', 'Zimmermann', 'Braun'];
const FORMS = ['GmbH', 'AG', 'KG', 'e.K.', 'GmbH & Co. KG'];
const TAGS = ['supplier', 'office', 'it', 'logistics', 'consulting', 'key-account'];

function partnerBody(i: number) {
  const tags = [TAGS[i % TAGS.length]!, TAGS[(i * 7 + 3) % TAGS.length]!];
  return {
    name: `${NAMES[i % NAMES.length]!} ${i} ${FORMS[i % FORMS.length]!}`,
    type: i % 3 === 0 ? 'VENDOR' : 'CUSTOMER',
    ...(i % 2 === 0 ? { description: `Seeded partner number ${i}.` } : {}),
    ...(i % 4 === 0 ? { website: `https://partner-${i}.example` } : {}),
    addresses: [
      {
        type: 'BILLING',
        street: `Hauptstraße ${(i % 200) + 1}`,
        postalCode: String(10_000 + (i % 89_999)),
        city: 'Berlin',
        country: 'DE',
      },
    ],
    tags: tags.filter((t, k) => tags.indexOf(t) === k),
  };
}

const tsxImport = ['--import', 'tsx'];

async function startBare(runDir: string): Promise<Server> {
  const port = await freePort();
  const s = startProcess(
    'bare',
    [...tsxImport, path.join(HERE, 'targets', 'bare.ts')],
    { PORT: String(port) },
    port,
    path.join(runDir, 'bare.log'),
  );
  await waitHttp(s, '/');
  return s;
}

async function startFastifyMin(runDir: string, count: number): Promise<Server> {
  const file = path.join(runDir, 'fastify-min.sqlite');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec(`create table partners (id text primary key, account_id text not null, name text not null,
    search_name text not null, type text not null, description text, website text, logo_file_id text,
    addresses text not null, tags text not null, version integer not null, created_at text not null,
    updated_at text not null)`);
  const insert = db.prepare(
    'insert into partners values (?, ?, ?, ?, ?, ?, ?, null, ?, ?, 1, ?, ?)',
  );
  const ids: string[] = [];
  const now = new Date().toISOString();
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const b = partnerBody(i);
      const id = `ptr_${crypto.randomBytes(12).toString('hex')}`;
      ids.push(id);
      insert.run(
        id,
        'acc_bench',
        b.name,
        b.name.toLowerCase(),
        b.type,
        b.description ?? null,
        b.website ?? null,
        JSON.stringify(b.addresses),
        JSON.stringify(b.tags),
        now,
        now,
      );
    }
  })();
  db.close();
  const token = crypto.randomBytes(20).toString('hex');
  const port = await freePort();
  const s = startProcess(
    'fastify-min',
    [...tsxImport, path.join(HERE, 'targets', 'fastify-sqlite.ts')],
    { PORT: String(port), DB_FILE: file, TOKEN: token },
    port,
    path.join(runDir, 'fastify-min.log'),
  );
  await waitHttp(s, '/partners/x');
  s.prefix = '/partners';
  s.wrkEnv = { AUTH: `Bearer ${token}` };
  s.ids = ids;
  return s;
}

/** The environment Kontor runs with: production, request log on, limits it cannot reach. */
function kontorEnv(dataDir: string, apiKey: string, databaseUrl?: string): Record<string, string> {
  const plansFile = path.join(dataDir, 'plans.json');
  const huge = { requestsPerMinute: 100_000_000, requestsPerMonth: 2_000_000_000 };
  fs.writeFileSync(
    plansFile,
    JSON.stringify([
      {
        id: 'FREE',
        name: 'Bench',
        seats: 100,
        ...huge,
        storageBytes: 10_000_000_000,
        currency: 'EUR',
        monthlyPrice: 0,
      },
    ]),
  );
  return {
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_KEYS: apiKey,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    PLANS_FILE: plansFile,
    REMINDER_INTERVAL_MS: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, REDIS_URL: opt.redis } : {}),
  };
}

/**
 * Seeds a Kontor database through its own HTTP routes, driven in-process with `inject` by the
 * built app (dist/) on the same DATA_DIR / DATABASE_URL the server will use: the account is made
 * by register → code from the outbox mail → confirm → login → POST /v1/api-tokens, and every
 * partner by POST /v1/partners, so partners, tags and audit events are exactly what the API
 * writes (the audit chain is verified at the end). No socket, so 200 000 take minutes, not an hour.
 */
async function seedKontor(
  name: string,
  env: Record<string, string>,
  count: number,
): Promise<{ token: string; ids: string[]; resources?: SeededResources }> {
  const dist = await loadDist(ROOT);
  const config = dist.loadConfig({ ...env, PORT: '0' });
  const app = await dist.buildApp(config, { logStream: fs.createWriteStream('/dev/null') });
  try {
    const { token, call } = await registerAccount(app, name, env.API_KEYS!, env.DATA_DIR!);

    const ids: string[] = new Array<string>(count);
    const started = Date.now();
    let next = 0;
    let lastReport = started;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        const { id } = (await call('POST', '/v1/partners', partnerBody(i))) as {
          id: string;
        };
        ids[i] = id;
        if (Date.now() - lastReport > 10_000) {
          lastReport = Date.now();
          say(`   ${name}: ${i + 1} / ${count} partners`);
        }
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    const seconds = (Date.now() - started) / 1000;
    const report = await dist.verifyAuditChain(app.ctx.db);
    say(
      `   ${name}: seeded ${count} partners through POST /v1/partners in ${seconds.toFixed(0)} s ` +
        `(${Math.round(count / seconds)}/s); audit chain: ${JSON.stringify(report)}`,
    );
    const needs = needsOf(ENDPOINTS);
    let resources: SeededResources | undefined;
    if (Object.values(needs).some(Boolean)) {
      const rows = { name, rows: count, finals: FINALS, drafts: DRAFTS, partnerIds: ids };
      resources = await seedResources(call, rows, needs, say);
      say(`   ${name}: audit chain: ${JSON.stringify(await dist.verifyAuditChain(app.ctx.db))}`);
    }
    // What autovacuum does on a production server after a load like this (a PostgreSQL run
    // without it would measure plans made without statistics): statistics, visibility map.
    if (env.DATABASE_URL?.startsWith('postgres'))
      spawnSync('psql', [env.DATABASE_URL, '-qc', 'vacuum analyze'], { stdio: 'inherit' });
    return resources ? { token, ids, resources } : { token, ids };
  } finally {
    await app.close();
  }
}

async function startKontor(
  name: string,
  runDir: string,
  count: number,
  databaseUrl?: string,
): Promise<Server> {
  const dataDir = path.join(runDir, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const apiKey = `bench-key-${crypto.randomBytes(12).toString('hex')}`;
  const env = kontorEnv(dataDir, apiKey, databaseUrl);
  const { token, ids, resources } = await seedKontor(name, env, count);
  const port = await freePort();
  const probe = serverProbe(opt, name);
  const logFile = opt['kontor-log'] === '/dev/null' ? '/dev/null' : path.resolve(opt['kontor-log']);
  const s = startProcess(
    name,
    [
      // `--profile DIR`: a CPU profile of each Kontor server over the whole run (seeding too;
      // `bench/profile-summary.mjs FILE TOP SECONDS` reads the last seconds alone).
      ...(opt.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opt.profile, name)}`] : []),
      ...probe.args,
      path.join(ROOT, 'dist', 'server.js'),
    ],
    { ...env, PORT: String(port), ...probe.env },
    port,
    logFile,
  );
  await waitHttp(s, '/health');
  s.prefix = '/v1/partners';
  s.wrkEnv = { API_KEY: apiKey, AUTH: `Bearer ${token}` };
  s.ids = ids;
  s.resources = resources;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Measuring

interface Case {
  target: string;
  endpoint: string;
  size?: number;
}
interface Row extends Case {
  round: number;
  /** The measured seconds, wall clock (ms since the epoch). */
  from: number;
  to: number;
  rps: number;
  requests: number;
  p50: number;
  p99: number;
  bad: number;
}

// ---------------------------------------------------------------------------------------------
// Run

const servers = new Map<string, Server>();
const databases: string[] = [];
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);
const outDir = path.resolve(opt.out ?? path.join(HERE, 'results', stamp));
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-'));

function log(line: string): void {
  say(line);
  fs.appendFileSync(path.join(outDir, 'log.txt'), `${line}\n`);
}

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await Promise.all(children.map(stopChild));
    if (opt.keep) return say(`kept ${runDir} and databases ${databases.join(', ') || '–'}`);
    for (const db of databases)
      try {
        sh('dropdb', [...pgArgs(opt.pg), '--if-exists', '--force', db]);
      } catch (err) {
        say(`!! could not drop ${db}: ${(err as Error).message}`);
      }
    fs.rmSync(runDir, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    say(`\n${sig}: stopping servers, removing temp data`);
    void cleanup().finally(() => process.exit(130));
  });

const key = (target: string, size?: number) => (size === undefined ? target : `${target}@${size}`);

async function setUp(): Promise<Case[]> {
  const cases: Case[] = [];
  const sizes = SIZES ?? [PARTNERS];
  if (TARGETS.includes('bare')) {
    servers.set('bare', await startBare(runDir));
    cases.push({ target: 'bare', endpoint: 'hello' });
  }
  if (TARGETS.includes('fastify-min')) {
    servers.set('fastify-min', await startFastifyMin(runDir, sizes[0]!));
    cases.push({ target: 'fastify-min', endpoint: 'get' });
  }
  const apps: { target: string; size?: number }[] = [];
  for (const target of ['kontor-sqlite', 'kontor-pg'].filter((t) => TARGETS.includes(t)))
    for (const size of sizes) {
      const name = key(target, SIZES ? size : undefined);
      let url: string | undefined;
      if (target === 'kontor-pg') {
        const db = `kontor_bench_${stamp.replace(/-/g, '').toLowerCase()}_${size}`;
        sh('createdb', [...pgArgs(opt.pg), db]);
        databases.push(db);
        const u = new URL(opt.pg);
        u.pathname = `/${db}`;
        url = u.toString();
      }
      log(`${name}: seeding ${size} partners`);
      servers.set(name, await startKontor(serverName(name), runDir, size, url));
      apps.push({ target, size: SIZES ? size : undefined });
    }
  for (const endpoint of ENDPOINTS)
    for (const a of apps) cases.push({ target: a.target, endpoint, size: a.size });
  for (const [name, s] of servers) {
    if (!s.ids) continue;
    s.idsFile = path.join(runDir, `${name}-ids.txt`);
    fs.writeFileSync(s.idsFile, `${s.ids.join('\n')}\n`);
    s.putState = path.join(runDir, `${name}-put.txt`);
    fs.writeFileSync(s.putState, s.ids.map((id) => `${id} 1\n`).join(''));
    if (s.resources)
      s.files = writeResourceFiles(path.join(runDir, name), s.resources, (f, text) =>
        fs.writeFileSync(f, text),
      );
  }
  return cases;
}

async function measure(c: Case, round: number, seconds: number) {
  const s = servers.get(key(c.target, c.size))!;
  const env: Record<string, string> = { ...s.wrkEnv, TAG: `r${round}-${Date.now()}` };
  let url = `${s.base}/`;
  let state: string | undefined;
  if (c.endpoint in RESOURCE_ENDPOINTS) {
    const r = resourceCase(c.endpoint, s.resources!, s.files);
    Object.assign(env, r.env);
    url = `${s.base}${r.path}`;
    state = r.state;
  } else if (c.endpoint === 'get')
    Object.assign(env, { MODE: 'getid', PREFIX: `${s.prefix}/`, IDS_FILE: s.idsFile });
  else if (c.endpoint === 'list') {
    env.MODE = 'get';
    url = `${s.base}${s.prefix}?limit=25`;
  } else if (c.endpoint === 'post') Object.assign(env, { MODE: 'post', PREFIX: s.prefix });
  else if (c.endpoint === 'put') {
    state = s.putState;
    Object.assign(env, {
      MODE: 'put',
      PREFIX: `${s.prefix}/`,
      IDS_FILE: s.putState,
      STATE_OUT: `${s.putState}.next`,
    });
  } else env.MODE = 'get';
  const r = await runWrk({ url, env, seconds, cpu: LOAD_CPU, connections: CONNECTIONS });
  if (state) fs.renameSync(`${state}.next`, state);
  if (s.exited) throw new Error(`${s.name} died during ${c.endpoint}`);
  return r;
}

// ---------------------------------------------------------------------------------------------
// Report

const valid = (r: Row) => r.requests > 0 && r.bad <= 0.005 * r.requests;

interface Stats {
  median: number;
  min: number;
  max: number;
}
function stats(values: number[]): Stats | undefined {
  const v = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = Math.floor(v.length / 2);
  return {
    median: v.length % 2 ? v[m]! : (v[m - 1]! + v[m]!) / 2,
    min: v[0]!,
    max: v[v.length - 1]!,
  };
}

const LABEL: Record<string, string> = {
  hello: 'GET / (small JSON)',
  get: 'GET /partners/{id}',
  list: 'GET /partners?limit=25',
  post: 'POST /partners',
  put: 'PUT /partners/{id}',
  ...Object.fromEntries(Object.entries(RESOURCE_ENDPOINTS).map(([k, e]) => [k, e.label])),
};
const f0 = (x?: number) => (x === undefined ? '–' : Math.round(x).toLocaleString('en-US'));
const f1 = (x?: number) => (x === undefined ? '–' : x.toFixed(1));
const fr = (s?: Stats) => (s === undefined ? '–' : s.median.toFixed(s.median < 0.1 ? 3 : 2));

const fs2 = (s?: Stats) =>
  s === undefined
    ? '–'
    : `${fr(s)} (${fr({ ...s, median: s.min })}–${fr({ ...s, median: s.max })})`;
const goal = (s: Stats | undefined, min: number) =>
  `≥ ${min.toFixed(2)}${s ? (s.median >= min ? ' ✓' : ' ✗') : ''}`;

/** The valid measurement of a case in a round. */
function finder(rows: Row[]) {
  const ok = rows.filter(valid);
  return (target: string, endpoint: string, round: number, size?: number) =>
    ok.find(
      (r) => r.target === target && r.endpoint === endpoint && r.round === round && r.size === size,
    );
}

/** Per case: req/s, p99 (median and every round's), the ratios to bare and minimal. */
function mainTable(cases: Case[], rows: Row[]): string[] {
  const find = finder(rows);
  const lines = [
    `| target | request | req/s median (min–max), ${ROUNDS} rounds | p99 ms median (min–max) | p99 ms per round | × bare | × minimal | left out |`,
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const c of cases) {
    const all = rows.filter(
      (r) => r.target === c.target && r.endpoint === c.endpoint && r.size === c.size,
    );
    const mine = all.filter(valid);
    const rps = stats(mine.map((r) => r.rps));
    const p99 = stats(mine.map((r) => r.p99));
    const ratio = (t: string, e: string) =>
      stats(mine.map((r) => r.rps / (find(t, e, r.round)?.rps ?? NaN)));
    const perRound = all.map((r) => (valid(r) ? f1(r.p99) : `(${f1(r.p99)})`)).join(' / ');
    const out = all
      .filter((r) => !valid(r))
      .map((r) => `round ${r.round} (${r.bad} of ${r.requests} bad)`);
    lines.push(
      `| ${key(c.target, c.size)} | ${LABEL[c.endpoint]} | ${f0(rps?.median)} (${f0(rps?.min)}–${f0(rps?.max)}) | ` +
        `${f1(p99?.median)} (${f1(p99?.min)}–${f1(p99?.max)}) | ${perRound || '–'} | ${fr(ratio('bare', 'hello'))} | ` +
        `${fr(ratio('fastify-min', 'get'))} | ${out.join(', ') || '–'} |`,
    );
  }
  lines.push(
    '',
    '× bare: against bare node:http GET / of the same round; × minimal: against the minimal Fastify + SQLite',
    'GET by id of the same round; medians of the per-round ratios. A measurement with over 0.5 % non-2xx',
    "answers or socket errors is left out (with its round's ratios); its p99 is shown in parentheses.",
  );
  return lines;
}

/** Every resource case's req/s over the partner endpoint of its verb, per round, medianed. */
function partnerRatioTable(cases: Case[], rows: Row[]): string[] {
  const find = finder(rows);
  const mine = cases.filter((c) => c.endpoint in RESOURCE_ENDPOINTS);
  if (mine.length === 0) return [];
  const lines = [
    '',
    '| target | request | × partner of the same verb, median (min–max) of per-round ratios | goal |',
    '|---|---|---|---|',
  ];
  for (const c of mine) {
    const verb = RESOURCE_ENDPOINTS[c.endpoint]!.verb;
    const s = stats(
      rows
        .filter(
          (r) =>
            valid(r) && r.target === c.target && r.endpoint === c.endpoint && r.size === c.size,
        )
        .map((r) => r.rps / (find(c.target, verb, r.round, c.size)?.rps ?? NaN)),
    );
    lines.push(
      `| ${key(c.target, c.size)} | ${LABEL[c.endpoint]} ÷ ${LABEL[verb]} | ${fs2(s)} | ${goal(s, 0.67)} |`,
    );
  }
  lines.push('', 'Goal: within 1.5× of the partner request of the same verb (ratio ≥ 0.67).');
  return lines;
}

/** With `--sizes A,B`: every case's req/s at B over A, per round, medianed. */
function sizeTable(cases: Case[], rows: Row[]): string[] {
  if (!SIZES) return [];
  const find = finder(rows);
  const lines = [
    '',
    `| target | request | ${SIZES[1]} / ${SIZES[0]} rows, median (min–max) of per-round ratios | goal |`,
    '|---|---|---|---|',
  ];
  for (const c of cases.filter((c) => c.size === SIZES[1])) {
    const big = rows.filter(
      (r) => valid(r) && r.target === c.target && r.endpoint === c.endpoint && r.size === SIZES[1],
    );
    const s = stats(
      big.map((r) => r.rps / (find(c.target, c.endpoint, r.round, SIZES[0])?.rps ?? NaN)),
    );
    lines.push(`| ${c.target} | ${LABEL[c.endpoint]} | ${fs2(s)} | ${goal(s, 0.8)} |`);
  }
  return lines;
}

function table(cases: Case[], rows: Row[]): string {
  return [
    ...mainTable(cases, rows),
    ...partnerRatioTable(cases, rows),
    ...sizeTable(cases, rows),
  ].join('\n');
}

/** A Kontor server's name (its data folder, profile and probe file): `key` without the `@`. */
const serverName = (key: string) => key.replace('@', '-');

/** `--probe`: beside each measured case, what stalled its server meanwhile. */
function explainRows(rows: Row[]): void {
  log('what stalled each server in each measured case (ms; count of events):');
  // Each server's file read once; named as its server is (`serverName`).
  const read = new Map<string, ProbeEvent[]>();
  for (const r of rows) {
    const name = key(r.target, r.size);
    if (!read.has(name))
      read.set(name, probeEvents(path.resolve(opt.probe!, `${serverName(name)}.jsonl`)));
    const events = read.get(name)!;
    if (events.length === 0) continue;
    log(
      `  ${name} ${r.endpoint} round ${r.round}: p99 ${f1(r.p99)}, ` +
        stallsIn(events, r.from, r.to),
    );
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  fs.mkdirSync(outDir, { recursive: true });
  pinSelf();
  log(
    `node ${process.version}, ${os.cpus().length} CPUs, servers on CPU ${SERVER_CPU}, wrk on CPU ${LOAD_CPU}, ` +
      `${CONNECTIONS} connections, ${WARMUP} s warm-up + ${SECONDS} s per case, ${ROUNDS} rounds` +
      (SIZES ? `, sizes ${SIZES.join(' vs ')}` : `, ${PARTNERS} partners`),
  );
  const cases = await setUp();
  log(`servers: ${[...servers].map(([n, s]) => `${n} pid ${s.child.pid}`).join(', ')}`);
  const rows: Row[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const load = fs.readFileSync('/proc/loadavg', 'utf8').trim();
    log(`round ${round}/${ROUNDS} (loadavg ${load})`);
    for (const c of cases) {
      if (WARMUP > 0) await measure(c, round, WARMUP);
      const from = Date.now();
      const r: Row = { ...c, round, ...(await measure(c, round, SECONDS)), from, to: Date.now() };
      rows.push(r);
      fs.appendFileSync(path.join(outDir, 'rounds.jsonl'), `${JSON.stringify(r)}\n`);
      log(
        `  ${key(c.target, c.size).padEnd(22)} ${c.endpoint.padEnd(12)} ${f0(r.rps).padStart(7)} req/s  ` +
          `p99 ${f1(r.p99)} ms${r.bad ? `  ${r.bad} bad` : ''}`,
      );
    }
  }
  if (opt.probe) explainRows(rows);
  const md = table(cases, rows);
  fs.writeFileSync(path.join(outDir, 'summary.md'), `${md}\n`);
  say();
  say(md);
  say();
  say(
    `results in ${path.relative(ROOT, outDir)}; done in ${((Date.now() - started) / 1000).toFixed(0)} s`,
  );
}

/**
 * `--with-peer`: the NestJS peer is not part of the project; when `../shared/bench` (built) sits
 * beside the checkout, its harness runs the same method with the peer added to the targets.
 */
function runWithPeer(): number {
  const harness = path.resolve(ROOT, '..', 'shared', 'bench', 'bench.mjs');
  if (!fs.existsSync(harness)) throw new Error(`--with-peer: ${harness} not found`);
  const targets = [...TARGETS, 'nest-pg', 'nest-sqlite'].filter(
    (t, i, all) => all.indexOf(t) === i,
  );
  const args = [harness, '--kontor', ROOT, '--rounds', opt.rounds, '--seconds', opt.seconds];
  args.push('--warmup', opt.warmup, '--partners', opt.partners, '--targets', targets.join(','));
  args.push('--endpoints', ENDPOINTS.join(','), '--pg', opt.pg, '--redis', opt.redis);
  say(`delegating to ${harness}`);
  return spawnSync(process.execPath, args, { stdio: 'inherit' }).status ?? 1;
}

if (opt['with-peer']) {
  fs.rmSync(runDir, { recursive: true, force: true });
  process.exitCode = runWithPeer();
} else
  try {
    await main();
  } finally {
    await cleanup();
  }
