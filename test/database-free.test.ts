/**
 * The PostgreSQL + Redis pass leaves out the files in `test/database-free.ts`. This keeps that
 * list honest: every entry exists and is a test file, and none of them reads the database or
 * Redis settings, opens a database or a Redis connection, or builds the app (unless named with
 * its reason), so leaving it out of that pass loses nothing. Clearing the settings for a child
 * process (`DATABASE_URL: ''`) is not reading them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILDS_APP_FOR, DATABASE_FREE } from './database-free.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const STORAGE =
  /DATABASE_URL|REDIS_URL|loadConfig\(process\.env|openDatabase|\bKysely\b|ioredis|db\/database/;
const BUILDS_APP = /buildTestApp|test\/helpers/;
/** A child process's settings cleared, so it runs on its embedded SQLite whatever the pass. */
const CLEARED = /\b(DATABASE_URL|REDIS_URL): '',/g;

describe('database-free test files', () => {
  it.each(DATABASE_FREE)('%s touches no database or Redis', (file) => {
    expect(file).toMatch(/\.test\.ts$/);
    const source = fs.readFileSync(path.join(ROOT, file), 'utf8');
    expect(source.replace(CLEARED, '')).not.toMatch(STORAGE);
    if (!(file in BUILDS_APP_FOR)) expect(source).not.toMatch(BUILDS_APP);
  });

  it('names a reason only for listed files that build the app', () => {
    for (const file of Object.keys(BUILDS_APP_FOR)) {
      expect(DATABASE_FREE).toContain(file);
      expect(fs.readFileSync(path.join(ROOT, file), 'utf8')).toMatch(BUILDS_APP);
    }
  });
});
