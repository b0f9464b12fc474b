import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * KoSIT's XRechnung 3.0.2 rules (XSD + EN 16931 + XRechnung schematron) run by the offline kit
 * in `../shared/validation/einvoice/` (test-only). It needs `../shared` beside the repository,
 * Java, Debian's `libsaxonhe-java` and `qpdf`. Where any of that is missing, `validatorMissing`
 * names it, and the e-invoice tests skip with that message, except under `CI=true`, where a
 * missing validator fails the run.
 */

export const VALIDATE = path.resolve(process.cwd(), '../shared/validation/einvoice/validate');
const SAXON = process.env.SAXON_JAR ?? '/usr/share/java/Saxon-HE.jar';

export interface ValidationMessage {
  id: string;
  flag: string;
  text: string;
  location?: string;
}

export interface ValidationResult {
  file: string;
  valid: boolean;
  errors: number;
  warnings: number;
  scenario?: string;
  specificationId?: string;
  messages: ValidationMessage[];
}

/** What is missing to run the validator, or undefined when it can run. */
export function validatorMissing(): string | undefined {
  if (!existsSync(VALIDATE)) return `the validation kit (${VALIDATE}, from ../shared)`;
  const missing: string[] = [];
  if (!existsSync(SAXON)) missing.push('libsaxonhe-java');
  if (spawnSync('qpdf', ['--version']).status !== 0) missing.push('qpdf');
  if (spawnSync('java', ['-version']).status !== 0) missing.push('a Java 17 JDK');
  if (missing.length === 0) return undefined;
  return `${missing.join(', ')} (apt-get install -y --no-install-recommends libsaxonhe-java qpdf)`;
}

/**
 * Whether e-invoice validation tests run here: true when the validator can run; false (with a
 * message on stderr) when it cannot and this is not CI; under `CI=true` a missing validator
 * throws, so the run fails instead of skipping.
 */
export function canValidate(): boolean {
  const missing = validatorMissing();
  if (missing === undefined) return true;
  if (process.env.CI === 'true')
    throw new Error(`CI=true but the e-invoice validator cannot run: missing ${missing}`);
  process.stderr.write(`e-invoice validation skipped: install ${missing}\n`);
  return false;
}

/**
 * Validates many e-invoices (XML or hybrid PDF bytes) in ONE validator call (one JVM start,
 * about 3 s), answering one result per input, in order.
 */
export function validateAll(files: { name: string; bytes: Buffer | string }[]): ValidationResult[] {
  if (files.length === 0) return [];
  const dir = mkdtempSync(path.join(tmpdir(), 'kontor-einvoice-'));
  try {
    const paths = files.map((f, i) => {
      const p = path.join(dir, `${String(i).padStart(3, '0')}-${f.name}`);
      writeFileSync(p, f.bytes);
      return p;
    });
    const r = spawnSync(VALIDATE, ['--json', '--quiet', ...paths], {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (r.status !== 0 && r.status !== 1)
      throw new Error(`validator failed (exit ${r.status}): ${r.stderr}`);
    const parsed = JSON.parse(r.stdout) as ValidationResult | ValidationResult[];
    const results = Array.isArray(parsed) ? parsed : [parsed];
    return results.map((res, i) => ({ ...res, file: files[i]!.name }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The error-level messages of a result, one per line, for an assertion's message. */
export function describeErrors(result: ValidationResult): string {
  return result.messages
    .filter((m) => m.flag === 'fatal' || m.flag === 'error')
    .map((m) => `${m.id}: ${m.text}`)
    .join('\n');
}
