import { describe, expect, it } from 'vitest';
import { asBic, asIban, decimalToMinor, decodeText, isoFromParts } from './text.js';

describe('decodeText', () => {
  it('detects UTF-8 (with and without BOM), UTF-16 and falls back to Windows-1252', () => {
    expect(decodeText(Buffer.from('Grüße €', 'utf8'))).toEqual({
      text: 'Grüße €',
      encoding: 'utf-8',
    });
    expect(decodeText(Buffer.from('\uFEFFGrüße', 'utf8')).text).toBe('Grüße');
    expect(decodeText(Buffer.from('\uFEFFGrüße', 'utf16le'))).toEqual({
      text: 'Grüße',
      encoding: 'utf-16le',
    });
    // 0x80 € 0x84 „ 0x93 “ 0x96 – 0x9A š, 0xE4 ä, and the unassigned 0x81 kept as is.
    const bytes = Buffer.from([0x80, 0x84, 0x93, 0x96, 0x9a, 0xe4, 0x81]);
    expect(decodeText(bytes)).toEqual({ text: '€„“–šä\u0081', encoding: 'windows-1252' });
  });
});

describe('decimalToMinor', () => {
  it('converts decimal text exactly, per currency', () => {
    expect(decimalToMinor('1234.5', 'EUR')).toEqual({ ok: true, minor: 123450 });
    expect(decimalToMinor('0.07', 'EUR')).toEqual({ ok: true, minor: 7 });
    expect(decimalToMinor('.5', 'EUR')).toEqual({ ok: true, minor: 50 });
    expect(decimalToMinor('12.300', 'EUR')).toEqual({ ok: true, minor: 1230 });
    expect(decimalToMinor('100', 'JPY')).toEqual({ ok: true, minor: 100 });
    expect(decimalToMinor('1.234', 'BHD')).toEqual({ ok: true, minor: 1234 });
    expect(decimalToMinor('1.5', 'DEM')).toEqual({ ok: true, minor: 150 });
    expect(decimalToMinor('1.001', 'EUR').ok).toBe(false);
    expect(decimalToMinor('1.5', 'JPY').ok).toBe(false);
    expect(decimalToMinor('', 'EUR').ok).toBe(false);
    expect(decimalToMinor('1,5', 'EUR').ok).toBe(false);
    expect(decimalToMinor('99999999999999999', 'EUR').ok).toBe(false);
  });
});

describe('dates and identifiers', () => {
  it('builds calendar dates, clamping only when asked', () => {
    expect(isoFromParts(2024, 2, 29)).toBe('2024-02-29');
    expect(isoFromParts(2023, 2, 29)).toBeNull();
    expect(isoFromParts(2023, 2, 30, true)).toBe('2023-02-28');
    expect(isoFromParts(2023, 4, 31, true)).toBe('2023-04-30');
    expect(isoFromParts(2023, 13, 1, true)).toBeNull();
    expect(isoFromParts(2023, 1, 32, true)).toBeNull();
  });

  it('recognises IBANs and BICs', () => {
    expect(asIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(asIban('0532013000')).toBeNull();
    expect(asBic('COBADEFFXXX')).toBe('COBADEFFXXX');
    expect(asBic('COBADEFF')).toBe('COBADEFF');
    expect(asBic('37040044')).toBeNull();
  });
});
