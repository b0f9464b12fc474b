/**
 * `npm run bench:finalize`: finalizing an invoice — `PUT /v1/documents/{id}` with
 * `status: FINAL` (finalize checks, the number, the trial render, the ZUGFeRD PDF or the frozen
 * XRechnung parties, the stored PDF, audit and webhook event in the finalizing transaction).
 * The app listens on 127.0.0.1 in this process with its job worker on, as served (renders the
 * `document.render` job makes count too); a child process sends the requests one after
 * the other over HTTP (so the CPU time measured here is the server's alone) and times each.
 * BENCH_FINALIZES (60) drafts with 3 lines each, alternating a partner whose default e-invoice
 * is ZUGFeRD and one with XRechnung (CII, Leitweg-ID); the first half with the customer page's
 * links off, the second half with them on (each finalize then writes and prints a link).
 * BENCH_WARMUP (6) finalizes before, not counted. Prints p50 / p95 / p99 / max ms per half and
 * overall, the PDF renders per finalize (`ctx.renderer.render` counted), the server's CPU time
 * per finalize (`process.cpuUsage`, user + system) and the renderer's (Chromium's processes,
 * children of this one, from /proc). BENCH_CPU_PROFILE=file.cpuprofile profiles the measured
 * finalizes (`node bench/profile-summary.mjs file.cpuprofile`). Embedded SQLite on a temp
 * DATA_DIR, or the PostgreSQL (and Redis) of DATABASE_URL / REDIS_URL. Not a test.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { billingAddress, inProcessApp, say, startCpuProfile } from './in-process.js';

const FINALIZES = Number(process.env.BENCH_FINALIZES ?? 60);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 6);
const PROFILE = process.env.BENCH_CPU_PROFILE;
const GOAL_P99_MS = 150;

/** The client: PUTs each draft FINAL in turn and answers the milliseconds of each. */
const CLIENT = `
const { base, headers, drafts } = JSON.parse(process.env.JOB);
const ms = [];
for (const d of drafts) {
  const t0 = performance.now();
  const res = await fetch(base + '/v1/documents/' + d.id, {
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ version: d.version, status: 'FINAL' }),
  });
  const body = await res.json();
  ms.push(performance.now() - t0);
  if (res.status !== 200 || body.status !== 'FINAL' || !body.fileId)
    throw new Error('finalize: ' + res.status + ' ' + JSON.stringify(body));
}
process.stdout.write(JSON.stringify(ms));
`;

/** The CPU milliseconds (user + system) of this process's descendants, from /proc. */
function childrenCpuMs(): number {
  const tick = 100; // USER_HZ on Linux
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the name: state(0) ppid(1) … utime(11) stime(12)
      stats.set(Number(name), { ppid: Number(f[1]), cpu: Number(f[11]) + Number(f[12]) });
    } catch {
      // gone meanwhile
    }
  }
  const mine = new Set([process.pid]);
  let total = 0;
  for (let grown = true; grown;) {
    grown = false;
    for (const [pid, s] of stats)
      if (!mine.has(pid) && mine.has(s.ppid)) {
        mine.add(pid);
        total += s.cpu;
        grown = true;
      }
  }
  return (total * 1000) / tick;
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
const summary = (ms: number[]) => {
  const s = [...ms].sort((a, b) => a - b);
  const f = (v: number) => v.toFixed(1);
  return `p50 ${f(pct(s, 0.5))} / p95 ${f(pct(s, 0.95))} / p99 ${f(pct(s, 0.99))} / max ${f(s.at(-1)!)} ms`;
};

// The job worker runs as in a served app (JOB_POLL_INTERVAL_MS 1000): a finalize queues jobs.
const bench = await inProcessApp('finalize');
try {
  const { app, ctx, headers, callJson: call, database } = bench;
  let renders = 0;
  const render = ctx.renderer.render.bind(ctx.renderer);
  ctx.renderer.render = (input) => {
    renders++;
    return render(input);
  };
  const rates = (await call('GET', '/v1/tax-rates?limit=100')).data as {
    id: string;
    category: string;
    rate: number;
  }[];
  const rate = (p: number) => rates.find((r) => r.category === 'S' && r.rate === p)!.id;
  const zugferd = await call('POST', '/v1/partners', {
    name: 'Müller & Söhne GmbH',
    addresses: [billingAddress('rechnung@mueller.example')],
  });
  const xrechnung = await call('POST', '/v1/partners', {
    name: 'Stadtverwaltung Musterstadt',
    addresses: [billingAddress('rechnung@stadt.example')],
    buyerReference: '04011000-12345-03',
    einvoiceFormat: 'XRECHNUNG_CII',
  });
  const today = new Date().toISOString().slice(0, 10);
  const draft = async (i: number) => {
    const doc = await call('POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: `Leistungen ${i}`,
      creationDate: today,
      deliveryDate: today,
      partnerId: i % 2 === 0 ? zugferd.id : xrechnung.id,
      lineItems: [
        { description: 'Beratung', quantity: 3, unitPrice: 120, taxRateId: rate(19) },
        { description: 'Fachbuch', quantity: 1, unitPrice: 39.9, taxRateId: rate(7) },
        { description: 'Reisekosten', quantity: 2, unitPrice: 85.5, taxRateId: rate(19) },
      ],
    });
    return { id: String(doc.id), version: Number(doc.version) };
  };
  const drafts = async (n: number, from: number) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await draft(from + i));
    return out;
  };

  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const finalizeAll = (list: { id: string; version: number }[]) =>
    new Promise<number[]>((resolve, reject) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', CLIENT], {
        env: { ...process.env, JOB: JSON.stringify({ base: address, headers, drafts: list }) },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(JSON.parse(stdout) as number[]) : reject(new Error(`exit ${code}`)),
      );
    });

  say(`Kontor finalize bench on ${database}: ${FINALIZES} finalizes after ${WARMUP} warm-up`);
  await finalizeAll(await drafts(WARMUP, 0));
  const half = Math.floor(FINALIZES / 2);
  const phases = [
    { name: 'links off', list: await drafts(half, 1000) },
    { name: 'links on', list: await drafts(FINALIZES - half, 2000) },
  ];
  const all: number[] = [];
  let cpuMs = 0;
  let rendererMs = 0;
  let rendered = 0;
  const stopProfile = PROFILE ? await startCpuProfile() : undefined;
  for (const phase of phases) {
    if (phase.name === 'links on')
      await call('PUT', '/v1/customer-link-settings', { enabled: true, validDays: 14, version: 0 });
    const rendersBefore = renders;
    const cpuBefore = process.cpuUsage();
    const childBefore = childrenCpuMs();
    const ms = await finalizeAll(phase.list);
    const cpu = process.cpuUsage(cpuBefore);
    const n = phase.list.length;
    const phaseCpu = (cpu.user + cpu.system) / 1000;
    const phaseRenderer = childrenCpuMs() - childBefore;
    cpuMs += phaseCpu;
    rendererMs += phaseRenderer;
    rendered += renders - rendersBefore;
    all.push(...ms);
    say(
      `  ${phase.name} (${n}): ${summary(ms)}; renders/finalize ${((renders - rendersBefore) / n).toFixed(2)}, ` +
        `server CPU ${(phaseCpu / n).toFixed(1)} ms/finalize, renderer CPU ${(phaseRenderer / n).toFixed(1)} ms/finalize`,
    );
  }
  await stopProfile?.(PROFILE!);
  const sorted = [...all].sort((a, b) => a - b);
  say(
    `all (${all.length}): ${summary(all)} (goal p99 < ${GOAL_P99_MS} ms: ${pct(sorted, 0.99) < GOAL_P99_MS ? 'met' : 'NOT met'}); ` +
      `renders/finalize ${(rendered / all.length).toFixed(2)}, server CPU ${(cpuMs / all.length).toFixed(1)} ms/finalize, ` +
      `renderer CPU ${(rendererMs / all.length).toFixed(1)} ms/finalize (HTTP on loopback, in-process server from src/ via tsx)`,
  );
} finally {
  await bench.close();
}
