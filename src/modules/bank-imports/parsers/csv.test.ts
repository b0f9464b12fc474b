import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { assertSurvivesDamage } from './parsers.test-support.js';
import { parseGermanCsv } from './csv.js';
import { parseDate, readRecords } from './csv-values.js';
import type { ParsedStatement } from './types.js';

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
    parseGermanCsv(bytes);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected the file to be refused');
}

const only = (bytes: Buffer, term?: 'SOLL' | 'HABEN'): ParsedStatement => {
  const result = parseGermanCsv(bytes, term ? { incomingPaymentTerm: term } : {});
  expect(result.format).toBe('CSV');
  expect(result.statements).toHaveLength(1);
  return result.statements[0] as ParsedStatement;
};

const SPARKASSE = crlf([
  '"Auftragskonto";"Buchungstag";"Valutadatum";"Buchungstext";"Verwendungszweck";"Glaeubiger ID";"Mandatsreferenz";"Kundenreferenz (End-to-End)";"Sammlerreferenz";"Lastschrift Ursprungsbetrag";"Auslagenersatz Ruecklastschrift";"Beguenstigter/Zahlungspflichtiger";"Kontonummer/IBAN";"BIC (SWIFT-Code)";"Betrag";"Waehrung";"Info"',
  '"DE89370400440532013000";"02.01.24";"02.01.24";"FOLGELASTSCHRIFT";"EREF+INV-1 MREF+M-1 CRED+DE98ZZZ09999999999 SVWZ+Strom Januar";"DE98ZZZ09999999999";"";"";"";"";"";"Stadtwerke Süd";"DE02120300000000202051";"BYLADEMM";"-1.234,56";"EUR";"Umsatz gebucht"',
  '"DE89370400440532013000";"03.01.24";"03.01.24";"GUTSCHRIFT";"RE-2024-0042";"";"";"NOTPROVIDED";"";"";"";"Kunde AG";"DE12 7005 0000 0123 4567 89";"COBADEFFXXX";"500,00";"EUR";"Umsatz gebucht"',
  '"DE89370400440532013000";"04.01.24";"04.01.24";"KARTENZAHLUNG";"Tankstelle";"";"";"";"";"";"";"Aral";"";"";"-50,00";"EUR";"Umsatz vorgemerkt"',
  '',
]);

const VR_BANK = crlf([
  '"Volksbank Musterstadt eG"',
  '',
  '"Umsatzanzeige"',
  '',
  '"BLZ:";"10090000";;"Datum:";"05.01.2024"',
  '"Konto:";"12345678";;"Uhrzeit:";"10:38:03"',
  '"Abfrage von:";"Max Muster";;"Kontoinhaber:";"Max Muster"',
  '',
  '"Zeitraum:";;"von:";"02.01.2024";"bis:";',
  '"Sortiert nach:";"Buchungstag";"aufsteigend"',
  '',
  '"Buchungstag";"Valuta";"Auftraggeber/Zahlungsempfänger";"Empfänger/Zahlungspflichtiger";"Konto-Nr.";"IBAN";"BLZ";"BIC";"Vorgang/Verwendungszweck";"Kundenreferenz";"Währung";"Umsatz";" "',
  '"03.01.2024";"03.01.2024";"Max Muster";"Bäckerei Korn";;"DE02120300000000202051";;"BYLADEMM";"Basislastschrift',
  'Brötchen Abo Januar',
  'EREF: ABO-1 MREF: M-77";;"EUR";"1.234,56";"S"',
  '"04.01.2024";"04.01.2024";"Max Muster";"Kunde AG";;"DE12700500000123456789";;"COBADEFFXXX";"GUTSCHRIFT',
  'RE-2024-0042";;"EUR";"2.000,00";"H"',
  '',
  '"02.01.2024";;;;;;;;;"Anfangssaldo";"EUR";"100,00";"H"',
  '"05.01.2024";;;;;;;;;"Endsaldo";"EUR";"865,44";"H"',
]);

const COMMERZBANK = crlf([
  'Buchungstag;Wertstellung;Umsatzart;Buchungstext;Betrag;Währung;IBAN Auftraggeberkonto',
  '02.01.2024;02.01.2024;Lastschrift;"Stadtwerke End-to-End-Referenz: E2E 1 Mandatsreferenz: M-9 ID des Auftraggebers: DE98ZZZ09999999999 Folgelastschrift";-17,22;EUR;DE89370400440532013000',
  '03.01.2024;03.01.2024;Gutschrift;"Kunde AG RE-2024-0042";1.500,00;EUR;DE89370400440532013000',
  '04.01.2024;04.01.2024;Lastschrift;"Gebühr";12,50-;EUR;DE89370400440532013000',
]);

describe('parseGermanCsv: dialects', () => {
  it('reads a Sparkasse export (ISO-8859-1) with SEPA keys and leaves pending entries out', () => {
    const result = parseGermanCsv(Buffer.from(SPARKASSE, 'latin1'));
    expect(result.errors).toEqual([
      { line: 4, message: 'pending entry (not booked yet) left out' },
    ]);
    const [statement] = result.statements as [ParsedStatement];
    expect(statement).toMatchObject({
      format: 'CSV',
      statementId: null,
      account: 'DE89370400440532013000',
      currency: 'EUR',
      openingBalanceMinor: null,
      closingBalanceMinor: null,
    });
    expect(statement.entries).toEqual([
      {
        bookingDate: '2024-01-02',
        valueDate: '2024-01-02',
        amountMinor: -123456,
        currency: 'EUR',
        counterpartyName: 'Stadtwerke Süd',
        counterpartyIban: 'DE02120300000000202051',
        counterpartyBic: 'BYLADEMM',
        purpose: 'Strom Januar',
        endToEndId: 'INV-1',
        mandateReference: 'M-1',
        bankReference: null,
        bookingText: 'FOLGELASTSCHRIFT',
        reversal: false,
      },
      {
        bookingDate: '2024-01-03',
        valueDate: '2024-01-03',
        amountMinor: 50000,
        currency: 'EUR',
        counterpartyName: 'Kunde AG',
        counterpartyIban: 'DE12700500000123456789',
        counterpartyBic: 'COBADEFFXXX',
        purpose: 'RE-2024-0042',
        endToEndId: null,
        mandateReference: null,
        bankReference: null,
        bookingText: 'GUTSCHRIFT',
        reversal: false,
      },
    ]);
  });

  it('reads a VR-Bank export: preamble, S/H column, multi-line purpose, balances', () => {
    for (const term of ['HABEN', 'SOLL'] as const) {
      const statement = only(cp1252(VR_BANK), term);
      expect(statement).toMatchObject({
        account: '10090000/12345678',
        openingBalanceMinor: 10000,
        openingDate: '2024-01-02',
        closingBalanceMinor: 86544,
        closingDate: '2024-01-05',
      });
      expect(statement.entries.map((e) => e.amountMinor)).toEqual([-123456, 200000]);
      expect(statement.entries[0]).toMatchObject({
        counterpartyName: 'Bäckerei Korn',
        counterpartyIban: 'DE02120300000000202051',
        bookingText: 'Basislastschrift',
        purpose: 'Brötchen Abo Januar',
        endToEndId: 'ABO-1',
        mandateReference: 'M-77',
      });
      expect(statement.entries[1]).toMatchObject({
        counterpartyName: 'Kunde AG',
        bookingText: 'GUTSCHRIFT',
        purpose: 'RE-2024-0042',
      });
      expect(balanceHolds(statement)).toBe(true);
    }
  });

  it('reads one signed amount column per incomingPaymentTerm (HABEN default, SOLL)', () => {
    const bytes = Buffer.from(COMMERZBANK, 'utf8');
    const haben = only(bytes);
    expect(haben.entries.map((e) => e.amountMinor)).toEqual([-1722, 150000, -1250]);
    expect(only(bytes, 'HABEN').entries.map((e) => e.amountMinor)).toEqual([-1722, 150000, -1250]);
    expect(only(bytes, 'SOLL').entries.map((e) => e.amountMinor)).toEqual([1722, -150000, 1250]);
    expect(haben.account).toBe('DE89370400440532013000');
    // Commerzbank: no purpose column, `Buchungstext` is the purpose, `Umsatzart` the kind.
    expect(haben.entries[0]).toMatchObject({
      bookingText: 'Lastschrift',
      purpose: 'Stadtwerke Folgelastschrift',
      endToEndId: 'E2E 1',
      mandateReference: 'M-9',
    });
  });

  it('reads an N26 export: comma-delimited, dot decimals, ISO dates', () => {
    const statement = only(
      Buffer.from(
        [
          '"Datum","Empfänger","Kontonummer","Transaktionstyp","Verwendungszweck","Kategorie","Betrag (EUR)","Betrag (Fremdwährung)","Fremdwährung","Wechselkurs"',
          '"2024-01-05","Spotify AB","","MasterCard Zahlung","","Medien","-9.99","","",""',
          '"2024-01-06","Kunde AG","DE12700500000123456789","Gutschrift","RE-7","Einnahmen","1234.56","","",""',
        ].join('\n'),
      ),
    );
    expect(
      statement.entries.map((e) => [e.bookingDate, e.amountMinor, e.counterpartyName]),
    ).toEqual([
      ['2024-01-05', -999, 'Spotify AB'],
      ['2024-01-06', 123456, 'Kunde AG'],
    ]);
    expect(statement.entries[1]).toMatchObject({
      counterpartyIban: 'DE12700500000123456789',
      purpose: 'RE-7',
      bookingText: 'Gutschrift',
      currency: 'EUR',
    });
  });

  it('reads a DKB export: UTF-8 BOM, preamble with account and balance, payer/payee columns', () => {
    const text = [
      '"Girokonto";"DE07120300001234567890"',
      '""',
      '"Kontostand vom 31.01.2024:";"2.500,00 €"',
      '""',
      '"Buchungsdatum";"Wertstellung";"Status";"Zahlungspflichtige*r";"Zahlungsempfänger*in";"Verwendungszweck";"Umsatztyp";"IBAN";"Betrag (€)";"Gläubiger-ID";"Mandatsreferenz";"Kundenreferenz"',
      '"30.01.24";"30.01.24";"Gebucht";"Max Muster";"Netflix";"Abo";"Ausgang";"DE02120300000000202051";"-12,99";"";"MR-5";""',
      '"31.01.24";"31.01.24";"Gebucht";"Kunde AG";"Max Muster";"RE-1";"Eingang";"DE12700500000123456789";"1.000,00";"";"";""',
      '"31.01.24";"31.01.24";"Vorgemerkt";"X";"Y";"Z";"Ausgang";"";"-1,00";"";"";""',
    ].join('\n');
    const result = parseGermanCsv(Buffer.from(`\uFEFF${text}`, 'utf8'));
    const [statement] = result.statements as [ParsedStatement];
    expect(statement).toMatchObject({
      account: 'DE07120300001234567890',
      openingBalanceMinor: null,
      closingBalanceMinor: 250000,
      closingDate: '2024-01-31',
    });
    expect(
      statement.entries.map((e) => [e.amountMinor, e.counterpartyName, e.mandateReference]),
    ).toEqual([
      [-1299, 'Netflix', 'MR-5'],
      [100000, 'Kunde AG', null],
    ]);
    expect(result.errors).toEqual([
      { line: 8, message: 'pending entry (not booked yet) left out' },
    ]);
  });

  it('reads an ING export: running balance column, two currency columns', () => {
    const statement = only(
      cp1252(
        crlf([
          'Umsatzanzeige;Datei erstellt am: 25.01.2024 10:00',
          ';Letztes Update: aktuell',
          '',
          'IBAN;DE12 5001 0517 1234 5678 90',
          'Kontoname;Girokonto',
          'Zeitraum;01.01.2024 - 25.01.2024',
          'Saldo;1.000,00;EUR',
          '',
          'Buchung;Valuta;Auftraggeber/Empfänger;Buchungstext;Verwendungszweck;Saldo;Währung;Betrag;Währung',
          '24.01.2024;24.01.2024;REWE;Lastschrift;Einkauf;1.000,00;EUR;-50,00;EUR',
          '20.01.2024;20.01.2024;Arbeitgeber GmbH;Gehalt/Rente;Gehalt Januar;1.050,00;EUR;1.000,00;EUR',
        ]),
      ),
    );
    expect(statement).toMatchObject({
      account: 'DE12500105171234567890',
      openingBalanceMinor: 5000,
      openingDate: '2024-01-20',
      closingBalanceMinor: 100000,
    });
    expect(statement.entries.map((e) => e.amountMinor)).toEqual([-5000, 100000]);
    expect(balanceHolds(statement)).toBe(true);
  });

  it('reads separate Soll and Haben amount columns (tab-delimited) and a Kontostand trailer', () => {
    const statement = only(
      Buffer.from(
        [
          'Buchungstag\tWert\tUmsatzart\tBegünstigter / Auftraggeber\tVerwendungszweck\tIBAN\tBIC\tKundenreferenz\tMandatsreferenz \tGläubiger ID\tSoll\tHaben\tWährung',
          '02.01.2024\t02.01.2024\tSEPA-Lastschrift\tVersicherung AG\tBeitrag\tDE02120300000000202051\tBYLADEMM\t\tMR-1\t\t-45,00\t\tEUR',
          '03.01.2024\t03.01.2024\tSEPA-Überweisung\tKunde AG\tRE-9\tDE12700500000123456789\tCOBADEFFXXX\t\t\t\t\t300,00\tEUR',
          'Kontostand\t03.01.2024\t\t\t1.255,00\tEUR',
        ].join('\n'),
        'utf8',
      ),
      'SOLL',
    );
    expect(
      statement.entries.map((e) => [e.amountMinor, e.counterpartyName, e.mandateReference]),
    ).toEqual([
      [-4500, 'Versicherung AG', 'MR-1'],
      [30000, 'Kunde AG', null],
    ]);
    expect(statement).toMatchObject({ closingBalanceMinor: 125500, closingDate: '2024-01-03' });
  });
});

describe('parseGermanCsv: encodings and formats', () => {
  const tiny = (purpose: string) =>
    crlf(['Buchungstag;Betrag;Verwendungszweck;Empfänger', `01.02.2024;-5,00;${purpose};Bäcker`]);

  it('reads Windows-1252 (euro sign), ISO-8859-1 and UTF-8 with BOM alike', () => {
    for (const bytes of [
      cp1252(tiny('Gebühr 5€')),
      Buffer.from(`\uFEFF${tiny('Gebühr 5€')}`, 'utf8'),
      Buffer.from(tiny('Gebühr 5€'), 'utf8'),
    ]) {
      expect(only(bytes).entries[0]).toMatchObject({
        purpose: 'Gebühr 5€',
        counterpartyName: 'Bäcker',
        amountMinor: -500,
      });
    }
    expect(only(Buffer.from(tiny('Größe'), 'latin1')).entries[0]?.purpose).toBe('Größe');
  });

  it('reads the amount and date notations banks use', () => {
    const statement = only(
      Buffer.from(
        crlf([
          'Buchungstag;Valuta;Betrag',
          '01.02.2024;01.02.2024;1.234,56',
          '2.2.24;30.02.2024;-1.234,56',
          '2024-02-03;;1.234,56-',
          '04.02.2024 13:45;;+0,07',
          '05.02.2024;;12',
          '06.02.2024;;1.000.000,00',
        ]),
      ),
    );
    expect(statement.entries.map((e) => [e.bookingDate, e.valueDate, e.amountMinor])).toEqual([
      ['2024-02-01', '2024-02-01', 123456],
      ['2024-02-02', '2024-02-29', -123456],
      ['2024-02-03', null, -123456],
      ['2024-02-04', null, 7],
      ['2024-02-05', null, 1200],
      ['2024-02-06', null, 100000000],
    ]);
  });

  it('parses dates strictly for bookings and 30/360 for value dates', () => {
    expect(parseDate('29.02.2024')).toBe('2024-02-29');
    expect(parseDate('30.02.2024')).toBeNull();
    expect(parseDate('30.02.2023', true)).toBe('2023-02-28');
    expect(parseDate('31.12.99')).toBe('1999-12-31');
    expect(parseDate('2024.12.04')).toBe('2024-12-04');
    expect(parseDate('13.13.2024', true)).toBeNull();
    expect(parseDate('Umsatz')).toBeNull();
  });

  it('splits quoted records with line breaks and doubled quotes, counting lines', () => {
    const records = readRecords('a;"b ""x""\nc";d\r\ne;f\n\n"g"', ';');
    expect(records).toEqual([
      { cells: ['a', 'b "x"\nc', 'd'], line: 1 },
      { cells: ['e', 'f'], line: 3 },
      { cells: [''], line: 4 },
      { cells: ['g'], line: 5 },
    ]);
  });
});

describe('parseGermanCsv: broken rows and refusals', () => {
  it('keeps broken rows as errors with their line and parses the rest', () => {
    const result = parseGermanCsv(
      Buffer.from(
        crlf([
          'Kontoauszug Girokonto',
          'Buchungstag;Wertstellung;Verwendungszweck;Betrag;Soll/Haben',
          '01.02.2024;01.02.2024;"erste',
          'Zeile";10,00;H',
          '32.13.2024;01.02.2024;kaputtes Datum;1,00;S',
          '02.02.2024;02.02.2024;kaputter Betrag;zehn;S',
          '03.02.2024;02.02.2024;ohne Kennzeichen;1,00;',
          ';;Zwischensumme;;',
          '04.02.2024;04.02.2024;letzte;2,50;S',
          '05.02.2024;05.02.2024;Saldo;3,00;H',
        ]),
      ),
    );
    expect(result.statements[0]?.entries.map((e) => [e.purpose, e.amountMinor])).toEqual([
      ['erste Zeile', 1000],
      ['letzte', -250],
      ['Saldo', 300],
    ]);
    expect(result.errors).toEqual([
      { line: 5, message: 'booking date "32.13.2024" is not a date' },
      { line: 6, message: 'amount "zehn" is not readable' },
      { line: 7, message: 'Soll/Haben mark (S/H) missing' },
      { line: 8, message: 'booking date missing' },
    ]);
  });

  it('groups several accounts of one export into one statement each', () => {
    const result = parseGermanCsv(
      Buffer.from(
        crlf([
          'Auftragskonto;Buchungstag;Betrag;Verwendungszweck',
          'DE89370400440532013000;01.02.2024;1,00;a',
          'DE02120300000000202051;01.02.2024;2,00;b',
          'DE89370400440532013000;02.02.2024;3,00;c',
        ]),
      ),
    );
    expect(result.statements.map((s) => [s.account, s.entries.length])).toEqual([
      ['DE89370400440532013000', 2],
      ['DE02120300000000202051', 1],
    ]);
  });

  it('refuses a file without a recognisable header', () => {
    const error = refusal(Buffer.from('foo;bar\n1;2\n'));
    expect(error.code).toBe('file_unprocessable');
    expect(error.status).toBe(422);
    expect(error.message).toContain('header row');
    expect(refusal(Buffer.alloc(0)).code).toBe('file_unprocessable');
  });

  it('refuses a file where no row can be read', () => {
    const error = refusal(Buffer.from('Datum;Betrag;Name\nmorgen;viel;A\ngestern;wenig;B\n'));
    expect(error.message).toContain('None of the 2 CSV rows');
  });

  it('answers a header without rows as an empty statement', () => {
    const statement = only(Buffer.from('Buchungstag;Betrag;Verwendungszweck\n'));
    expect(statement.entries).toEqual([]);
  });
});

describe('parseGermanCsv: robustness', () => {
  it('answers arbitrary bytes and damaged statements without crashing', () => {
    assertSurvivesDamage(parseGermanCsv, VR_BANK);
  });
});
