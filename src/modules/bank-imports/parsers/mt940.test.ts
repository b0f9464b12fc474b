import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { assertSurvivesDamage } from './parsers.test-support.js';
import { parseMt940 } from './mt940.js';
import type { ParseResult, ParsedStatement } from './types.js';
import { report } from '../../../../test/report.js';

/** Windows-1252 bytes of a text (`€` is 0x80, Latin-1 letters as themselves). */
function cp1252(text: string): Buffer {
  return Buffer.from([...text].map((ch) => (ch === '€' ? 0x80 : ch.charCodeAt(0))));
}

const crlf = (lines: string[]): string => lines.join('\r\n');

function balanceHolds(s: ParsedStatement): boolean {
  const sum = s.entries.reduce((total, e) => total + e.amountMinor, 0);
  return s.openingBalanceMinor !== null && s.openingBalanceMinor + sum === s.closingBalanceMinor;
}

function refusal(bytes: Buffer): AppError {
  try {
    parseMt940(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the file to be refused');
}

const SPARKASSE = crlf([
  'Sparkasse Musterstadt - Export vom 03.01.2024',
  '{1:F01SPKADE2AXXX0000000000}{2:I940SPKADE2AXXXXN}{4:',
  ':20:STARTUMSE',
  ':25:10050000/0123456789',
  ':28C:00001/001',
  ':60F:C240102EUR1234,56',
  ':61:2401020102DR99,90N005NONREF',
  ':86:105?00FOLGELASTSCHRIFT?109248?20EREF+INV-2024-0001?21MREF+M-778899?22CRED+DE98Z',
  'ZZ09999999999?23SVWZ+Rechnung RE-2024-0001',
  '?24 Kundennummer 4711?30COBADEFFXXX?31DE02120300000000202051?32Stadtwerke Musterstadt GmbH?33 Abt. Kasse',
  ':61:2401030103CR1500,00N051NONREF//BANKREF-0002',
  ':86:166?00GUTSCHRIFT?109310?20EREF+NOTPROVIDED?21SVWZ+RE-2024-0042 Danke',
  '?30BYLADEMM?31DE12 7005 0000 0123 4567 89?32Müller & Söhne KG',
  ':62F:C240103EUR2634,66',
  '-}{5:{CHK:123456789ABC}}',
  '{1:F01SPKADE2AXXX0000000000}{2:I940SPKADE2AXXXXN}{4:',
  ':20:STARTUMSE',
  ':25:DE89370400440532013000',
  ':28C:00002/001',
  ':60F:C240103EUR2634,66',
  ':61:240104D0,07NMSCNONREF',
  ':86:Kontofuehrung Januar',
  'und Porto',
  ':62F:C240104EUR2634,59',
  '-}',
]);

describe('parseMt940: German statements', () => {
  it('reads a multi-statement file with SWIFT envelopes, a preamble, subfields and SEPA keys', () => {
    const result = parseMt940(Buffer.from(SPARKASSE, 'utf8'));
    expect(result.format).toBe('MT940');
    expect(result.errors).toEqual([]);
    expect(result.statements).toHaveLength(2);
    const [first, second] = result.statements as [ParsedStatement, ParsedStatement];
    expect(first).toMatchObject({
      format: 'MT940',
      statementId: '00001/001',
      account: '10050000/0123456789',
      currency: 'EUR',
      openingBalanceMinor: 123456,
      openingDate: '2024-01-02',
      closingBalanceMinor: 263466,
      closingDate: '2024-01-03',
    });
    expect(first.entries).toEqual([
      {
        bookingDate: '2024-01-02',
        valueDate: '2024-01-02',
        amountMinor: -9990,
        currency: 'EUR',
        counterpartyName: 'Stadtwerke Musterstadt GmbH Abt. Kasse',
        counterpartyIban: 'DE02120300000000202051',
        counterpartyBic: 'COBADEFFXXX',
        purpose: 'Rechnung RE-2024-0001 Kundennummer 4711',
        endToEndId: 'INV-2024-0001',
        mandateReference: 'M-778899',
        bankReference: null,
        bookingText: 'FOLGELASTSCHRIFT',
        reversal: false,
      },
      {
        bookingDate: '2024-01-03',
        valueDate: '2024-01-03',
        amountMinor: 150000,
        currency: 'EUR',
        counterpartyName: 'Müller & Söhne KG',
        counterpartyIban: 'DE12700500000123456789',
        counterpartyBic: 'BYLADEMM',
        purpose: 'RE-2024-0042 Danke',
        endToEndId: null,
        mandateReference: null,
        bankReference: 'BANKREF-0002',
        bookingText: 'GUTSCHRIFT',
        reversal: false,
      },
    ]);
    expect(second.account).toBe('DE89370400440532013000');
    expect(second.entries[0]).toMatchObject({
      amountMinor: -7,
      bookingDate: '2024-01-04',
      purpose: 'Kontofuehrung Januar und Porto',
      bookingText: null,
      counterpartyName: null,
    });
    expect(result.statements.every(balanceHolds)).toBe(true);
  });

  it('reads statements separated by "-" lines, without SWIFT envelopes', () => {
    const text = SPARKASSE.replace(/\{[^\r\n]*\{4:\r\n/g, '').replace(/-\}[^\r\n]*/g, '-');
    const result = parseMt940(Buffer.from(text));
    expect(result.statements.map((s) => s.entries.length)).toEqual([2, 1]);
  });

  it('turns RC/RD reversals around and ignores the third currency letter', () => {
    const result = parseMt940(
      Buffer.from(
        crlf([
          ':20:STARTUMSE',
          ':25:DE89370400440532013000',
          ':28C:5/1',
          ':60F:C240301EUR100,00',
          ':61:2403010301RCR10,00NMSCNONREF',
          ':86:899?00STORNO GUTSCHRIFT?20Rueckbuchung',
          ':61:2403010301RDR25,00NMSCNONREF',
          ':86:899?00STORNO LASTSCHRIFT',
          ':61:2403010301RD5,00NMSCNONREF',
          ':61:2403010301CR1,00NMSCNONREF',
          ':61:2403010301D2,00NMSCNONREF',
          ':62F:C240301EUR119,00',
          '-',
        ]),
      ),
    );
    const [statement] = result.statements as [ParsedStatement];
    expect(statement.entries.map((e) => [e.amountMinor, e.reversal])).toEqual([
      [-1000, true],
      [2500, true],
      [500, true],
      [100, false],
      [-200, false],
    ]);
    expect(statement.entries[0]).toMatchObject({
      bookingText: 'STORNO GUTSCHRIFT',
      purpose: 'Rueckbuchung',
    });
    expect(balanceHolds(statement)).toBe(true);
  });

  it('gives the entry date the right year across the new year and clamps 30/360 dates', () => {
    const result = parseMt940(
      Buffer.from(
        crlf([
          ':20:X',
          ':25:DE89370400440532013000',
          ':28C:1',
          ':60F:C231229EUR0,00',
          ':61:2312310102C10,00NTRFNONREF',
          ':61:2401021229D5,00NTRFNONREF',
          ':61:240103C1,00NTRFNONREF',
          ':61:2402300301D1,00N024NONREF',
          ':62F:C240301EUR5,00',
        ]),
      ),
    );
    const entries = result.statements[0]?.entries ?? [];
    expect(entries.map((e) => [e.valueDate, e.bookingDate])).toEqual([
      ['2023-12-31', '2024-01-02'],
      ['2024-01-02', '2023-12-29'],
      ['2024-01-03', '2024-01-03'],
      ['2024-02-29', '2024-03-01'],
    ]);
  });

  it('reads amounts exactly into minor units', () => {
    const amounts = ['0,07', '1234567,89', '12,5', '12,', '0000000001,62', '5', '3.45'];
    const text = crlf([
      ':20:X',
      ':25:1',
      ':60F:C240101EUR0,',
      ...amounts.map((a) => `:61:240101C${a}NTRFNONREF`),
      ':62F:C240101EUR1234602,53',
    ]);
    const [statement] = parseMt940(Buffer.from(text)).statements as [ParsedStatement];
    expect(statement.entries.map((e) => e.amountMinor)).toEqual([
      7, 123456789, 1250, 1200, 162, 500, 345,
    ]);
    expect(balanceHolds(statement)).toBe(true);
    const yen = parseMt940(Buffer.from(':20:X\n:25:1\n:60F:C240101JPY100,\n:62F:C240101JPY100,\n'));
    expect(yen.statements[0]).toMatchObject({ currency: 'JPY', openingBalanceMinor: 100 });
  });

  it('keeps the rest when one entry is broken, and reports it with its line', () => {
    const result = parseMt940(
      Buffer.from(
        crlf([
          ':20:X',
          ':25:DE89370400440532013000',
          ':28C:1',
          ':60F:C240101EUR10,00',
          ':61:2401010101C5,00NTRFNONREF',
          ':61:24XX0101C1,00NTRF',
          ':86:?20belongs to the broken entry',
          ':61:2401010101D2,00NTRFNONREF',
          ':86:?20Gebuehr',
          ':61:2401010101C1,234NTRFNONREF',
          ':62F:C240101EUR13,00',
        ]),
      ),
    );
    const [statement] = result.statements as [ParsedStatement];
    expect(statement.entries.map((e) => [e.amountMinor, e.purpose])).toEqual([
      [500, ''],
      [-200, 'Gebuehr'],
    ]);
    expect(result.errors).toEqual([
      { statement: 0, line: 6, message: expect.stringContaining('24XX0101C1,00NTRF') as string },
      { statement: 0, line: 10, message: expect.stringContaining('more decimals') as string },
    ]);
    expect(balanceHolds(statement)).toBe(true);
  });

  it('leaves out a statement with tags out of order and keeps the good one', () => {
    const result = parseMt940(
      Buffer.from(
        crlf([
          ':20:BROKEN',
          ':25:1',
          ':60F:C240101EUR10,00',
          ':61:2401010101C5,00NTRFNONREF',
          ':25:166?00GUTSCHRIFT',
          ':62F:C240101EUR15,00',
          '-',
          ':20:GOOD',
          ':25:2',
          ':60F:C240101EUR1,00',
          ':62F:C240101EUR1,00',
          '-',
        ]),
      ),
    );
    expect(result.statements.map((s) => s.statementId)).toEqual(['GOOD']);
    expect(result.errors).toEqual([
      { line: 5, message: expect.stringContaining(':25: after the opening balance') as string },
    ]);
  });

  it('notes a statement without closing balance and keeps its entries', () => {
    const result = parseMt940(
      Buffer.from(':20:X\n:25:1\n:60F:C240101EUR10,00\n:61:2401010101C5,00NTRFNONREF\n'),
    );
    expect(result.statements[0]).toMatchObject({ closingBalanceMinor: null, closingDate: null });
    expect(result.statements[0]?.entries).toHaveLength(1);
    expect(result.errors[0]?.message).toContain('no closing balance');
  });

  it('keeps an unstructured :86: as purpose and reads the /KEY/ form', () => {
    const result = parseMt940(
      Buffer.from(
        crlf([
          ':20:X',
          ':25:NL18KNAB0200000000',
          ':60F:C240101EUR0,00',
          ':61:2401010101D1,00NTRFNONREF//B1',
          ':86:/TRTP/SEPA OVERBOEKING/IBAN/NL91ABNA0417164300/BIC/ABNANL2A/NAME/Jan',
          ' de Vries/REMI/USTD//Factuur 2024-7/EREF/E-1/',
          ':61:2401010101C2,00NTRFNONREF//B2',
          ':86:EINZAHLUNG AUTOMAT FILIALE 12',
          ':62F:C240101EUR1,00',
        ]),
      ),
    );
    expect(result.statements[0]?.entries).toMatchObject([
      {
        bookingText: 'SEPA OVERBOEKING',
        counterpartyIban: 'NL91ABNA0417164300',
        counterpartyBic: 'ABNANL2A',
        counterpartyName: 'Jan de Vries',
        purpose: 'Factuur 2024-7',
        endToEndId: 'E-1',
        bankReference: 'B1',
      },
      { purpose: 'EINZAHLUNG AUTOMAT FILIALE 12', bookingText: null, bankReference: 'B2' },
    ]);
  });
});

describe('parseMt940: encodings', () => {
  const statement = (name: string, purpose: string): string =>
    crlf([
      ':20:X',
      ':25:DE89370400440532013000',
      ':28C:1',
      ':60F:C240101EUR10,00',
      ':61:2401010101D5,00NTRFNONREF',
      `:86:177?00ÜBERWEISUNG?20${purpose}?32${name}`,
      ':62F:C240101EUR5,00',
    ]);
  const details = (result: ParseResult) => {
    const entry = result.statements[0]?.entries[0];
    return [entry?.counterpartyName, entry?.purpose, entry?.bookingText];
  };

  it('reads ISO-8859-1', () => {
    const bytes = Buffer.from(statement('Jürgen Groß', 'Miete Büro'), 'latin1');
    expect(details(parseMt940(bytes))).toEqual(['Jürgen Groß', 'Miete Büro', 'ÜBERWEISUNG']);
  });

  it('reads Windows-1252 with the euro sign', () => {
    const bytes = cp1252(statement('Bäckerei Öz', 'Gebühr 5€'));
    expect(details(parseMt940(bytes))).toEqual(['Bäckerei Öz', 'Gebühr 5€', 'ÜBERWEISUNG']);
  });

  it('reads UTF-8 with a byte order mark', () => {
    const bytes = Buffer.from(`\uFEFF${statement('Zoë Ärger', 'Gebühr 5€')}`, 'utf8');
    const result = parseMt940(bytes);
    expect(details(result)).toEqual(['Zoë Ärger', 'Gebühr 5€', 'ÜBERWEISUNG']);
    expect(result.statements[0]?.statementId).toBe('1');
  });
});

describe('parseMt940: refusals', () => {
  it('refuses an MT942 interim report', () => {
    const error = refusal(
      Buffer.from(
        crlf([
          ':20:X',
          ':25:DE89370400440532013000',
          ':28C:1',
          ':34F:EURD0,00',
          ':13D:2401011730+0100',
          ':61:2401010101D0,42NMSCNONREF',
          ':90D:1EUR0,42',
        ]),
      ),
    );
    expect(error.code).toBe('file_unprocessable');
    expect(error.status).toBe(422);
    expect(error.message).toContain('MT942');
  });

  it('refuses a file without MT940 fields', () => {
    expect(refusal(Buffer.from('hello\nworld\n')).message).toContain('no MT940 fields');
    expect(refusal(Buffer.alloc(0)).code).toBe('file_unprocessable');
    expect(refusal(Buffer.from([0xff, 0xfe, 0x00, 0x01])).code).toBe('file_unprocessable');
  });

  it('refuses a file whose only statement has no opening balance', () => {
    const error = refusal(Buffer.from(':20:X\n:61:2401010101C5,00NTRFNONREF\n:62F:C240101EUR5,\n'));
    expect(error.message).toContain('no opening balance');
  });
});

describe('parseMt940: speed', () => {
  it('parses a generated 50 000-entry statement (time printed, not asserted)', () => {
    const lines = [':20:STARTUMSE', ':25:DE89370400440532013000', ':28C:00001/001'];
    lines.push(':60F:C240101EUR1000,00');
    let total = 100_000;
    for (let i = 0; i < 50_000; i++) {
      const cents = 100 + (i % 5000);
      const credit = i % 3 === 0;
      total += credit ? cents : -cents;
      const amount = `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`;
      lines.push(`:61:2401020102${credit ? 'C' : 'D'}R${amount}NTRFNONREF//B${i}`);
      lines.push(
        `:86:166?00SEPA-UEBERWEISUNG?109310?20EREF+E2E-${i}?21SVWZ+RE-2024-${i}?22Kundennr 4711`,
      );
      lines.push(`?30COBADEFFXXX?31DE02120300000000202051?32Muster GmbH ${i}`);
    }
    const abs = Math.abs(total);
    const closing = `${Math.floor(abs / 100)},${String(abs % 100).padStart(2, '0')}`;
    lines.push(`:62F:${total < 0 ? 'D' : 'C'}240102EUR${closing}`, '-');
    const bytes = Buffer.from(crlf(lines), 'latin1');
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = parseMt940(bytes);
    const ms = performance.now() - started;
    const cpuMs = process.cpuUsage(cpu).user / 1000;
    report(
      `mt940 speed: 50000 entries (${(bytes.length / 1e6).toFixed(1)} MB) parsed in ${ms.toFixed(0)} ms (${cpuMs.toFixed(0)} ms CPU)\n`,
    );
    const [statement] = result.statements as [ParsedStatement];
    expect(statement.entries).toHaveLength(50_000);
    expect(statement.entries[49_999]).toMatchObject({
      endToEndId: 'E2E-49999',
      purpose: 'RE-2024-49999 Kundennr 4711',
      counterpartyName: 'Muster GmbH 49999',
      bankReference: 'B49999',
    });
    expect(balanceHolds(statement)).toBe(true);
  });
});

describe('parseMt940: robustness', () => {
  it('answers arbitrary bytes and damaged statements without crashing', () => {
    assertSurvivesDamage(parseMt940, SPARKASSE);
  });
});
