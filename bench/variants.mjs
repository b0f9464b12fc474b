// `node bench/variants.mjs`: Kontor variants side by side on one pinned core, interleaved
// round by round against the minimal Fastify + SQLite route, using the shared harness
// (`../shared/bench`, built with its own `npm ci && npm run build`). A variant is a set of
// environment overrides applied in the server process before it loads (LOG_LEVEL,
// RATE_LIMITS, …), or another built checkout (`KDIR`); each gets 2,000 partners through the
// API. Prints req/s and the server's CPU time per request (utime + stime from /proc over the
// measured seconds), which moves less with the machine's load than req/s.
//   VARIANTS='{"base":{},"nolog":{"LOG_LEVEL":"warn"}}' EP=get ROUNDS=5 SECS=5 node bench/variants.mjs
// EP: get | list | post | put; MIN=0 leaves out the minimal route; PROF_DIR=dir writes a CPU
// profile per variant (`node bench/profile-summary.mjs dir/<variant>/*.cpuprofile`). Keys of a
// variant that are not environment: KDIR (another build), PEER=nest (the harness's NestJS peer),
// NODE_ARGS (flags for the server's node, e.g. "--trace-gc-nvp"), REQUIRE (a script the server
// loads first), LOG_FILE (the server's stdout; /dev/null otherwise). PROBE=1 loads
// bench/tail-probe.cjs into every variant and prints, per round, what stalled the server during
// the measured seconds (event-loop delay, GC pauses, WAL flushes, checkpoints, pool waits) beside
// the round's p99. Not a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { probeEvents, stallsIn } from './probe-stalls.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const harness = path.resolve(here, '../../shared/bench/lib');
const { pinSelf, runWrk, stopAll, uptime } = await import(path.join(harness, 'proc.mjs'));
const { seedViaApi, startKontor, startFastifySqlite, startNest } = await import(
  path.join(harness, 'targets.mjs')
);

const say = (line) => process.stdout.write(`${line}\n`);
const variants = JSON.parse(process.env.VARIANTS ?? '{"base":{}}');
const endpoint = process.env.EP ?? 'get';
const rounds = Number(process.env.ROUNDS ?? 3);
const seconds = Number(process.env.SECS ?? 4);
const kontorDir = path.resolve(here, '..');
const mode = { get: 'getid', list: 'get', post: 'post', put: 'put' }[endpoint];
const probe = process.env.PROBE === '1' ? path.join(here, 'tail-probe.cjs') : undefined;

/** CPU time of a process so far, in clock ticks (1/100 s). */
function cpuTicks(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU time of PostgreSQL so far, in clock ticks: every live postgres process (backends, WAL
 * writer, …) plus what the postmaster has reaped of its children (backends and autovacuum
 * workers that exited).
 */
function postgresTicks() {
  let ticks = 0;
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks;
}

const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Per round: the p99 beside the longest stall of each kind the probe saw in its window. */
function explainRounds(name, file, list) {
  const events = probeEvents(file);
  say(`${name}: what stalled the server in each measured round (ms; count of events)`);
  list.forEach((w, i) => {
    const [from, to] = w.window;
    say(`  round ${i + 1}: p99 ${(w.p99 / 1000).toFixed(1)}, ${stallsIn(events, from, to)}`);
  });
}

pinSelf('0');
const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-variants-'));
const servers = {};
try {
  if (process.env.MIN !== '0') {
    const s = await startFastifySqlite({ runDir, cpu: '1', count: 2000 });
    s.idsFile = path.join(runDir, 'min-ids.txt');
    fs.writeFileSync(s.idsFile, `${s.ids.join('\n')}\n`);
    s.minimal = true;
    servers['fastify-min'] = s;
  }
  for (const [name, env] of Object.entries(variants)) {
    const preload = path.join(runDir, `${name}.cjs`);
    const probeFile = probe && path.join(runDir, `${name}.probe.jsonl`);
    fs.writeFileSync(
      preload,
      Object.entries(probeFile ? { ...env, PROBE_FILE: probeFile } : env)
        .map(([k, v]) =>
          // REQUIRE: a script the server loads first (e.g. an event-loop delay probe).
          k === 'REQUIRE'
            ? `require(${JSON.stringify(v)});`
            : `process.env[${JSON.stringify(k)}] = ${JSON.stringify(v)};`,
        )
        .join('\n'),
    );
    // PEER=nest: the NestJS peer of the shared harness on DATABASE_URL, for a side-by-side look.
    const s =
      env.PEER === 'nest'
        ? await startNest({ name, runDir, cpu: '1', databaseUrl: env.DATABASE_URL })
        : await startKontor({
            name,
            kontorDir: env.KDIR ?? kontorDir,
            runDir,
            cpu: '1',
            // LOG_FILE: where the server's stdout goes (default /dev/null).
            ...(env.LOG_FILE ? { logFile: env.LOG_FILE } : {}),
            // PROF_DIR: a CPU profile of each variant (node --cpu-prof), written when it stops.
            nodeArgs: [
              // NODE_ARGS: flags for the server's node (e.g. "--max-semi-space-size=64").
              ...(env.NODE_ARGS ? env.NODE_ARGS.split(' ') : []),
              '--require',
              preload,
              ...(probe ? ['--require', probe] : []),
              ...(process.env.PROF_DIR
                ? ['--cpu-prof', '--cpu-prof-dir', path.join(process.env.PROF_DIR, name)]
                : []),
            ],
          });
    const ids = await seedViaApi({
      name,
      url: `${s.base}${s.prefix}`,
      headers: s.headers,
      count: 2000,
    });
    s.idsFile = path.join(runDir, `${name}-ids.txt`);
    fs.writeFileSync(s.idsFile, `${ids.join('\n')}\n`);
    s.putState = path.join(runDir, `${name}-put.txt`);
    fs.writeFileSync(s.putState, ids.map((id) => `${id} 1\n`).join(''));
    servers[name] = s;
  }
  const results = {};
  for (let round = 1; round <= rounds; round++) {
    say(`round ${round}: ${uptime()}`);
    for (const [name, s] of Object.entries(servers)) {
      const env = { ...s.wrkEnv, MODE: s.minimal ? 'getid' : mode, TAG: `r${round}-${Date.now()}` };
      let url = `${s.base}/`;
      if (s.minimal || endpoint === 'get')
        Object.assign(env, { PREFIX: `${s.prefix}/`, IDS_FILE: s.idsFile });
      else if (endpoint === 'list') url = `${s.base}${s.prefix}?limit=25`;
      else if (endpoint === 'post') env.PREFIX = s.prefix;
      else
        Object.assign(env, {
          PREFIX: `${s.prefix}/`,
          IDS_FILE: s.putState,
          STATE_OUT: `${s.putState}.next`,
        });
      const warm = await runWrk({
        url,
        connections: 50,
        seconds: 1,
        env: { ...env, TAG: `w${env.TAG}` },
        cpu: '0',
      });
      if (endpoint === 'put' && !s.minimal) fs.renameSync(`${s.putState}.next`, s.putState);
      void warm;
      const before = cpuTicks(s.pid);
      const pgBefore = postgresTicks();
      const from = Date.now();
      const w = await runWrk({ url, connections: 50, seconds, env, cpu: '0' });
      w.window = [from, Date.now()];
      w.cpuUs = ((cpuTicks(s.pid) - before) * 1e4) / w.requests;
      w.pgUs = ((postgresTicks() - pgBefore) * 1e4) / w.requests;
      if (endpoint === 'put' && !s.minimal) fs.renameSync(`${s.putState}.next`, s.putState);
      (results[name] ??= []).push(w);
      say(
        `  ${name.padEnd(14)} ${Math.round(w.rps)} req/s, ${w.cpuUs.toFixed(0)} µs CPU/request, PostgreSQL ${w.pgUs.toFixed(0)} µs/request, p99 ${w.p99 / 1000} ms`,
      );
    }
  }
  if (probe) {
    // The probe writes once a second: give it time to write the last rounds' events.
    await sleep(1500);
    for (const [name, list] of Object.entries(results))
      if (!servers[name].minimal)
        explainRounds(name, path.join(runDir, `${name}.probe.jsonl`), list);
  }
  say(`median of ${rounds} rounds (${endpoint}):`);
  for (const [name, list] of Object.entries(results))
    say(
      `  ${name.padEnd(14)} ${Math.round(median(list.map((w) => w.rps)))} req/s, ${median(list.map((w) => w.cpuUs)).toFixed(0)} µs CPU/request, PostgreSQL ${median(list.map((w) => w.pgUs)).toFixed(0)} µs/request`,
    );
} finally {
  await stopAll();
  fs.rmSync(runDir, { recursive: true, force: true });
}
