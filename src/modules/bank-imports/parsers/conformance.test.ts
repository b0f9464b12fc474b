import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { parseStatementFile } from './index.js';
import type { ParseResult } from './types.js';
import { report } from '../../../../test/report.js';

/**
 * Conformance run over real statements written by others (`../shared/testdata`, see its
 * README.md and MANIFEST.tsv). Every MT940, CAMT and CSV file is either parsed — statements,
 * entries and the balance check `opening + entries = closing` per statement where both are
 * stated — or refused with 422 `file_unprocessable` and a reason. Anything else thrown is a
 * crash and fails the folder's test. Negative files must be refused.
 */

const ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../../../shared/testdata',
);
const FOLDERS = ['mt940', 'camt052', 'camt053', 'camt054', 'csv'] as const;

/** Files that must be refused: named so, the MT942 interim report, the 5-byte file. */
function isNegative(file: string, size: number): boolean {
  const name = path.basename(file);
  return (
    /broken|invalid|wrong|unsupported|corrupt/i.test(name) || /mt942/i.test(name) || size === 5
  );
}

/**
 * Negative by name but read, and why. The test pins each: it must read exactly like its
 * intact twin.
 */
const READ_DESPITE_NAME: Record<string, string> = {
  // mt940-rs calls it broken for its own strict reasons, but it is jejik-mt940/knab.txt
  // byte for byte without the SWIFT {1:}{2:}{4:} envelopes, which MT940 files often omit.
  'mt940/mt940-rs/jejik_knab_broken.sta': 'mt940/jejik-mt940/knab.txt',
};

type Balance = 'ok' | 'broken' | 'n.a.';
type Outcome =
  | { kind: 'parsed'; result: ParseResult; balances: Balance[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'crashed'; error: string };

interface Row {
  file: string;
  negative: boolean;
  outcome: Outcome;
}

function balanceOf(statement: ParseResult['statements'][number]): Balance {
  if (statement.openingBalanceMinor === null || statement.closingBalanceMinor === null)
    return 'n.a.';
  const sum = statement.entries.reduce((total, entry) => total + entry.amountMinor, 0);
  return statement.openingBalanceMinor + sum === statement.closingBalanceMinor ? 'ok' : 'broken';
}

function run(bytes: Buffer): Outcome {
  try {
    const result = parseStatementFile(bytes);
    return { kind: 'parsed', result, balances: result.statements.map(balanceOf) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'file_unprocessable')
      return { kind: 'refused', reason: error.message };
    return {
      kind: 'crashed',
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    };
  }
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const full = path.join(dir, entry.name);
      return entry.isDirectory() ? files(full) : [full];
    })
    .sort();
}

function describeRow(row: Row): string {
  const { outcome } = row;
  const file = path.relative(ROOT, row.file).padEnd(78);
  switch (outcome.kind) {
    case 'parsed': {
      const entries = outcome.result.statements.reduce((n, s) => n + s.entries.length, 0);
      const counts = (value: Balance) => outcome.balances.filter((b) => b === value).length;
      const balance = (['ok', 'broken', 'n.a.'] as const)
        .filter((value) => counts(value) > 0)
        .map((value) => `${value} ${counts(value)}`)
        .join(', ');
      return `${file} ${outcome.result.format.padEnd(8)} ${String(outcome.result.statements.length).padStart(3)} st ${String(entries).padStart(5)} entries  balance ${balance}${outcome.result.errors.length > 0 ? `  (${outcome.result.errors.length} notes)` : ''}`;
    }
    case 'refused':
      return `${file} refused: ${outcome.reason}`;
    case 'crashed':
      return `${file} CRASHED: ${outcome.error}`;
  }
}

const rows: Row[] = [];

describe.skipIf(!existsSync(ROOT))('statement conformance (../shared/testdata)', () => {
  afterAll(() => {
    if (rows.length === 0) return;
    const parsed = rows.filter((r) => r.outcome.kind === 'parsed');
    const refused = rows.filter((r) => r.outcome.kind === 'refused').length;
    const crashed = rows.filter((r) => r.outcome.kind === 'crashed').length;
    // A file counts as balance ok when every statement that states both balances adds up.
    const balanceOk = parsed.filter((r) => {
      const balances = r.outcome.kind === 'parsed' ? r.outcome.balances : [];
      return balances.includes('ok') && !balances.includes('broken');
    }).length;
    const statements = parsed.flatMap((r) =>
      r.outcome.kind === 'parsed' ? r.outcome.balances : [],
    );
    report(
      `${rows.map(describeRow).join('\n')}\n` +
        `statements: ${statements.length}, balance ok ${statements.filter((b) => b === 'ok').length}, broken ${statements.filter((b) => b === 'broken').length}, n.a. ${statements.filter((b) => b === 'n.a.').length}${crashed > 0 ? `; CRASHED ${crashed}` : ''}\n` +
        `parsed ${parsed.length}, refused ${refused}, balance ok ${balanceOk}\n`,
    );
  });

  it.each(FOLDERS)('%s: every file is parsed or refused with a reason', (folder) => {
    const dir = path.join(ROOT, folder);
    if (!existsSync(dir)) return;
    const mine: Row[] = files(dir).map((file) => {
      const bytes = readFileSync(file);
      return { file, negative: isNegative(file, bytes.length), outcome: run(bytes) };
    });
    rows.push(...mine);
    expect(mine.length).toBeGreaterThan(0);

    const crashes = mine
      .filter((row) => row.outcome.kind === 'crashed')
      .map(
        (row) => `${path.relative(ROOT, row.file)}: ${(row.outcome as { error: string }).error}`,
      );
    expect(crashes, 'files that crashed instead of being parsed or refused').toEqual([]);

    const accepted = mine
      .filter((row) => row.negative && row.outcome.kind === 'parsed')
      .map((row) => path.relative(ROOT, row.file));
    for (const name of accepted.filter((file) => Object.hasOwn(READ_DESPITE_NAME, file))) {
      const twin = run(readFileSync(path.join(ROOT, READ_DESPITE_NAME[name]!)));
      const outcome = mine.find((row) => path.relative(ROOT, row.file) === name)!.outcome;
      expect(outcome.kind === 'parsed' && outcome.result.statements, name).toEqual(
        twin.kind === 'parsed' && twin.result.statements,
      );
    }
    expect(
      accepted.filter((file) => !Object.hasOwn(READ_DESPITE_NAME, file)),
      'negative files that were not refused',
    ).toEqual([]);

    for (const row of mine) {
      const name = path.relative(ROOT, row.file);
      if (row.outcome.kind === 'refused') {
        expect(row.outcome.reason.length, name).toBeGreaterThan(15);
        continue;
      }
      if (row.outcome.kind !== 'parsed') continue;
      for (const statement of row.outcome.result.statements) {
        expect(statement.currency, name).toMatch(/^[A-Z]{3}$/);
        for (const entry of statement.entries) {
          expect(Number.isSafeInteger(entry.amountMinor), name).toBe(true);
          expect(entry.bookingDate, name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
          expect(entry.valueDate ?? '2000-01-01', name).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        }
      }
    }
  });

  it('reads the real banks’ CAMT statements exactly', () => {
    const read = (file: string) => run(readFileSync(path.join(ROOT, file)));
    const summary = (file: string) => {
      const outcome = read(file);
      if (outcome.kind !== 'parsed') return outcome;
      return outcome.result.statements.map((s, i) => [s.entries.length, outcome.balances[i]]);
    };
    expect(summary('camt053/subite-camt-to-coda/account_statement-2.xml')).toEqual([[462, 'ok']]);
    expect(summary('camt053/subite-camt-to-coda/BE68793230773034-202411.xml')).toEqual([
      [268, 'ok'],
    ]);
    expect(
      summary('camt053/subite-camt-to-coda/LT625883379695428516_CAMT_053_2024-03-07.xml'),
    ).toEqual([
      [3, 'ok'],
      [0, 'ok'],
    ]);
    expect(summary('camt053/genkgo-camt/camt053.v2.multi.statement.xml')).toEqual([
      [1, 'ok'],
      [1, 'ok'],
    ]);
    const latin1 = read('camt052/actualbudget/camt.latin1.xml');
    expect(latin1.kind === 'parsed' && latin1.result.statements[0]!.entries[1]).toMatchObject({
      amountMinor: -500,
      counterpartyName: 'Grüße aus München',
      purpose: 'Restaurant Schrödingers Katze und Café Ünique',
    });
    expect(read('camt053/genkgo-camt/camt053.v2.wrong.xml')).toEqual({
      kind: 'refused',
      reason: 'The camt.053 message contains no statement (<Stmt>).',
    });
  });
});
