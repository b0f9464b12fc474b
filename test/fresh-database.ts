import { onTestFinished } from 'vitest';
import { openDatabase, type Database } from '../src/db/database.js';
import { buildTestApp, dbKind, type TestApp } from './helpers.js';

/**
 * Databases of their own for tests whose result depends on the database's state: a migration
 * run step by step, or a plan, which depends on the tables' sizes and statistics (what the
 * run's other test files wrote before).
 */

/**
 * A new, empty PostgreSQL database beside the run's (`DATABASE_URL`): its tables have no
 * statistics yet, as on a new installation. Answers its URL and how to drop it.
 */
export async function freshPostgresDatabase(
  prefix: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  await onServer(`create database ${name}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(`drop database if exists ${name} with (force)`),
  };
}

/**
 * Runs one statement on the run's PostgreSQL server (`DATABASE_URL`), connected to its
 * `postgres` database, outside any test database: creating or dropping databases and
 * tablespaces.
 */
export async function onServer(statement: string): Promise<void> {
  const { default: pg } = await import('pg');
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = '/postgres';
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A database of this run's kind to migrate step by step: SQLite in memory, or a fresh
 * PostgreSQL one, dropped when the test ends.
 */
export async function freshDatabase(prefix: string): Promise<Database> {
  if (dbKind === 'sqlite') return openDatabase({ database: { kind: 'sqlite', file: ':memory:' } });
  const { url, drop } = await freshPostgresDatabase(prefix);
  onTestFinished(drop);
  return openDatabase({ database: { kind: 'postgres', url } });
}

/** A test app on a fresh PostgreSQL database (`freshPostgresDatabase`), dropped on close. */
export async function appOnFreshDatabase(prefix: string): Promise<TestApp & { url: string }> {
  const { url, drop } = await freshPostgresDatabase(prefix);
  let t: TestApp;
  try {
    t = await buildTestApp({ env: { DATABASE_URL: url } });
  } catch (err) {
    await drop();
    throw err;
  }
  return {
    ...t,
    url,
    async close() {
      try {
        await t.close();
      } finally {
        await drop();
      }
    },
  };
}
