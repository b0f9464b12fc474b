import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { openDatabase, statisticsOff } from '../src/db/database.js';
import { buildTestApp, dbKind, logSink } from './helpers.js';

/**
 * A PostgreSQL without autovacuum gathers no statistics, and plans made without them may read
 * every row of an account (docs/operations.md, "Statistics"): the start says so in its log.
 */
describe.skipIf(dbKind !== 'postgres')('start on PostgreSQL: statistics', () => {
  /** The server's own settings, as a start reads them. */
  const settingsOff = async (db: Parameters<typeof statisticsOff>[0]) => {
    const { rows } = await sql<{ autovacuum: string; track_counts: string }>`select
      current_setting('autovacuum') as autovacuum,
      current_setting('track_counts') as track_counts`.execute(db);
    return rows[0]!.autovacuum === 'off' || rows[0]!.track_counts === 'off';
  };

  it('tells whether the server gathers statistics', async () => {
    // One connection: a setting changed for the session is what the check then reads.
    const database = openDatabase(
      loadConfig({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_POOL_SIZE: '1' }),
    );
    try {
      expect(await statisticsOff(database.db, 'postgres')).toBe(await settingsOff(database.db));
      await sql`set track_counts = off`.execute(database.db);
      expect(await statisticsOff(database.db, 'postgres')).toBe(true);
      await sql`reset track_counts`.execute(database.db);
      expect(await statisticsOff(database.db, 'sqlite')).toBe(false);
    } finally {
      await database.close();
    }
  });

  it('warns at start exactly when the server gathers no statistics', async () => {
    const log = logSink();
    const t = await buildTestApp({ env: { LOG_LEVEL: 'warn' }, logStream: log.stream });
    try {
      const warned = log
        .text()
        .split('\n')
        .filter((line) => line.includes('"level":40') && line.includes('without autovacuum'));
      expect(warned).toHaveLength((await settingsOff(t.app.ctx.db)) ? 1 : 0);
    } finally {
      await t.close();
    }
  });
});
