import fs from 'node:fs';
import path from 'node:path';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from '../../config.js';
import { PARTIAL_FILE, withBackupLock, writeSnapshot, type Snapshot } from '../../db/backup.js';
import type { Database } from '../../db/database.js';
import { HOUR, MINUTE, type Clock } from '../../shared/clock.js';
import type { BackupStatus } from './backups.schemas.js';

/**
 * The name of a scheduled backup: `kontor-20261128T072000Z.sqlite` (or `.dump`), the UTC time
 * its snapshot was taken. Retention deletes only files with such a name, so nothing else in
 * `BACKUP_DIR` is ever touched; the name sorts by time.
 */
export const BACKUP_FILE = /^kontor-(\d{8}T\d{6}Z)\.(sqlite|dump)$/;

function fileName(at: Date, kind: Config['database']['kind']): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `kontor-${stamp}.${kind === 'sqlite' ? 'sqlite' : 'dump'}`;
}

function timeOf(stamp: string): Date {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(stamp)!;
  return new Date(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}Z`);
}

interface Written {
  at: Date;
  file: string;
  sizeBytes: number;
}

/** How often `/ready` looks at `BACKUP_DIR` again for backups another replica wrote. */
const RESCAN_MS = MINUTE;
/** After a failed attempt, the next waits this long (not every minute, each an error in the log). */
const RETRY_MS = 10 * MINUTE;
/** A partial file this old belongs to no copy in progress (a process died mid-copy). */
const STALE_PARTIAL_MS = 6 * HOUR;

export interface BackupScheduleOptions {
  config: Pick<Config, 'backupDir' | 'backupIntervalHours' | 'backupKeep' | 'database'>;
  database: Pick<Database, 'db' | 'kind'>;
  clock: Clock;
  logger: Logger;
}

/**
 * Scheduled backups into `BACKUP_DIR`: a backup when the newest one there is an interval old,
 * then the oldest beyond `BACKUP_KEEP` deleted. Holds what `/ready` reports. Where several
 * processes serve one database, the job system runs the check on one of them at a time and an
 * advisory lock keeps a second writer out regardless.
 */
export class BackupSchedule {
  private lastSuccess: Written | undefined;
  private lastFailure: { at: Date; code: string } | undefined;
  private scannedAt = Number.NEGATIVE_INFINITY;
  private readonly startedAt: Date;
  readonly dir: string;
  private readonly intervalMs: number;
  private readonly extension: string;

  constructor(private readonly o: BackupScheduleOptions & { config: { backupDir: string } }) {
    this.dir = o.config.backupDir;
    this.intervalMs = o.config.backupIntervalHours * HOUR;
    this.startedAt = o.clock.now();
    this.extension = o.config.database.kind === 'sqlite' ? 'sqlite' : 'dump';
  }

  /** This schedule's backups in `BACKUP_DIR`, newest first (none when it does not exist yet). */
  private async list(): Promise<{ name: string; at: Date }[]> {
    let names: string[];
    try {
      names = await fs.promises.readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    return names
      .map((name) => ({ name, m: BACKUP_FILE.exec(name) }))
      .filter(({ m }) => m !== null && m[2] === this.extension)
      .map(({ name, m }) => ({ name, at: timeOf(m![1]!) }))
      .sort((a, b) => b.at.getTime() - a.at.getTime());
  }

  /** Reads the newest backup from the directory: it may have been written by another replica. */
  private async scan(): Promise<{ name: string; at: Date }[]> {
    const files = await this.list();
    this.scannedAt = this.o.clock.now().getTime();
    const newest = files[0];
    if (newest && (!this.lastSuccess || newest.at > this.lastSuccess.at)) {
      const { size } = await fs.promises.stat(path.join(this.dir, newest.name));
      this.lastSuccess = { at: newest.at, file: newest.name, sizeBytes: size };
    }
    return files;
  }

  /**
   * Writes a backup if one is due (none in `BACKUP_DIR` yet, or the newest an interval old),
   * then applies the retention. Never throws: a failure is logged and reported by `/ready`,
   * and a check ten minutes later tries again. Answers the backup written, if any.
   */
  async runIfDue(): Promise<Snapshot | undefined> {
    const at = this.o.clock.now();
    const failed = this.lastFailure;
    if (
      failed &&
      (!this.lastSuccess || failed.at >= this.lastSuccess.at) &&
      at.getTime() - failed.at.getTime() < Math.min(RETRY_MS, this.intervalMs)
    )
      return undefined;
    try {
      return await withBackupLock(this.o.database.db, this.o.database.kind, this.dir, async () => {
        const files = await this.scan();
        if (files[0] && at.getTime() - files[0].at.getTime() < this.intervalMs) return undefined;
        return this.write(at);
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      this.lastFailure = { at, code: typeof e.code === 'string' ? e.code : 'backup_failed' };
      // The message only: the error names the path and the cause, never a credential.
      this.o.logger.error(
        { backupDir: this.dir, code: this.lastFailure.code, reason: e.message },
        'backup failed',
      );
      return undefined;
    }
  }

  private async write(at: Date): Promise<Snapshot> {
    await fs.promises.mkdir(this.dir, { recursive: true });
    await this.removeStalePartials();
    const started = performance.now();
    const snapshot = await writeSnapshot(
      this.o.config.database,
      path.join(this.dir, fileName(at, this.o.config.database.kind)),
    );
    this.lastSuccess = { at, file: path.basename(snapshot.file), sizeBytes: snapshot.sizeBytes };
    this.o.logger.info(
      {
        file: snapshot.file,
        sizeBytes: snapshot.sizeBytes,
        durationMs: Math.round(performance.now() - started),
        ...(snapshot.documents !== undefined && {
          documents: snapshot.documents,
          copyMs: snapshot.copyMs,
          checkMs: snapshot.checkMs,
        }),
      },
      'backup written',
    );
    await this.prune();
    return snapshot;
  }

  /** Deletes this schedule's backups beyond the newest `BACKUP_KEEP`; nothing else. */
  private async prune(): Promise<void> {
    const old = (await this.list()).slice(this.o.config.backupKeep);
    for (const { name } of old) await fs.promises.rm(path.join(this.dir, name), { force: true });
    if (old.length > 0)
      this.o.logger.info({ deleted: old.map((f) => f.name) }, 'old backups deleted');
  }

  /** Partial copies of a process that died mid-copy (never a backup: they have no such name). */
  private async removeStalePartials(): Promise<void> {
    const now = Date.now();
    for (const name of await fs.promises.readdir(this.dir)) {
      if (!PARTIAL_FILE.test(name)) continue;
      const file = path.join(this.dir, name);
      const stat = await fs.promises.stat(file).catch(() => undefined);
      if (stat && now - stat.mtimeMs > STALE_PARTIAL_MS)
        await fs.promises.rm(file, { force: true });
    }
  }

  /** What `/ready` reports: the newest backup, the last failure, and whether one is overdue. */
  async status(): Promise<BackupStatus> {
    const now = this.o.clock.now();
    if (now.getTime() - this.scannedAt >= RESCAN_MS) await this.scan().catch(() => undefined);
    const { lastSuccess, lastFailure } = this;
    const since = lastSuccess?.at ?? this.startedAt;
    const status =
      now.getTime() - since.getTime() > 2 * this.intervalMs
        ? 'overdue'
        : lastFailure && (!lastSuccess || lastFailure.at >= lastSuccess.at)
          ? 'failing'
          : lastSuccess
            ? 'ok'
            : 'pending';
    return {
      status,
      intervalHours: this.o.config.backupIntervalHours,
      ...(lastSuccess && {
        lastSuccess: {
          at: lastSuccess.at.toISOString(),
          file: lastSuccess.file,
          sizeBytes: lastSuccess.sizeBytes,
        },
        nextDueAt: new Date(lastSuccess.at.getTime() + this.intervalMs).toISOString(),
      }),
      ...(lastFailure && {
        lastFailure: { at: lastFailure.at.toISOString(), code: lastFailure.code },
      }),
    };
  }
}

/** The schedule of `BACKUP_DIR`, or undefined when scheduled backups are off. */
export function createBackupSchedule(o: BackupScheduleOptions): BackupSchedule | undefined {
  const { backupDir } = o.config;
  if (backupDir === undefined) return undefined;
  return new BackupSchedule({ ...o, config: { ...o.config, backupDir } });
}
