import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * The offline SEPA validator (ISO 20022 XSDs + EPC rules an XSD cannot express) in
 * `../shared/validation/sepa/` (test-only). It needs `../shared` beside the repository and
 * Debian's `libxml2-utils` (xmllint). Where either is missing, `validatorMissing` names it and
 * the SEPA validation tests skip with that message, except under `CI=true`, where a missing
 * validator fails the run.
 */

export const VALIDATE = path.resolve(process.cwd(), '../shared/validation/sepa/validate');

export interface SepaProblem {
  rule: string;
  location: string;
  message: string;
}

export interface SepaValidationResult {
  file: string;
  message: string | null;
  valid: boolean;
  problems: SepaProblem[];
}

/** What is missing to run the validator, or undefined when it can run. */
export function validatorMissing(): string | undefined {
  if (!existsSync(VALIDATE))
    return `the SEPA validation kit (${VALIDATE}, from ../shared/validation/sepa)`;
  if (spawnSync('xmllint', ['--version']).status !== 0)
    return 'libxml2-utils (apt-get install -y --no-install-recommends libxml2-utils)';
  return undefined;
}

/**
 * Whether SEPA validation tests run here: true when the validator can run; false (with a
 * message on stderr) when it cannot and this is not CI; under `CI=true` a missing validator
 * throws, so the run fails instead of skipping.
 */
export function canValidate(): boolean {
  const missing = validatorMissing();
  if (missing === undefined) return true;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but the SEPA validator cannot run: missing ${missing}`);
  process.stderr.write(`SEPA validation skipped: install ${missing}\n`);
  return false;
}

/** Validates many files in ONE validator call, answering one result per input, in order. */
export function validateAll(files: { name: string; xml: string }[]): SepaValidationResult[] {
  if (files.length === 0) return [];
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-sepa-'));
  try {
    const names = files.map((f, i) => {
      const name = `${String(i).padStart(3, '0')}-${f.name}.xml`;
      writeFileSync(path.join(dir, name), f.xml);
      return name;
    });
    const r = spawnSync(VALIDATE, ['--json', dir], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0 && r.status !== 1)
      throw new Error(`SEPA validator failed (exit ${r.status}): ${r.stderr}`);
    const report = JSON.parse(r.stdout) as { files: SepaValidationResult[] };
    const byName = new Map(report.files.map((f) => [path.basename(f.file), f]));
    return names.map((name, i) => {
      const result = byName.get(name);
      if (result === undefined) throw new Error(`the SEPA validator did not report ${name}`);
      return { ...result, file: files[i]!.name };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The problems of a result, one per line, for an assertion's message. */
export function describeProblems(result: SepaValidationResult): string {
  return result.problems.map((p) => `[${p.rule}] ${p.location}: ${p.message}`).join('\n');
}
