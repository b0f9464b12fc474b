import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

/**
 * A reporter for `.ci/run`: every test that failed or passed only on a retry, and every file
 * that failed outside its tests, as one line each, appended to the file `CI_TEST_NOTES` names.
 * CI prints that file last, where a shortened log still shows it. Without the variable it
 * writes nothing.
 */
export default class CiNotesReporter implements Reporter {
  private readonly lines: string[] = [];
  private readonly label = process.env.DATABASE_URL ? 'postgres' : 'sqlite';

  onTestCaseResult(test: TestCase): void {
    const state = test.result().state;
    const retries = test.diagnostic()?.retryCount ?? 0;
    const where = `${this.file(test.module)} > ${test.fullName}`;
    if (state === 'failed') {
      const first = test.result().errors?.[0]?.message?.split('\n')[0] ?? '';
      this.lines.push(`${this.label}: FAILED ${where}: ${first.slice(0, 300)}`);
    } else if (retries > 0) {
      this.lines.push(`${this.label}: passed on retry ${retries}: ${where}`);
    }
  }

  onTestModuleEnd(module: TestModule): void {
    for (const error of module.errors())
      this.lines.push(
        `${this.label}: FAILED ${this.file(module)} (outside its tests): ${error.message?.split('\n')[0]?.slice(0, 300) ?? ''}`,
      );
  }

  onTestRunEnd(): void {
    const target = process.env.CI_TEST_NOTES;
    if (target && this.lines.length > 0) fs.appendFileSync(target, `${this.lines.join('\n')}\n`);
  }

  private file(module: TestModule): string {
    return path.relative(process.cwd(), module.moduleId);
  }
}
