import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // A worker imports the app's modules once and runs its files on them (import time went
    // from ~90 s to ~8 s per run). No test mocks modules; module-level registries that tests
    // extend (references) are taken back by those tests.
    isolate: false,
  },
});
