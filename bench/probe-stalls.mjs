// What bench/tail-probe.cjs saw stall a server within a measured window, as one line: used by
// `bench/variants.mjs` (PROBE=1) and `npm run bench -- --probe DIR`. Not a test.
import fs from 'node:fs';

/** Reads a probe file (and its checkpoint thread's) into events. */
export function probeEvents(file) {
  const read = (f) =>
    fs.existsSync(f)
      ? fs
          .readFileSync(f, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return [...read(file), ...read(`${file}.worker`)];
}

/**
 * Of the window where the main thread waited longest for a CPU, how much CPU the process's other
 * threads had in it (`threads` of bench/tail-probe.cjs) and which, as
 * ` [other threads 12.3: V8Worker 10.1, libuv-worker 2.2]`.
 */
function ownThreads(waits) {
  if (waits.length === 0) return '';
  const worst = waits.reduce((a, b) => (b.ms > a.ms ? b : a));
  if (worst.threads === undefined) return '';
  const by = Object.entries(worst.by ?? {})
    .filter(([, ms]) => ms >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, ms]) => `${name} ${ms.toFixed(1)}`);
  return ` [other threads ${worst.threads.toFixed(1)}${by.length ? `: ${by.join(', ')}` : ''}]`;
}

/** The longest stall of each kind in [from, to] (ms since the epoch), and how many there were. */
export function stallsIn(events, from, to) {
  const inWindow = events.filter((e) => e.t + e.ms >= from && e.t <= to);
  const of = (kind) => inWindow.filter((e) => e.e === kind || e.kind === kind);
  /** The longest of a kind and how many (`12.3 (4)`, `– (0)` for none); `what` names the count. */
  const longest = (kind, what = '') => {
    const xs = of(kind);
    return `${xs.length ? Math.max(...xs.map((e) => e.ms)).toFixed(1) : '–'} (${xs.length}${what})`;
  };
  const gcTotal = of('gc').reduce((sum, e) => sum + e.ms, 0);
  return (
    `loop delay max ${longest('loop', ' windows > 5 ms')}, ` +
    `scavenge max ${longest('scavenge')}, mark-compact max ${longest('mark-compact')}, ` +
    `GC total ${gcTotal.toFixed(0)}, WAL flush max ${longest('fsync')}, ` +
    `checkpoint max ${longest('checkpoint')}, pool wait max ${longest('pool')}, ` +
    `run-queue wait max ${longest('runq', ' windows > 5 ms')}${ownThreads(of('runq'))}`
  );
}
