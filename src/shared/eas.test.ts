import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EAS_CODES, electronicAddressProblem } from './eas.js';

// The EN 16931 schematron of the offline validation kit (test-only, beside the repository).
const SCHEMATRON = path.resolve(
  process.cwd(),
  '../shared/validation/einvoice/resources/cii/16b/xsl/EN16931-CII-validation.xsl',
);

describe('EAS electronic addresses', () => {
  it('holds the common German schemes', () => {
    for (const code of ['EM', '0088', '0060', '0204', '9930', '0007', '0151'])
      expect(EAS_CODES).toContain(code);
  });

  it.skipIf(!existsSync(SCHEMATRON))('is exactly the list EN 16931 checks (BR-CL-25)', () => {
    const xsl = readFileSync(SCHEMATRON, 'utf8');
    const list = / 0002 0007 0009 [0-9A-Z ]+ EM /.exec(xsl)?.[0];
    expect(list?.trim().split(' ')).toEqual(EAS_CODES);
  });

  it.each([
    [{ scheme: 'EM', value: 'rechnung@example.com' }],
    [{ scheme: '0204', value: '04011000-12345-03' }],
    [{ scheme: '9930', value: 'DE811907980' }],
    [{ scheme: '0088', value: '4000001000005' }],
  ])('accepts %o', (address) => {
    expect(electronicAddressProblem(address)).toBeUndefined();
  });

  it.each([
    [{ scheme: '9958', value: '04011000-12345-03' }, 'scheme', 'not_in_code_list'],
    [{ scheme: 'em', value: 'rechnung@example.com' }, 'scheme', 'not_in_code_list'],
    [{ scheme: 'EM', value: 'rechnung(at)example.com' }, 'value', 'invalid_format'],
    [{ scheme: '0204', value: '04011000-12345-04' }, 'value', 'invalid_format'],
    [{ scheme: '9930', value: 'ATU13585627' }, 'value', 'invalid_format'],
    [{ scheme: '9930', value: 'DE123456789' }, 'value', 'invalid_format'],
  ])('refuses %o', (address, field, code) => {
    expect(electronicAddressProblem(address)).toMatchObject({ field, code });
  });
});
