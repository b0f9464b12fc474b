/**
 * `npm run bench:sepa`: a pain.008.001.08 direct-debit file of BENCH_DEBITS (10,000) debits,
 * in four batches (FRST and RCUR on two collection dates), with umlauts to transliterate in
 * every name and remittance. Prints the time of one build (median of BENCH_ROUNDS after a
 * warm-up), the file size, the heap a build holds at its peak (its input excluded) and the
 * heap left over after BENCH_ROUNDS builds, with garbage collected (flat: no growth per
 * build). With `--validate` the file is also written to a temp dir and checked by the
 * offline validator in ../shared/validation/sepa. Not a test; the goal is < 2 s per build.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  buildPain008,
  groupDirectDebits,
  type PendingDirectDebit,
} from '../src/shared/sepa/index.js';

const say = (line: string) => process.stdout.write(`${line}\n`);
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const DEBITS = Number(process.env.BENCH_DEBITS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const IBANS = [
  'DE12500105170648489890',
  'DE27100777770209299700',
  'DE44500105175407324931',
  'AT611904300234573201',
];

const pending: PendingDirectDebit[] = Array.from({ length: DEBITS }, (_, i) => ({
  endToEndId: `BEITRAG-2026-12-${i}`,
  amountMinor: 1000 + (i % 9000),
  mandateId: `MANDAT-${i}`,
  mandateSignedOn: '2024-01-15',
  debtor: {
    name: `Jürgen Größer & Söhne Nr. ${i}`,
    iban: IBANS[i % IBANS.length]!,
    bic: i % 2 === 0 ? 'INGDDEFFXXX' : null,
  },
  remittance: `Mitgliedsbeitrag Dezember 2026 für Mitglied ${i} – Gebühr §12 (50%)`,
  sequenceType: i % 7 === 0 ? 'FRST' : 'RCUR',
  collectionDate: i % 2 === 0 ? '2026-12-03' : '2026-12-15',
}));
const file = {
  messageId: 'KONTOR-DD-BENCH-1',
  createdAt: new Date('2026-11-28T09:30:00Z'),
  initiatingPartyName: 'Sportverein Beispiel e.V.',
  creditor: {
    name: 'Sportverein Beispiel e.V.',
    iban: 'DE75512108001245126199',
    bic: 'SOGEDEFFXXX',
    creditorId: 'DE98ZZZ09999999999',
  },
  batches: groupDirectDebits(pending, 'KONTOR-DD-BENCH-1'),
};

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

let xml = buildPain008(file); // warm-up
gc();
const base = process.memoryUsage().heapUsed;
const times: number[] = [];
let peak = 0;
for (let round = 0; round < ROUNDS; round++) {
  gc();
  const before = process.memoryUsage().heapUsed;
  const start = performance.now();
  xml = buildPain008(file);
  times.push(performance.now() - start);
  peak = Math.max(peak, process.memoryUsage().heapUsed - before);
}
gc();
const after = process.memoryUsage().heapUsed;
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)]!;

say(`pain.008.001.08, ${DEBITS} debits in ${file.batches.length} batches, ${ROUNDS} rounds`);
say(
  `build: median ${median.toFixed(0)} ms, min ${times[0]!.toFixed(0)} ms, max ${times.at(-1)!.toFixed(0)} ms (goal < 2000 ms)`,
);
say(
  `file: ${mb(Buffer.byteLength(xml))}, ${(Buffer.byteLength(xml) / DEBITS).toFixed(0)} bytes per debit`,
);
say(
  `heap: at most ${mb(peak)} more during a build; after ${ROUNDS} builds ${mb(after - base)} more than after one (flat ≈ 0)`,
);

if (process.argv.includes('--validate')) {
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-sepa-bench-'));
  try {
    writeFileSync(path.join(dir, 'bench.xml'), xml);
    const validate = path.resolve(process.cwd(), '../shared/validation/sepa/validate');
    const start = performance.now();
    const r = spawnSync(validate, [dir], { encoding: 'utf8' });
    say(
      `validator (${(performance.now() - start).toFixed(0)} ms): ${(r.stdout || r.stderr).trim().split('\n')[0]}`,
    );
    if (r.status !== 0) process.exitCode = 1;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
if (median > 2000) process.exitCode = 1;
