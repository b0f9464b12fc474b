// `node bench/profile-summary.mjs <file.cpuprofile> [top] [last seconds] [skip]`: self time of a V8
// CPU profile by package / Kontor folder and by function, and total time (self + callees) of
// Kontor's own functions, in % of busy time. With `last seconds`, only the samples of the
// profile's last seconds count (the measured rounds of bench/variants.mjs, not the start and
// the seeding); `skip` leaves out that many seconds at the very end (a server's close). Not a
// test.
import fs from 'node:fs';
import path from 'node:path';

const [file, topArg, lastArg, skipArg] = process.argv.slice(2);
const top = Number(topArg ?? 25);
const prof = JSON.parse(fs.readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

function category(frame) {
  const url = frame.url ?? '';
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const dist = /\/dist\/(.+)$/.exec(url);
  if (dist) return `kontor: ${path.dirname(dist[1])}`;
  if (url.startsWith('node:')) return 'node';
  return url;
}
const name = (f) =>
  `${f.functionName || '(anonymous)'} ${category(f)}${f.url ? `:${f.lineNumber + 1}` : ''}`;

const self = new Map();
const until = prof.endTime - Number(skipArg ?? 0) * 1e6;
const from = lastArg ? until - Number(lastArg) * 1e6 : -Infinity;
let t = prof.startTime;
prof.samples.forEach((id, i) => {
  t += prof.timeDeltas[i] ?? 0;
  if (t >= from && t <= until) self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i + 1] ?? 0));
});
let busy = 0;
const byCat = new Map();
const byFn = new Map();
const inclusive = new Map();
for (const [id, us] of self) {
  const f = byId.get(id).callFrame;
  if (f.functionName === '(idle)') continue;
  busy += us;
  byCat.set(category(f), (byCat.get(category(f)) ?? 0) + us);
  byFn.set(name(f), (byFn.get(name(f)) ?? 0) + us);
  // Inclusive time of Kontor functions: count each name once per sample's stack.
  const seen = new Set();
  for (let n = id; n !== undefined; n = parent.get(n)) {
    const cf = byId.get(n).callFrame;
    if (!/\/dist\//.test(cf.url ?? '')) continue;
    const k = name(cf);
    if (seen.has(k)) continue;
    seen.add(k);
    inclusive.set(k, (inclusive.get(k) ?? 0) + us);
  }
}
const print = (title, map) => {
  console.log(`\n${title}`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / busy).toFixed(1).padStart(6)}  ${k}`);
};
console.log(`busy ${(busy / 1000).toFixed(0)} ms`);
print('self time by category (% of busy)', byCat);
print('self time by function', byFn);
print("total time of Kontor's functions (self + callees)", inclusive);
