import { loadConfig } from '../src/config.js';
import { migrate, openDatabase } from '../src/db/database.js';
import { loadEnsureBuilt } from './processes.js';
import { startTally, summariseTally } from './openapi-tally.js';

/**
 * Before the workers start:
 * - `dist/` is brought up to date with the sources (esbuild, ~1 s, and only when they changed
 *   since the last build): the tests that start Kontor as a process run the build, as
 *   `npm start` and the container do, and would race to rebuild it from two workers.
 * - With `DATABASE_URL` set to PostgreSQL, the suite runs against it: migrate once here, so the
 *   workers do not race to create the schema. Every test makes its own account, so files can
 *   share the database. SQLite runs get a fresh file per app.
 * - The OpenAPI conformance tally starts empty; at the end its total is printed
 *   (test/openapi-conformance.ts).
 */
export default async function setup(): Promise<() => void> {
  (await loadEnsureBuilt())();
  startTally();
  const url = process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return summariseTally;
  const database = openDatabase(loadConfig({ DATABASE_URL: url }));
  try {
    await migrate(database.db);
  } finally {
    await database.close();
  }
  return summariseTally;
}
