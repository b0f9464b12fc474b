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

/** The longest stall of each kind in [from, to] (ms since the epoch), and how many there were. */
export function stallsIn(events, from, to) {
  const inWindow = events.filter((e) => e.t + e.ms >= from && e.t <= to);
  const of = (kind) => inWindow.filter((e) => e.e === kind || e.kind === kind);
  const max = (xs) => (xs.length ? Math.max(...xs.map((e) => e.ms)).toFixed(1) : '–');
  const gcTotal = of('gc').reduce((sum, e) => sum + e.ms, 0);
  return (
    `loop delay max ${max(of('loop'))} (${of('loop').length} windows > 5 ms), ` +
    `scavenge max ${max(of('scavenge'))} (${of('scavenge').length}), mark-compact max ${max(of('mark-compact'))} (${of('mark-compact').length}), ` +
    `GC total ${gcTotal.toFixed(0)}, WAL flush max ${max(of('fsync'))} (${of('fsync').length}), ` +
    `checkpoint max ${max(of('checkpoint'))} (${of('checkpoint').length}), pool wait max ${max(of('pool'))} (${of('pool').length})`
  );
}
