import { configDefaults, defineConfig } from 'vitest/config';
import { DATABASE_FREE } from './test/database-free.js';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The PostgreSQL + Redis pass runs what the database or Redis can change; files that touch
    // neither ran in the SQLite pass already (test/database-free.ts says which, and why).
    exclude: [...configDefaults.exclude, ...(process.env.DATABASE_URL ? DATABASE_FREE : [])],
    globalSetup: ['test/global-setup.ts'],
    // Tallies, per test file, the answers checked against the OpenAPI document.
    setupFiles: ['test/openapi-setup.ts'],
    testTimeout: 30_000,
    // In CI a failed test runs once more before it fails the run: on a loaded two-core machine
    // a render or a child process can still run past a timeout. A test that passed only on its
    // retry is named at the end of the CI log (test/ci-reporter.ts), so it is seen and mended.
    retry: process.env.CI ? 1 : 0,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two workers on two cores for both databases. SQLite runs wait on fsync, child processes
    // and Chromium as much as they compute (one worker: 315 s; two: 202 s; three: 217 s, and
    // timing-sensitive tests start to flake). PostgreSQL ran on one worker while every test app
    // compiled its own validators (two workers then timed out); with them compiled once per
    // process, two workers take the PostgreSQL run from 264 s to 121 s on this machine. Files
    // share nothing but PostgreSQL and Redis, where every test makes its own account.
    maxWorkers: 2,
    // A worker imports the app's modules once and runs its files on them (import time went
    // from ~90 s to ~8 s per run). No test mocks modules; module-level registries that tests
    // extend (references) are taken back by those tests.
    isolate: false,
  },
});
