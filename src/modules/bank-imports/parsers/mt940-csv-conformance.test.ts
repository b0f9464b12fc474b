/**
 * Conformance of the MT940 and CSV parsers over real-world files nobody here wrote
 * (`../shared/testdata/mt940`, `../shared/testdata/csv`, see its README and MANIFEST.tsv).
 * Every file is parsed or refused with a clear `file_unprocessable` problem, never another
 * exception; the balance check is printed per file and as one summary line per folder.
 * Skipped when the folder is absent.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { isCurrency, toMinor } from '../../../shared/money.js';
import { isIsoDate } from '../../../shared/dates.js';
import { parseGermanCsv } from './csv.js';
import { parseMt940 } from './mt940.js';
import type { ParseResult, ParsedStatement } from './types.js';
import { report } from '../../../../test/report.js';

const ROOT = resolve(process.cwd(), '../shared/testdata');

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    })
    .sort();
}

/**
 * Named or sized as a negative sample by the testdata README. `tinyBelow`: MT940 snippets
 * under 100 bytes hold no statement; the 59-byte CSV is a complete export (header + row).
 */
function isNegative(path: string, tinyBelow: number): boolean {
  return (
    /broken|invalid|wrong|unsupported|corrupt|mt942/i.test(path) || statSync(path).size < tinyBelow
  );
}

function sumOf(s: ParsedStatement): number {
  return s.entries.reduce((total, e) => total + e.amountMinor, 0);
}

function balanceOk(s: ParsedStatement): boolean | null {
  if (s.openingBalanceMinor === null || s.closingBalanceMinor === null) return null;
  return s.openingBalanceMinor + sumOf(s) === s.closingBalanceMinor;
}

interface Outcome {
  file: string;
  result?: ParseResult;
  refusal?: AppError;
}

/** Parses every file of a folder; anything thrown that is not an AppError fails the test. */
function runFolder(folder: string, parse: (bytes: Buffer) => ParseResult): Outcome[] {
  const dir = join(ROOT, folder);
  return filesUnder(dir)
    .filter((path) => !path.endsWith('.json'))
    .map((path) => {
      const file = relative(dir, path);
      try {
        return { file, result: parse(readFileSync(path)) };
      } catch (error) {
        if (!(error instanceof AppError)) {
          throw new Error(`${folder}/${file}: unexpected ${String(error)}`, { cause: error });
        }
        return { file, refusal: error };
      }
    });
}

function checkAndReport(folder: string, outcomes: Outcome[]): Map<string, ParseResult> {
  const lines: string[] = [];
  let parsed = 0;
  let refused = 0;
  let balanced = 0;
  let checkable = 0;
  const results = new Map<string, ParseResult>();
  for (const { file, result, refusal } of outcomes) {
    if (refusal) {
      refused++;
      expect(refusal.code, file).toBe('file_unprocessable');
      expect(refusal.status, file).toBe(422);
      expect(refusal.message.length, file).toBeGreaterThan(30);
      lines.push(`  refused ${file}: ${refusal.message}`);
      continue;
    }
    if (!result) continue;
    parsed++;
    results.set(file, result);
    expect(result.statements.length, file).toBeGreaterThan(0);
    const checks: string[] = [];
    for (const s of result.statements) {
      expect(isCurrency(s.currency) || /^[A-Z]{3}$/.test(s.currency), file).toBe(true);
      for (const e of s.entries) {
        expect(Number.isSafeInteger(e.amountMinor), file).toBe(true);
        expect(isIsoDate(e.bookingDate), `${file} ${e.bookingDate}`).toBe(true);
        if (e.valueDate !== null) expect(isIsoDate(e.valueDate), file).toBe(true);
        expect(typeof e.purpose, file).toBe('string');
      }
      const ok = balanceOk(s);
      if (ok !== null) {
        checkable++;
        if (ok) balanced++;
      }
      const off = (s.openingBalanceMinor ?? 0) + sumOf(s) - (s.closingBalanceMinor ?? 0);
      checks.push(ok === null ? 'n/a' : ok ? 'ok' : `off by ${off}`);
    }
    const entries = result.statements.reduce((n, s) => n + s.entries.length, 0);
    lines.push(
      `  parsed  ${file}: ${result.statements.length} statement(s), ${entries} entries, ` +
        `${result.errors.length} note(s), balance ${checks.join(' ')}`,
    );
  }
  const summary = `${folder}: parsed ${parsed}, refused ${refused}, balance ok ${balanced} of ${checkable}`;
  report(`${lines.join('\n')}\n${summary}\n`);
  return results;
}

/** Files outside the negative naming that are fragments, not statements: refused on purpose. */
const MT940_FRAGMENTS = new Set([
  'wolph-mt940/cmxl/statement_details.sta', // a lone :61:/:86: pair without a statement frame
  'wolph-mt940/betterplace/amount_formats.sta', // six :60F: lines and nothing else
]);

/**
 * Named broken but recoverable: the same two statements as jejik-mt940/knab.txt, only
 * without the SWIFT envelopes. Its second statement does not balance in either file.
 */
const MT940_RECOVERABLE = new Set(['mt940-rs/jejik_knab_broken.sta']);

/** Files whose every statement balances: a regression guard on signs, amounts and dates. */
const MT940_BALANCED = [
  'jejik-mt940/sparkasse.txt',
  'jejik-mt940/sparkasse_interim_balance.txt',
  'jejik-mt940/volksbankenraiffeisenbanken.txt',
  'jejik-mt940/lbbw.txt',
  'jejik-mt940/generic.txt',
  'php-mt940/Kontist_sample.txt',
  'php-mt940/Spk_sample.txt',
  'php-mt940/Penta_sample.txt',
  'php-mt940/Bunq_sample.txt',
  'php-mt940/Zetb_sample.txt',
  'php-mt940/Kbs_sample2.txt',
  'php-mt940/Triodos_sample.txt',
  'wolph-mt940/betterplace/sepa_mt9401.sta',
  'wolph-mt940/betterplace/with_binary_character.sta',
  'wolph-mt940/cmxl/mt940.sta',
  'wolph-mt940/self-provided/raphaelm.sta',
  'wolph-mt940/self-provided/february_30.sta',
  'wolph-mt940/self-provided/wrapped_timestamp.sta',
  'mt940-rs/danskebank_MT940_DK_Example.sta',
  'mt940-rs/danskebank_MT940_SE_Example.sta',
  'mt940-rs/unknown_tag.sta',
  'a-fas-mt940js/test-with-NS.mt940x',
  'actualbudget/data.sta',
];

describe.skipIf(!existsSync(join(ROOT, 'mt940')))('conformance: ../shared/testdata/mt940', () => {
  it('parses or refuses every file, and balances where the bank did', () => {
    const outcomes = runFolder('mt940', parseMt940);
    const results = checkAndReport('mt940', outcomes);
    for (const { file, refusal } of outcomes) {
      const path = join(ROOT, 'mt940', file);
      const mustRefuse =
        (isNegative(path, 100) && !MT940_RECOVERABLE.has(file)) || MT940_FRAGMENTS.has(file);
      expect(
        refusal !== undefined,
        `${file} ${mustRefuse ? 'must be refused' : 'must parse'}`,
      ).toBe(mustRefuse);
    }
    for (const file of MT940_BALANCED) {
      const result = results.get(file);
      expect(result, file).toBeDefined();
      for (const s of result?.statements ?? []) expect(balanceOk(s), file).toBe(true);
    }
  });

  it('agrees with the expected output shipped with webschik/mt940-js', () => {
    const dir = join(ROOT, 'mt940', 'webschik-mt940-js');
    const expectations = readdirSync(dir).filter((name) => name.endsWith('.json'));
    expect(expectations.length).toBeGreaterThan(0);
    const minor = (value: number, currency: string): number | undefined =>
      toMinor(value, isCurrency(currency) ? currency : 'EUR');
    for (const name of expectations) {
      const base = name.replace(/\.json$/, '');
      const source = readdirSync(dir).find((n) => n.startsWith(`${base}.`) && n !== name);
      expect(source, name).toBeDefined();
      const expected = JSON.parse(readFileSync(join(dir, name), 'utf8')) as {
        openingBalance: { isCredit: boolean; value: number; currency: string; date: string };
        closingBalance: { isCredit: boolean; value: number; currency: string; date: string };
        transactions: {
          isCredit: boolean;
          amount: number;
          currency: string;
          valueDate: string;
          entryDate: string;
          bankReference: string;
        }[];
      }[];
      const result = parseMt940(readFileSync(join(dir, source ?? '')));
      expect(result.statements.length, name).toBe(expected.length);
      for (const [i, want] of expected.entries()) {
        const got = result.statements[i] as ParsedStatement;
        const sign = (credit: boolean) => (credit ? 1 : -1);
        const { openingBalance: open, closingBalance: close } = want;
        expect(got.openingBalanceMinor, name).toBe(
          sign(open.isCredit) * (minor(open.value, open.currency) ?? NaN),
        );
        expect(got.closingBalanceMinor, name).toBe(
          sign(close.isCredit) * (minor(close.value, close.currency) ?? NaN),
        );
        expect([got.openingDate, got.closingDate], name).toEqual([open.date, close.date]);
        expect(got.entries.length, name).toBe(want.transactions.length);
        for (const [j, t] of want.transactions.entries()) {
          const entry = got.entries[j];
          expect(entry?.amountMinor, `${name} #${j}`).toBe(
            sign(t.isCredit) * (minor(t.amount, t.currency) ?? NaN),
          );
          expect(entry?.valueDate, `${name} #${j}`).toBe(t.valueDate);
          expect(entry?.bookingDate, `${name} #${j}`).toBe(t.entryDate || t.valueDate);
          expect(entry?.bankReference, `${name} #${j}`).toBe(t.bankReference || null);
        }
      }
    }
  });
});

describe.skipIf(!existsSync(join(ROOT, 'csv')))('conformance: ../shared/testdata/csv', () => {
  it('parses or refuses every file, and balances where the export states balances', () => {
    const outcomes = runFolder('csv', (bytes) => parseGermanCsv(bytes));
    const results = checkAndReport('csv', outcomes);
    for (const { file, refusal } of outcomes) {
      const mustRefuse = isNegative(join(ROOT, 'csv', file), 16);
      expect(
        refusal !== undefined,
        `${file} ${mustRefuse ? 'must be refused' : 'must parse'}`,
      ).toBe(mustRefuse);
    }
    const vr = results.get('soacsv2mt940/vr-bank_test_VR-Bank.csv')?.statements[0];
    expect(vr && balanceOk(vr)).toBe(true);
    // Both signs are read right in the exports that state them differently.
    const signs = (file: string) =>
      results.get(file)?.statements[0]?.entries.map((e) => Math.sign(e.amountMinor));
    expect(signs('soacsv2mt940/1822direkt_test_1822.csv')).toEqual([-1, 1]);
    expect(signs('soacsv2mt940/vr-bank_test_VR-Bank1.csv')).toEqual([-1, 1, -1]);
  });
});
