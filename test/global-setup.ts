import { loadConfig } from '../src/config.js';
import { migrate, openDatabase } from '../src/db/database.js';

/**
 * With `DATABASE_URL` set to PostgreSQL, the suite runs against it: migrate once here, before
 * the workers start, so they do not race to create the schema. Every test makes its own
 * account, so files can share the database. SQLite runs get a fresh file per app.
 */
export default async function setup(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url?.startsWith('postgres')) return;
  const database = openDatabase(loadConfig({ DATABASE_URL: url }));
  try {
    await migrate(database.db);
  } finally {
    await database.close();
  }
}
