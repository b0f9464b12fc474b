import { describe, expect, it } from 'vitest';
import {
  defaultBankAccount,
  defaultDebtorAccount,
  defaultRevenueAccount,
  isDebtorAccount,
  isLedgerAccount,
} from './datev-accounts.js';
import { documentGuid, documentXml } from './datev-documents.js';
import {
  amount,
  bookingLine,
  COLUMNS,
  encode,
  headerLine,
  reference,
  text,
  type Booking,
} from './datev-extf.js';
import { fiscalYearOf } from './datev-export.service.js';
import { fields } from './datev.test-support.js';

/** The pure pieces of the DATEV format: header, columns, fields, accounts, index. */

const booking: Booking = {
  amountMinor: 1_234_567,
  side: 'S',
  currency: 'EUR',
  account: 10000,
  contraAccount: 8400,
  taxKey: '',
  date: '2026-03-05',
  reference: 'RE 2026/1',
  text: 'Kunde "Nord"',
  documentGuid: '0f8fad5b-d9cb-469f-a165-70867728950e',
  euVatId: null,
};

describe('EXTF header and columns', () => {
  it("reproduces the header line of DATEV's own sample file but for the label", () => {
    // DATEV's sample EXTF_Buchungsstapel.csv (format version 13) starts with:
    const sample =
      '"EXTF";700;21;"Buchungsstapel";13;20240130140440439;;"RE";"";"";29098;55003;20240101;4;20240101;20240831;"Buchungsstapel";"WD";1;0;0;"EUR";;"";;;"03";;;"";""';
    const ours = headerLine({
      createdAt: new Date(Date.UTC(2024, 0, 30, 14, 4, 40, 439)),
      consultantNumber: 29098,
      clientNumber: 55003,
      fiscalYearStart: '2024-01-01',
      accountLength: 4,
      from: '2024-01-01',
      to: '2024-08-31',
      chart: 'SKR03',
      currency: 'EUR',
    });
    const expected = sample.split(';');
    const got = ours.split(';');
    expect(got).toHaveLength(31);
    // Field 17 is our batch label, field 18 the (empty) initials; all else is DATEV's.
    expect(got[16]).toBe('"Kontor 20240101-20240831"');
    expect(got[17]).toBe('""');
    expect([...got.slice(0, 16), ...got.slice(18)]).toEqual([
      ...expected.slice(0, 16),
      ...expected.slice(18),
    ]);
  });

  it('has the 125 columns of format version 13, with DATEV’s spelling', () => {
    expect(COLUMNS).toHaveLength(125);
    expect(new Set(COLUMNS).size).toBe(125);
    expect(COLUMNS[0]).toBe('Umsatz (ohne Soll/Haben-Kz)');
    expect(COLUMNS[19]).toBe('Beleglink');
    expect(COLUMNS[48]).toBe('Zusatzinformation- Inhalt 1');
    expect(COLUMNS[124]).toBe('Abw. Skontokonto');
  });

  it('writes a booking as 125 fields, text quoted, amounts with a comma, dates as DDMM', () => {
    const line = bookingLine(booking);
    const f = fields(line);
    expect(f).toHaveLength(125);
    expect(f.slice(0, 14)).toEqual([
      '12345,67',
      '"S"',
      '"EUR"',
      '',
      '',
      '',
      '10000',
      '8400',
      '""',
      '0503',
      '"RE-2026/1"',
      '',
      '',
      '"Kunde ""Nord"""',
    ]);
    expect(f[19]).toBe('"BEDI ""0f8fad5b-d9cb-469f-a165-70867728950e"""');
    expect(line).not.toMatch(/[\r\n]/);
  });
});

describe('EXTF fields', () => {
  it('formats amounts without thousands separators', () => {
    expect(amount(0)).toBe('0,00');
    expect(amount(5)).toBe('0,05');
    expect(amount(100)).toBe('1,00');
    expect(amount(123_456_789_01)).toBe('123456789,01');
    expect(amount(-250)).toBe('2,50');
  });

  it('quotes text, doubles quotes, drops line breaks and cuts to the length', () => {
    expect(text('a"b', 10)).toBe('"a""b"');
    expect(text('Zeile 1\r\nZeile 2\tx', 60)).toBe('"Zeile 1 Zeile 2 x"');
    expect(text('x'.repeat(70), 60)).toBe(`"${'x'.repeat(60)}"`);
  });

  it('keeps Belegfeld 1 to the characters DATEV allows', () => {
    expect(reference('2026-0001')).toBe('2026-0001');
    expect(reference('GS-2026-0001')).toBe('GS-2026-0001');
    expect(reference('Rä 1.2;x')).toBe('R--1-2-x');
    expect(reference('x'.repeat(40))).toHaveLength(36);
  });

  it('encodes Windows-1252: umlauts, ß and € are one byte each', () => {
    expect([...encode('Müßig €')]).toEqual([0x4d, 0xfc, 0xdf, 0x69, 0x67, 0x20, 0x80]);
    expect(encode('Łódź').toString('latin1')).toBe('?\xf3d?');
  });
});

describe('fiscal years', () => {
  it('finds the fiscal year a date falls in', () => {
    expect(fiscalYearOf('2026-03-15', 1)).toEqual({ start: '2026-01-01', end: '2026-12-31' });
    expect(fiscalYearOf('2026-03-15', 7)).toEqual({ start: '2025-07-01', end: '2026-06-30' });
    expect(fiscalYearOf('2026-07-01', 7)).toEqual({ start: '2026-07-01', end: '2027-06-30' });
    expect(fiscalYearOf('2024-02-10', 3)).toEqual({ start: '2023-03-01', end: '2024-02-29' });
  });
});

describe('accounts', () => {
  it('answers the chart defaults, padded to the account length', () => {
    expect(defaultRevenueAccount('SKR03', 4, 'S', 1900)).toBe(8400);
    expect(defaultRevenueAccount('SKR03', 4, 'S', 700)).toBe(8300);
    expect(defaultRevenueAccount('SKR04', 4, 'S', 1900)).toBe(4400);
    expect(defaultRevenueAccount('SKR04', 6, 'S', 700)).toBe(430000);
    expect(defaultRevenueAccount('SKR03', 4, 'K', 0)).toBe(8125);
    expect(defaultRevenueAccount('SKR04', 4, 'AE', 0)).toBe(4337);
    expect(defaultRevenueAccount('SKR03', 4, 'G', 0)).toBe(8120);
    expect(defaultRevenueAccount('SKR03', 4, 'S', 1600)).toBeUndefined();
    expect(defaultRevenueAccount('SKR03', 4, 'Z', 0)).toBeUndefined();
    expect(defaultBankAccount('SKR03', 4)).toBe(1200);
    expect(defaultBankAccount('SKR04', 5)).toBe(18000);
    expect(defaultDebtorAccount(4)).toBe(10000);
    expect(defaultDebtorAccount(8)).toBe(100_000_000);
  });

  it('tells ledger accounts from debtor accounts by their length', () => {
    expect(isLedgerAccount(8400, 4)).toBe(true);
    expect(isLedgerAccount(840, 4)).toBe(false);
    expect(isLedgerAccount(84000, 4)).toBe(false);
    expect(isDebtorAccount(10000, 4)).toBe(true);
    expect(isDebtorAccount(69999, 4)).toBe(true);
    expect(isDebtorAccount(70000, 4)).toBe(false); // a creditor
    expect(isDebtorAccount(100000, 5)).toBe(true);
  });
});

describe('document.xml', () => {
  it('gives a document the same RFC 9562 version-5 GUID every time', () => {
    const guid = documentGuid('doc_01jd8x0000000000000000000a');
    expect(guid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(documentGuid('doc_01jd8x0000000000000000000a')).toBe(guid);
    expect(documentGuid('doc_01jd8x0000000000000000000b')).not.toBe(guid);
  });

  it('escapes names and lists each image once', () => {
    const xml = documentXml(new Date(Date.UTC(2026, 2, 31, 12, 0, 0)), [
      { guid: 'g-1', fileName: 'A&B.pdf', keywords: '<1>' },
    ]);
    expect(xml).toContain('<date>2026-03-31T12:00:00</date>');
    expect(xml).toContain('<extension xsi:type="File" name="A&amp;B.pdf"/>');
    expect(xml).toContain('<keywords>&lt;1&gt;</keywords>');
    expect(xml.match(/<document /g)).toHaveLength(1);
  });
});
