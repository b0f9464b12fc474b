import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { buildTestApp, dbKind } from './helpers.js';

/**
 * A PostgreSQL without autovacuum keeps no statistics, and plans made without them may read
 * every row of an account (docs/operations.md, "Statistics"): the start says so in its log.
 */
describe.skipIf(dbKind !== 'postgres')('start on PostgreSQL: statistics', () => {
  it('warns exactly when the server keeps no statistics', async () => {
    let log = '';
    const logStream = new Writable({
      write(chunk: Buffer, _enc, done) {
        log += chunk.toString('utf8');
        done();
      },
    });
    const t = await buildTestApp({ env: { LOG_LEVEL: 'warn' }, logStream });
    try {
      const { rows } = await sql<{ autovacuum: string; track_counts: string }>`select
        current_setting('autovacuum') as autovacuum,
        current_setting('track_counts') as track_counts`.execute(t.app.ctx.db);
      const off = rows[0]!.autovacuum === 'off' || rows[0]!.track_counts === 'off';
      const warned = log
        .split('\n')
        .filter((line) => line.includes('"level":40') && line.includes('without autovacuum'));
      expect(warned).toHaveLength(off ? 1 : 0);
    } finally {
      await t.close();
    }
  });
});
