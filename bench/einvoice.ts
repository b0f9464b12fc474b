/**
 * `npx tsx bench/einvoice.ts`: how long `toCii` and `toUbl` take for the standard two-line
 * XRechnung invoice of the serializer tests. Prints median, p90 and p99 in microseconds per
 * invoice over 2000 runs each (after a warm-up); not a test. On a busy machine p99 measures
 * the scheduler more than the serializer.
 */
import { toCii, toUbl, type EnInvoice } from '../src/shared/einvoice/index.js';
import { buildEnInvoice } from '../src/shared/einvoice/fixtures.test-support.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const WARM_UP = 1000;

const say = (line: string) => process.stdout.write(`${line}\n`);

function measure(name: string, serialize: (inv: EnInvoice) => string, inv: EnInvoice): void {
  let bytes = 0;
  for (let i = 0; i < WARM_UP; i += 1) bytes = serialize(inv).length;
  const micros: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.hrtime.bigint();
    serialize(inv);
    micros.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  micros.sort((a, b) => a - b);
  const at = (q: number) => micros[Math.min(micros.length - 1, Math.floor(q * micros.length))]!;
  say(
    `${name}: median ${at(0.5).toFixed(1)} µs, p90 ${at(0.9).toFixed(1)} µs, p99 ${at(0.99).toFixed(1)} µs per invoice (${RUNS} runs, ${bytes} chars)`,
  );
}

const invoice = buildEnInvoice();
measure('toCii', toCii, invoice);
measure('toUbl', toUbl, invoice);
