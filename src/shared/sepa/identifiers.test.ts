import { describe, expect, it } from 'vitest';
import {
  creditorIdProblem,
  debtorBankChanged,
  isValidBic,
  isValidCreditorId,
  normalizeCreditorId,
  sepaIbanProblem,
} from './identifiers.js';

describe('creditor identifier', () => {
  it('accepts valid ids (ISO 7064 mod 97-10, business code skipped)', () => {
    expect(isValidCreditorId('DE98ZZZ09999999999')).toBe(true);
    expect(isValidCreditorId('DE79ZZZ01234567890')).toBe(true);
    expect(isValidCreditorId('AT88ZZZ00000000001')).toBe(true);
    // The business code does not take part in the check digits.
    expect(isValidCreditorId('DE98ABC09999999999')).toBe(true);
    // Spaces and lower case are normalised.
    expect(isValidCreditorId('de98 zzz 0999 9999 999')).toBe(true);
    expect(normalizeCreditorId('de98 zzz 0999 9999 999')).toBe('DE98ZZZ09999999999');
  });

  it('refuses wrong check digits', () => {
    expect(creditorIdProblem('DE97ZZZ09999999999')).toBe('has wrong check digits');
    expect(creditorIdProblem('DE98ZZZ09999999998')).toBe('has wrong check digits');
  });

  it('refuses the wrong shape and the wrong national length', () => {
    expect(creditorIdProblem('')).toMatch(/not a SEPA creditor identifier/);
    expect(creditorIdProblem('DEXXZZZ09999999999')).toMatch(/not a SEPA creditor identifier/);
    expect(creditorIdProblem('DE98ZZZ0999999999')).toBe('must have 18 characters for DE');
    expect(creditorIdProblem('DE98ZZZ0999999999A')).toBe('must end in 11 digits for DE');
  });
});

describe('IBAN in SEPA', () => {
  it('accepts SEPA IBANs and refuses wrong ones and those outside SEPA', () => {
    expect(sepaIbanProblem('DE89 3704 0044 0532 0130 00')).toBeUndefined();
    expect(sepaIbanProblem('CH9300762011623852957')).toBeUndefined();
    expect(sepaIbanProblem('DE89370400440532013001')).toBe('IBAN has a wrong check sum');
    expect(sepaIbanProblem('BR1800360305000010009795493C1')).toBe(
      'IBAN of BR is outside the SEPA area',
    );
  });
});

describe('BIC', () => {
  it('accepts 8 and 11 characters and refuses malformed ones', () => {
    expect(isValidBic('COBADEFFXXX')).toBe(true);
    expect(isValidBic('cobadeff')).toBe(true);
    expect(isValidBic('GENODEF1M04')).toBe(true);
    expect(isValidBic('COBADEFFXX')).toBe(false);
    expect(isValidBic('C0BADEFF')).toBe(false);
    expect(isValidBic('COBADE1F')).toBe(false);
    expect(isValidBic('COBADEFO')).toBe(false);
  });
});

describe('debtor bank changed (SMNDA)', () => {
  it('compares the national bank code where the IBAN fixes one', () => {
    const before = { iban: 'DE89 3704 0044 0532 0130 00' };
    // Same Bankleitzahl 37040044, another account.
    expect(debtorBankChanged(before, { iban: 'DE62370400440532013001' })).toBe(false);
    // Another Bankleitzahl.
    expect(debtorBankChanged(before, { iban: 'DE44500105175407324931' })).toBe(true);
    // Another country is another bank.
    expect(debtorBankChanged(before, { iban: 'FR1420041010050500013M02606' })).toBe(true);
  });

  it('compares the BICs where the country fixes no bank code, else counts it as changed', () => {
    const before = { iban: 'FI2112345600000785', bic: 'NDEAFIHH' };
    expect(debtorBankChanged(before, { iban: 'FI7279345600000785', bic: 'ndeafihhxxx' })).toBe(
      false,
    );
    expect(debtorBankChanged(before, { iban: 'FI7279345600000785', bic: 'OKOYFIHH' })).toBe(true);
    expect(debtorBankChanged(before, { iban: 'FI7279345600000785' })).toBe(true);
  });
});
