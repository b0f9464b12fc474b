import { describe, expect, it } from 'vitest';
import { normalizeVatId, vatIdProblem } from './vat-id.js';

describe('vat ids', () => {
  it.each([
    'DE811907980',
    'DE143454214',
    'DE129273398',
    'de 123 456 788',
    'ATU13585627',
    'BE0123456789',
    'BG123456789',
    'BG1234567890',
    'CY12345678L',
    'CZ12345678',
    'CZ1234567890',
    'DK12345678',
    'EE123456789',
    'EL123456789',
    'ESA1234567B',
    'ES12345678Z',
    'FI12345678',
    'FR40303265045',
    'FRK7399859412',
    'HR12345678901',
    'HU12345678',
    'IE1234567T',
    'IE1234567FA',
    'IE1A23456B',
    'IT12345678901',
    'LT123456789',
    'LT123456789012',
    'LU12345678',
    'LV12345678901',
    'MT12345678',
    'NL123456789B01',
    'PL1234567890',
    'PT123456789',
    'RO12',
    'RO1234567890',
    'SE123456789001',
    'SI12345678',
    'SK1234567890',
    'XI123456789',
    'XIGD123',
    'GB123456789',
    'CHE-123.456.789 MWST',
    'NO123456789MVA',
    'US123456789',
  ])('accepts %s', (id) => {
    expect(vatIdProblem(id)).toBeUndefined();
  });

  it.each([
    ['DE123456789', 'has a wrong check digit'],
    ['DE987654321', 'has a wrong check digit'],
    ['DE12345678', 'must be DE + 9 digits for DE'],
    ['DE1234567890', 'must be DE + 9 digits for DE'],
    ['DEA23456789', 'must be DE + 9 digits for DE'],
    ['AT12345678', 'must be ATU + 8 digits for AT'],
    ['BE2123456789', 'must be BE + 10 digits starting with 0 or 1 for BE'],
    ['FR4030326504', 'must be FR + 2 characters + 9 digits for FR'],
    ['NL123456789001', 'must be NL + 9 digits + B + 2 digits for NL'],
    ['SE123456789012', 'must be SE + 12 digits ending in 01 for SE'],
    ['RO0123', 'must be RO + 2 to 10 digits for RO'],
    ['XI12345', 'must be XI + 9 or 12 digits, or GD/HA + 3 digits for XI'],
    ['GR123456789', 'must use the prefix EL for Greece'],
    ['123456789', 'must start with a country prefix, e.g. DE'],
    ['QQ123456789', 'has an unknown country prefix QQ'],
    ['US1', 'must be the country prefix and 2 to 13 letters or digits'],
  ])('refuses %s: %s', (id, problem) => {
    expect(vatIdProblem(id)).toBe(problem);
  });

  it('normalises to upper case without spaces, dots and hyphens', () => {
    expect(normalizeVatId(' de 811.907-980 ')).toBe('DE811907980');
  });
});
