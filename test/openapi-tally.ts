/**
 * The run's tally of answers checked against the OpenAPI document: each test file appends a
 * line (test/openapi-setup.ts); the global setup empties the file before the run and prints
 * the total after it. Kept apart from the checker so the global setup does not load ajv.
 */
import fs from 'node:fs';
import path from 'node:path';

export const TALLY_FILE = path.resolve(
  import.meta.dirname,
  '..',
  'test-results',
  'reports',
  'openapi-conformance.jsonl',
);

export function startTally(): void {
  fs.rmSync(TALLY_FILE, { force: true });
}

/** Prints the answers checked and the violations of the run (listed when there are any). */
export function summariseTally(): void {
  if (!fs.existsSync(TALLY_FILE)) return;
  const files = fs
    .readFileSync(TALLY_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as { file: string; checked: number; ms: number; violations: string[] },
    );
  const checked = files.reduce((n, f) => n + f.checked, 0);
  const ms = files.reduce((n, f) => n + f.ms, 0);
  const violations = files.flatMap((f) => f.violations.map((v) => `${f.file}: ${v}`));
  process.stdout.write(
    `\nOpenAPI conformance: ${checked} answers checked in ${files.length} files (${ms} ms checking), ${violations.length} violations\n`,
  );
  for (const v of violations) process.stdout.write(`${v}\n`);
}
