import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, dbKind, type TestApp } from '../../../test/helpers.js';
import { ConfigError, loadConfig } from '../../config.js';
import { HOUR, MINUTE, ManualClock } from '../../shared/clock.js';
import { BACKUP_FILE, BackupSchedule } from './index.js';

const ext = dbKind === 'sqlite' ? 'sqlite' : 'dump';
const dirs: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-backups-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

/** The schedule's own files in `dir` (of this database's kind), oldest first. */
const backups = (dir: string) =>
  fs
    .readdirSync(dir)
    .filter((name) => BACKUP_FILE.exec(name)?.[2] === ext)
    .sort();

interface Ready {
  status: string;
  backup?: {
    status: string;
    intervalHours: number;
    lastSuccess?: { at: string; file: string; sizeBytes: number };
    lastFailure?: { at: string; code: string };
    nextDueAt?: string;
  };
}

async function ready(t: TestApp): Promise<Ready> {
  const res = await t.request({ method: 'GET', url: '/ready', key: null });
  expect(res.statusCode).toBe(200);
  return res.json<Ready>();
}

describe('backup configuration', () => {
  it('is off without BACKUP_DIR, and refuses a bad interval, retention, or either alone', () => {
    expect(loadConfig({}).backupDir).toBeUndefined();
    const on = loadConfig({ BACKUP_DIR: 'backups' });
    expect(on).toMatchObject({ backupIntervalHours: 24, backupKeep: 14 });
    expect(on.backupDir).toBe(path.resolve('backups'));
    const refused: [Record<string, string>, string][] = [
      [{ BACKUP_DIR: '/b', BACKUP_INTERVAL_HOURS: '0' }, 'BACKUP_INTERVAL_HOURS must be between'],
      [{ BACKUP_DIR: '/b', BACKUP_INTERVAL_HOURS: '1.5' }, 'must be a whole number'],
      [{ BACKUP_DIR: '/b', BACKUP_KEEP: '0' }, 'BACKUP_KEEP must be between 1'],
      [{ BACKUP_KEEP: '7' }, 'BACKUP_KEEP needs BACKUP_DIR'],
      [{ BACKUP_INTERVAL_HOURS: '6' }, 'BACKUP_INTERVAL_HOURS needs BACKUP_DIR'],
    ];
    for (const [env, message] of refused) {
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(message);
    }
  });
});

describe('scheduled backups', () => {
  const clock = new ManualClock(new Date('2026-11-28T06:00:00Z'));
  const dir = path.join(tmp(), 'nested', 'backups');
  let t: TestApp;

  beforeAll(async () => {
    t = await buildTestApp({ clock, env: { BACKUP_DIR: dir, BACKUP_KEEP: '3' } });
  });
  afterAll(() => t.close());

  it('writes a backup when due and again an interval later; /ready shows the last success', async () => {
    const schedule = t.app.ctx.backups!;
    expect((await ready(t)).backup).toEqual({ status: 'pending', intervalHours: 24 });

    const first = await schedule.runIfDue();
    expect(first?.file).toBe(path.join(dir, `kontor-20261128T060000Z.${ext}`));
    // Readable by its owner only: a backup holds every record.
    expect(fs.statSync(first!.file).mode & 0o077).toBe(0);
    // Not due again within the interval.
    clock.advance(23 * HOUR);
    expect(await schedule.runIfDue()).toBeUndefined();
    expect(backups(dir)).toEqual([`kontor-20261128T060000Z.${ext}`]);

    clock.advance(HOUR);
    const second = await schedule.runIfDue();
    expect(second?.file).toBe(path.join(dir, `kontor-20261129T060000Z.${ext}`));
    const body = await ready(t);
    expect(body.status).toBe('ok');
    expect(body.backup).toEqual({
      status: 'ok',
      intervalHours: 24,
      lastSuccess: {
        at: '2026-11-29T06:00:00.000Z',
        file: `kontor-20261129T060000Z.${ext}`,
        sizeBytes: fs.statSync(second!.file).size,
      },
      nextDueAt: '2026-11-30T06:00:00.000Z',
    });
    // No partial copy is left beside them.
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('keeps the newest BACKUP_KEEP of its own backups and never touches other files', async () => {
    const foreign = [
      'notes.txt',
      'kontor-manual.sqlite',
      `kontor-20200101T000000Z.${ext === 'sqlite' ? 'dump' : 'sqlite'}`,
      `.kontor-20200101T000000Z.${ext}.partial-0123abcd`,
    ];
    for (const name of foreign) fs.writeFileSync(path.join(dir, name), 'not a backup');
    for (let i = 0; i < 3; i++) {
      clock.advance(24 * HOUR);
      expect(await t.app.ctx.backups!.runIfDue()).toBeDefined();
    }
    expect(backups(dir)).toEqual(
      ['20261130', '20261201', '20261202'].map((day) => `kontor-${day}T060000Z.${ext}`),
    );
    for (const name of foreign) expect(fs.existsSync(path.join(dir, name))).toBe(true);
  });

  it('reports overdue when the newest backup is more than two intervals old, still ready', async () => {
    clock.advance(49 * HOUR);
    const body = await ready(t);
    expect(body.status).toBe('ok');
    expect(body.backup?.status).toBe('overdue');
  });

  it.runIf(dbKind === 'postgres')(
    'lets one replica write when two check at once (advisory lock)',
    async () => {
      const other = new BackupSchedule({
        config: { ...t.app.ctx.config, backupDir: dir },
        database: t.app.ctx.database,
        clock,
        logger: t.app.log,
      });
      clock.advance(24 * HOUR);
      const results = await Promise.all([other.runIfDue(), t.app.ctx.backups!.runIfDue()]);
      expect(results.filter((r) => r !== undefined)).toHaveLength(1);
    },
  );
});

describe('a failing backup', () => {
  let t: TestApp;
  let blocked: string;

  beforeAll(async () => {
    // A directory that cannot be made: its parent is a file (root ignores permission bits).
    const parent = path.join(tmp(), 'a-file');
    fs.writeFileSync(parent, '');
    blocked = path.join(parent, 'backups');
    t = await buildTestApp({ env: { BACKUP_DIR: blocked } });
  });
  afterAll(() => t.close());

  it('is logged and reported by /ready, and the service keeps serving', async () => {
    const lines: Record<string, unknown>[] = [];
    const failClock = new ManualClock();
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
          done();
        },
      }),
    );
    const schedule = new BackupSchedule({
      config: { ...t.app.ctx.config, backupDir: blocked },
      database: t.app.ctx.database,
      clock: failClock,
      logger,
    });
    expect(await schedule.runIfDue()).toBeUndefined();
    expect(lines).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'backup failed',
        code: 'ENOTDIR',
        backupDir: blocked,
      }),
    ]);
    if (dbKind === 'postgres')
      expect(JSON.stringify(lines)).not.toContain(
        new URL(process.env.DATABASE_URL!).password || '\0',
      );

    expect(await schedule.runIfDue()).toBeUndefined();
    expect(lines).toHaveLength(1); // the next attempt waits ten minutes, not one
    failClock.advance(10 * MINUTE);
    expect(await schedule.runIfDue()).toBeUndefined();
    expect(lines).toHaveLength(2);

    expect(await t.app.ctx.backups!.runIfDue()).toBeUndefined();
    const body = await ready(t);
    expect(body.status).toBe('ok');
    expect(body.backup).toMatchObject({ status: 'failing', lastFailure: { code: 'ENOTDIR' } });
    expect(body.backup?.lastSuccess).toBeUndefined();

    const user = await createUser(t);
    const created = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'Still serving' },
    });
    expect(created.statusCode).toBe(201);
  });
});
