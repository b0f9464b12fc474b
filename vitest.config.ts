import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // SQLite runs wait on fsync, child processes and Chromium as much as they compute: two
    // workers on two cores (one worker: 315 s; two: 202 s; three: 217 s, and timing-sensitive
    // tests start to flake). On PostgreSQL the database shares the cores: one worker (three took 451 s
    // against 390 s, with timeouts). Files share nothing but PostgreSQL, where every test makes
    // its own account.
    maxWorkers: process.env.DATABASE_URL?.startsWith('postgres') ? 1 : 2,
    // A worker imports the app's modules once and runs its files on them (import time went
    // from ~90 s to ~8 s per run). No test mocks modules; module-level registries that tests
    // extend (references) are taken back by those tests.
    isolate: false,
  },
});
