import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { sql, type Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { DB } from './schema.js';

/** A backup file that was written, checked and put in place. */
export interface Snapshot {
  file: string;
  sizeBytes: number;
  /** What the check found in the copy: the invoices and other documents it holds (SQLite). */
  documents?: number;
  /** Milliseconds spent copying and checking (SQLite; what the log reports). */
  copyMs?: number;
  checkMs?: number;
}

/**
 * The SQLite copy, on a thread and a connection of its own. SQLite's online backup API copies
 * every page in one step, inside one read transaction: in WAL mode that is a snapshot of the
 * last commit, taken while the service's connection goes on writing (a reader never blocks the
 * writer), and the event loop never waits for it. The copy is then turned into a single file
 * (rollback journal rather than WAL), checked page by page (`integrity_check`) and its documents
 * counted, so a damaged or empty copy is refused before it takes a backup's name. Inline, so it
 * runs the same from the sources and from `dist/`.
 */
const SNAPSHOT_SCRIPT = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
(async () => {
  const started = performance.now();
  const source = new Database(workerData.source, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    // The first step only measures; the second copies every page at once (see above).
    await source.backup(workerData.target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  const copied = performance.now();
  const copy = new Database(workerData.target, { fileMustExist: true });
  try {
    copy.pragma('journal_mode = DELETE');
    const check = copy.pragma('integrity_check', { simple: true });
    if (check !== 'ok') throw new Error('the copy fails its integrity check: ' + check);
    const documents = copy.prepare('select count(*) from documents').pluck().get();
    return { documents, copyMs: copied - started, checkMs: performance.now() - copied };
  } finally {
    copy.close();
  }
})().then(
  (result) => parentPort.postMessage(result),
  (err) => parentPort.postMessage({ error: String((err && err.message) || err) }),
);
`;

interface Copied {
  documents: number;
  copyMs: number;
  checkMs: number;
}

function copySqlite(source: string, target: string): Promise<Copied> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(SNAPSHOT_SCRIPT, {
      eval: true,
      workerData: {
        module: createRequire(import.meta.url).resolve('better-sqlite3'),
        source,
        target,
      },
    });
    let answered = false;
    worker.once('message', (m: Copied | { error: string }) => {
      answered = true;
      if ('error' in m) reject(new Error(m.error));
      else resolve(m);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the backup thread ended (${code}) without an answer`));
    });
  });
}

/**
 * The connection string without its password, which goes to pg_dump in its environment: a
 * password in the arguments is visible to every user of the machine (`ps`).
 */
function pgConnection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  return {
    dbname: parsed.toString(),
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
  };
}

/** Runs a PostgreSQL client tool; answers its standard output, or fails with its last words. */
function runTool(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000);
    });
    child.once('error', (e) =>
      reject(new Error(`${command} is needed for PostgreSQL backups: ${e.message}`)),
    );
    child.once('close', (code) => {
      if (code === 0) resolve(Buffer.concat(out).toString());
      else reject(new Error(`${command} exited with ${code}: ${err.trim()}`));
    });
  });
}

/**
 * pg_dump's custom format: one consistent snapshot (a repeatable-read transaction) while the
 * service writes. Checked by reading the archive's table of contents back (`pg_restore --list`),
 * which must name the documents' data.
 */
async function dumpPostgres(url: string, target: string): Promise<void> {
  const { dbname, env } = pgConnection(url);
  await runTool('pg_dump', ['--format=custom', `--file=${target}`, `--dbname=${dbname}`], env);
  const contents = await runTool('pg_restore', ['--list', target], env);
  if (!/TABLE DATA \S+ documents /.test(contents))
    throw new Error('the dump lists no data of the documents table');
}

async function fsyncPath(file: string): Promise<void> {
  const handle = await fs.promises.open(file, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes a consistent backup of the database to `target` while the service runs: SQLite via
 * the online backup API, PostgreSQL via `pg_dump --format=custom`. The copy is written under a
 * temporary name beside the target, checked, flushed to the disk and only then renamed, so a
 * file with the target's name is always a whole, checked backup. Refuses an existing target.
 */
export async function writeSnapshot(
  database: Config['database'],
  target: string,
): Promise<Snapshot> {
  const file = path.resolve(target);
  if (fs.existsSync(file)) throw new Error(`${file} exists; choose a new file name`);
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.partial-${randomBytes(4).toString('hex')}`);
  try {
    // Created here, not by the copy: a directory that refuses it fails with the system's own
    // code (EACCES, ENOSPC), which the schedule reports.
    await (await fs.promises.open(temp, 'wx', 0o600)).close();
    let copied: Copied | undefined;
    if (database.kind === 'sqlite') copied = await copySqlite(database.file, temp);
    else await dumpPostgres(database.url, temp);
    await fsyncPath(temp);
    await fs.promises.rename(temp, file);
    // The rename itself survives a power loss only once the directory is on the disk.
    await fsyncPath(dir);
    const { size } = await fs.promises.stat(file);
    return {
      file,
      sizeBytes: size,
      ...(copied && {
        documents: copied.documents,
        copyMs: Math.round(copied.copyMs),
        checkMs: Math.round(copied.checkMs),
      }),
    };
  } catch (err) {
    await Promise.all(
      ['', '-journal', '-wal', '-shm'].map((suffix) =>
        fs.promises.rm(temp + suffix, { force: true }),
      ),
    );
    throw err;
  }
}

/** Marks the partial files `writeSnapshot` leaves behind when the process dies mid-copy. */
export const PARTIAL_FILE = /^\.kontor-.*\.partial-[0-9a-f]{8}(-journal|-wal|-shm)?$/;

/**
 * The advisory lock of one backup directory: the first 8 bytes of a hash of its path, so
 * replicas writing to the same directory take turns and those writing elsewhere do not wait.
 */
function lockKey(dir: string): string {
  return createHash('sha256').update(`kontor.backups:${dir}`).digest().readBigInt64BE().toString();
}

/**
 * Runs `fn` while this process alone may write a backup into `dir`: on PostgreSQL under a
 * session advisory lock (another replica holding it: `fn` is skipped and `undefined`
 * answered); SQLite has one serving process.
 */
export async function withBackupLock<T>(
  db: Kysely<DB>,
  kind: Config['database']['kind'],
  dir: string,
  fn: () => Promise<T>,
): Promise<T | undefined> {
  if (kind === 'sqlite') return fn();
  const key = lockKey(dir);
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{
      locked: boolean;
    }>`select pg_try_advisory_lock(${key}::bigint) as locked`.execute(conn);
    if (!rows[0]?.locked) return undefined;
    try {
      return await fn();
    } finally {
      await sql`select pg_advisory_unlock(${key}::bigint)`.execute(conn);
    }
  });
}
