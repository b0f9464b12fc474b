// `node bench/flush-tail.mjs [seconds] [dir]`: the disk's own tail under what a durable write
// waits on — 8 KiB appended to a file and `fdatasync`ed, one after the other, for `seconds`
// (default 10) in `dir` (default the system temp dir; give the data directory's disk). Prints
// the flush times' p50, p99, p99.9 and max. With nothing else running, that is the floor under
// a write's p99: a commit is answered only after its WAL reached the disk. BESIDE=<pages>
// also writes that many scattered 4 KiB pages to a second file and `fsync`s it every 100 ms,
// as the SQLite checkpoint thread does with the database file. Not a test.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';

const seconds = Number(process.argv[2] ?? 10);
const beside = Number(process.env.BESIDE ?? 0);
const dir = fs.mkdtempSync(path.join(process.argv[3] ?? os.tmpdir(), 'kontor-flush-'));
const wal = await fs.promises.open(path.join(dir, 'wal'), 'w');
const block = Buffer.alloc(8192, 7);
const end = performance.now() + seconds * 1000;

/** The checkpoint's part: scattered pages of a 80 MiB file, synced every 100 ms. */
async function checkpoints() {
  const db = await fs.promises.open(path.join(dir, 'db'), 'w');
  const page = Buffer.alloc(4096, 3);
  for (let n = 0; performance.now() < end; await sleep(100)) {
    for (let i = 0; i < beside; i++)
      await db.write(page, 0, page.length, ((n++ * 7919) % 20_000) * 4096);
    await db.sync();
  }
  await db.close();
}
const besides = beside > 0 ? checkpoints() : Promise.resolve();

const times = [];
let offset = 0;
while (performance.now() < end) {
  await wal.write(block, 0, block.length, offset);
  // A WAL is written from its start again after a checkpoint: wrap at 4 MiB, as it would.
  offset = (offset + block.length) % (4 << 20);
  const started = performance.now();
  await wal.datasync();
  times.push(performance.now() - started);
}
await besides;
await wal.close();
fs.rmSync(dir, { recursive: true, force: true });
times.sort((a, b) => a - b);
const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))].toFixed(2);
console.log(
  `${times.length} flushes in ${seconds} s${beside ? `, ${beside} pages synced beside every 100 ms` : ''}: ` +
    `p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, p99.9 ${at(0.999)} ms, max ${times.at(-1).toFixed(2)} ms`,
);
