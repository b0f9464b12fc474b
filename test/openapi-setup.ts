import { afterAll, expect } from 'vitest';
import { flushTally } from './openapi-conformance.js';

// After each test file: its count of checked answers and its violations go to the run's tally.
afterAll(() => {
  flushTally(expect.getState().testPath ?? 'unknown');
});
