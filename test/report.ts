import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

const DIR = path.resolve(import.meta.dirname, '..', 'test-results', 'reports');

/**
 * What a test measures along the way (conformance counts over the shared test data, timings,
 * verdict tables): written to `test-results/reports/<test file>.txt` (git-ignored), so a run's
 * output shows only what passed and failed. `TEST_REPORTS=stdout` prints them as well.
 */
export function report(text: string): void {
  const testPath = expect.getState().testPath;
  const name = testPath ? path.basename(testPath).replace(/\.test\.ts$/, '') : 'suite';
  fs.mkdirSync(DIR, { recursive: true });
  fs.appendFileSync(path.join(DIR, `${name}.txt`), text.endsWith('\n') ? text : `${text}\n`);
  if (process.env.TEST_REPORTS === 'stdout') process.stdout.write(text);
}
