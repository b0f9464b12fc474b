import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { parseGermanCsv } from './csv.js';
import { decideColumnSeparator } from './csv-values.js';
import type { ParsedStatement } from './types.js';

/**
 * Number formats of CSV exports (issue 11): each amount column and each balance decides its
 * decimal separator from its own values; what reads either way is refused, never guessed.
 */

const crlf = (lines: string[]): string => lines.join('\r\n');

const onlyStatement = (text: string): ParsedStatement => {
  const result = parseGermanCsv(Buffer.from(text, 'utf8'));
  expect(result.statements).toHaveLength(1);
  return result.statements[0] as ParsedStatement;
};

const amounts = (statement: ParsedStatement): number[] =>
  statement.entries.map((e) => e.amountMinor);

/**
 * A credit-card export as such portals write it: German header, amounts and balances with a
 * decimal point and a currency suffix, thousands separated by commas in some rows only, and
 * the card settled to `-0 EUR` before the period.
 */
const CREDIT_CARD = crlf([
  '"Kreditkarte:";"4930 **** **** 1234 Visa Business"',
  '"Zeitraum:";"01.10.2026 - 31.10.2026"',
  '"Saldo alt:";"-0 EUR"',
  '"Saldo neu:";"1105.43 EUR"',
  '"Datum:";"31.10.2026"',
  '',
  '"Belegdatum";"Buchungsdatum";"Beschreibung";"Betrag";"Ursprünglicher Betrag"',
  '"01.10.2026";"02.10.2026";"AMAZON EU S.A R.L., LUXEMBURG";"-12.34 EUR";""',
  '"05.10.2026";"06.10.2026";"LUFTHANSA 2201234567890";"-1,234.56 EUR";""',
  '"10.10.2026";"10.10.2026";"AUSGLEICH KREDITKARTE";"2,500.00 EUR";""',
  '"14.10.2026";"15.10.2026";"HOTEL AM MEER, LONDON";"-53.10 EUR";"-46.20 GBP"',
  '"20.10.2026";"21.10.2026";"ARAL TANKSTELLE";"-94.57 EUR";""',
]);

describe('CSV number formats: per column, from the values themselves', () => {
  it('reads a credit-card export with dot decimals, currency suffixes and a -0 EUR balance', () => {
    const result = parseGermanCsv(Buffer.from(CREDIT_CARD, 'utf8'));
    expect(result.errors).toEqual([]);
    const [statement] = result.statements as [ParsedStatement];
    expect(amounts(statement)).toEqual([-1234, -123456, 250000, -5310, -9457]);
    expect(statement.entries.map((e) => e.currency)).toEqual(['EUR', 'EUR', 'EUR', 'EUR', 'EUR']);
    expect(Object.is(statement.openingBalanceMinor, 0)).toBe(true);
    expect(statement.closingBalanceMinor).toBe(110543);
    expect(amounts(statement).reduce((a, b) => a + b, 0)).toBe(110543);
  });

  it('reads a balance written 1234.56 EUR beside amounts written -12,34 at its own scale', () => {
    const statement = onlyStatement(
      crlf([
        '"Kreditkarte:";"4748 **** **** 5678 Kreditkarte"',
        '"Saldo:";"1234.56 EUR"',
        '"Datum:";"31.10.2026"',
        '',
        '"Umsatz abgerechnet";"Wertstellung";"Belegdatum";"Beschreibung";"Betrag (EUR)"',
        '"Ja";"02.10.2026";"01.10.2026";"AMAZON";"-12,34"',
        '"Ja";"06.10.2026";"05.10.2026";"LUFTHANSA";"-1.234,56"',
      ]),
    );
    expect(amounts(statement)).toEqual([-1234, -123456]);
    expect(statement.closingBalanceMinor).toBe(123456);
  });

  it('reads a running balance column in another format than the amounts', () => {
    const statement = onlyStatement(
      crlf([
        'Buchungsdatum;Beschreibung;Betrag;Saldo',
        '01.10.2026;A;-12,34;1234.56 EUR',
        '02.10.2026;B;-1.000,00;234.56 EUR',
      ]),
    );
    expect(amounts(statement)).toEqual([-1234, -100000]);
    expect(statement).toMatchObject({ openingBalanceMinor: 124690, closingBalanceMinor: 23456 });
  });

  it('still reads German 1.234,56 files, balances included', () => {
    const statement = onlyStatement(
      crlf([
        '"Kontostand vom 01.10.2026:";"1.000,00 €"',
        '"Kontostand vom 31.10.2026:";"-234,56 €"',
        '',
        '"Buchungstag";"Verwendungszweck";"Betrag"',
        '"02.10.2026";"Miete";"-1.234,56"',
        '"03.10.2026";"Zinsen";"0,00"',
      ]),
    );
    expect(amounts(statement)).toEqual([-123456, 0]);
    expect(statement).toMatchObject({ closingBalanceMinor: -23456 });
  });

  it('refuses a column whose values read either way, naming it, and keeps the other rows', () => {
    const result = parseGermanCsv(
      Buffer.from(
        crlf([
          'Buchungstag;Verwendungszweck;Betrag',
          '01.02.2024;A;1.234',
          '02.02.2024;B;2.500',
          '03.02.2024;C;-12',
        ]),
      ),
    );
    expect(amounts(result.statements[0] as ParsedStatement)).toEqual([-1200]);
    expect(result.errors).toEqual([
      {
        line: 2,
        message:
          'amount "1.234" not read: the decimal separator of column "Betrag" is ambiguous (1.234, 2.500 read with a decimal point as well as with a decimal comma)',
      },
      {
        line: 3,
        message:
          'amount "2.500" not read: the decimal separator of column "Betrag" is ambiguous (1.234, 2.500 read with a decimal point as well as with a decimal comma)',
      },
    ]);
  });

  it('refuses a file whose only amount column is ambiguous with 422 naming the column', () => {
    let error: unknown;
    try {
      parseGermanCsv(Buffer.from('Buchungstag;Verwendungszweck;Betrag\n01.02.2024;A;1.234\n'));
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('file_unprocessable');
    expect((error as AppError).message).toContain('column "Betrag" is ambiguous');
  });

  it('leaves an ambiguous balance out as a problem instead of guessing its scale', () => {
    const result = parseGermanCsv(
      Buffer.from(
        crlf([
          '"Saldo:";"1.234 EUR"',
          '',
          'Buchungstag;Verwendungszweck;Betrag;Saldo',
          '01.02.2024;A;-1,00;1.000',
          '02.02.2024;B;-2,00;2.000',
        ]),
      ),
    );
    const [statement] = result.statements as [ParsedStatement];
    expect(amounts(statement)).toEqual([-100, -200]);
    expect(statement).toMatchObject({ openingBalanceMinor: null, closingBalanceMinor: null });
    expect(result.errors.map((e) => e.message)).toEqual([
      'balance "Saldo" "1.234 EUR" not read: its decimal separator is ambiguous (1.234 EUR read with a decimal point as well as with a decimal comma)',
      'running balances not read: the decimal separator of column "Saldo" is ambiguous (1.000, 2.000 read with a decimal point as well as with a decimal comma)',
    ]);
  });

  it('turns a value that contradicts its column into a problem, not a misread amount', () => {
    const result = parseGermanCsv(
      Buffer.from(
        crlf([
          'Buchungstag;Verwendungszweck;Betrag',
          '01.02.2024;A;-9,99',
          '02.02.2024;B;10,00',
          '03.02.2024;C;1234.5',
        ]),
      ),
    );
    expect(amounts(result.statements[0] as ParsedStatement)).toEqual([-999, 1000]);
    expect(result.errors).toEqual([
      {
        line: 4,
        message: 'amount "1234.5" is not readable (column "Betrag" uses the decimal comma)',
      },
    ]);
  });

  it('decides one column from its own values', () => {
    expect(decideColumnSeparator(['1.234,56', '-5,00'])).toEqual({ separator: ',' });
    expect(decideColumnSeparator(['1,234.56', '-5.00', '2.500'])).toEqual({ separator: '.' });
    expect(decideColumnSeparator(['1.234.567', '12'])).toEqual({ separator: ',' });
    expect(decideColumnSeparator(['-12.34 EUR', '1234.56 EUR', '-0 EUR'])).toEqual({
      separator: '.',
    });
    // Without any separator every reading is the same.
    expect(decideColumnSeparator(['12', '-0 EUR', ''])).toEqual({ separator: ',' });
    expect(decideColumnSeparator(['1.234', '2.500'])).toMatchObject({ separator: null });
    expect(decideColumnSeparator(['2,500', '12'])).toMatchObject({ separator: null });
    expect(decideColumnSeparator(['-9,99', '1234.5'])).toMatchObject({ separator: null });
  });
});
