/**
 * `npm run bench:backup`: the scheduled backup of an embedded (SQLite) database with
 * BENCH_INVOICES (10,000) invoices. One invoice of three lines is made through the API; the
 * others are copies of its row under new ids (written in a few transactions, not timed).
 * Then:
 * - the scheduled backup (`runIfDue`: copy, integrity check, fsync, rename): time and size,
 *   and for comparison `VACUUM INTO` on a connection of its own (what `kontor backup` did);
 * - the latency of `POST /v1/partners` (inject, one writer after the other) for
 *   BENCH_BACKUPS (3) back-to-back backups, and for as many requests without a backup.
 * Prints wall-clock milliseconds; not a test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { writeSnapshot } from '../src/db/backup.js';
import { newId } from '../src/shared/ids.js';
import { billingAddress, inProcessApp, say } from './in-process.js';

const INVOICES = Number(process.env.BENCH_INVOICES ?? 10_000);
const BACKUPS = Number(process.env.BENCH_BACKUPS ?? 3);
const backupDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-bench-backups-'));

const bench = await inProcessApp('backup', { JOB_POLL_INTERVAL_MS: '0', BACKUP_DIR: backupDir });
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${pct(sorted, 50).toFixed(2)} ms, p99 ${pct(sorted, 99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (${sorted.length} requests)`;
};

try {
  const { ctx, call, dataDir } = bench;
  if (ctx.config.database.kind !== 'sqlite') throw new Error('bench:backup measures SQLite');
  const partner = (
    await call('POST', '/v1/partners', {
      name: 'Müller & Söhne GmbH',
      addresses: [billingAddress()],
    })
  ).json<{ id: string }>();
  const model = (
    await call('POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung',
      creationDate: '2026-10-01',
      partnerId: partner.id,
      lineItems: [
        { description: 'Beratung', quantity: 3, unitPrice: 120 },
        { description: 'Fachbuch', quantity: 1, unitPrice: 39.9 },
        { description: 'Anfahrt', quantity: 1, unitPrice: 45 },
      ],
    })
  ).json<{ id: string }>();
  const row = await ctx.db
    .selectFrom('documents')
    .selectAll()
    .where('id', '=', model.id)
    .executeTakeFirstOrThrow();
  let started = performance.now();
  for (let done = 1; done < INVOICES;) {
    const batch = Array.from({ length: Math.min(500, INVOICES - done) }, () => ({
      ...row,
      id: newId('document'),
    }));
    await ctx.db.insertInto('documents').values(batch).execute();
    done += batch.length;
  }
  const dbFile = path.join(dataDir, 'kontor.sqlite');
  say(`seeded ${INVOICES} invoices in ${Math.round(performance.now() - started)} ms`);

  // Writes one after the other until `until` resolves (or `count` requests); their latencies.
  const write = async (until: Promise<unknown> | undefined, count: number) => {
    const ms: number[] = [];
    let done = false;
    void until?.then(() => (done = true));
    let n = 0;
    while (until ? !done : ms.length < count) {
      const t0 = performance.now();
      await call('POST', '/v1/partners', { name: `Partner ${n++}` });
      ms.push(performance.now() - t0);
    }
    return ms;
  };
  await write(undefined, 200); // warm-up

  started = performance.now();
  const scheduled = await ctx.backups!.runIfDue();
  if (!scheduled) throw new Error('the scheduled backup was not written');
  say(
    `scheduled backup (online backup API on a worker, integrity check, fsync, rename): ${Math.round(performance.now() - started)} ms, ` +
      `of which copy ${scheduled.copyMs} ms and check ${scheduled.checkMs} ms; ` +
      `${mib(scheduled.sizeBytes)} (database file ${mib(fs.statSync(dbFile).size)}), ${scheduled.documents} documents`,
  );

  const vacuumed = path.join(backupDir, 'vacuum-into.sqlite');
  const own = new SQLite(dbFile);
  started = performance.now();
  own.prepare('vacuum into ?').run(vacuumed);
  say(
    `for comparison, VACUUM INTO on a connection of its own: ${Math.round(performance.now() - started)} ms, ${mib(fs.statSync(vacuumed).size)}`,
  );
  own.close();

  const during: number[] = [];
  let copyMs = 0;
  for (let i = 0; i < BACKUPS; i++) {
    const t0 = performance.now();
    const copy = writeSnapshot(ctx.config.database, path.join(backupDir, `during-${i}.sqlite`));
    during.push(...(await write(copy, 0)));
    await copy;
    copyMs += performance.now() - t0;
  }
  const without = await write(undefined, during.length);
  // What running `VACUUM INTO` on the service's own connection would do: every request waits.
  const onConnection = write(
    sql`vacuum into ${path.join(backupDir, 'on-connection.sqlite')}`.execute(ctx.db),
    0,
  );
  const blocked = await onConnection;
  say(
    `POST /v1/partners during ${BACKUPS} backups (${Math.round(copyMs / BACKUPS)} ms each): ${summary(during)}`,
  );
  say(`POST /v1/partners without a backup: ${summary(without)}`);
  say(`POST /v1/partners during VACUUM INTO on the service's connection: ${summary(blocked)}`);
} finally {
  await bench.close();
  fs.rmSync(backupDir, { recursive: true, force: true });
}
