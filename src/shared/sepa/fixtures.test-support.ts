import type { CreditTransferFile, DirectDebit, DirectDebitFile } from './types.js';

/** Test IBANs with correct check digits (published examples of the banks and registries). */
export const IBANS = {
  creditor: 'DE75512108001245126199',
  de1: 'DE12500105170648489890',
  de2: 'DE27100777770209299700',
  de3: 'DE44500105175407324931',
  de4: 'DE02120300000000202051',
  de5: 'DE89370400440532013000',
  at: 'AT611904300234573201',
  fr: 'FR1420041010050500013M02606',
  nl: 'NL91ABNA0417164300',
} as const;

export const CREDITOR_ID = 'DE98ZZZ09999999999';
/** Another valid German creditor id (for mandate amendments). */
export const OTHER_CREDITOR_ID = 'DE79ZZZ01234567890';

export const CREATED_AT = new Date('2026-11-28T09:30:00Z');

export function debit(n: number, overrides: Partial<DirectDebit> = {}): DirectDebit {
  const ibans = [IBANS.de1, IBANS.de2, IBANS.de3, IBANS.de4, IBANS.at, IBANS.fr, IBANS.nl];
  return {
    endToEndId: `BEITRAG-${n}`,
    amountMinor: 2995 + n,
    mandateId: `MANDAT-${n}`,
    mandateSignedOn: '2025-06-01',
    debtor: { name: `Mitglied ${n}`, iban: ibans[n % ibans.length]!, bic: null },
    remittance: `Mitgliedsbeitrag 12/2026, Mitglied ${n}`,
    ...overrides,
  };
}

export function directDebitFile(overrides: Partial<DirectDebitFile> = {}): DirectDebitFile {
  return {
    messageId: 'KONTOR-DD-20261128-1',
    createdAt: CREATED_AT,
    initiatingPartyName: 'Sportverein Beispiel e.V.',
    creditor: {
      name: 'Sportverein Beispiel e.V.',
      iban: IBANS.creditor,
      bic: 'SOGEDEFFXXX',
      creditorId: CREDITOR_ID,
    },
    batches: [
      {
        paymentInfoId: 'KONTOR-DD-20261128-1-RCUR',
        sequenceType: 'RCUR',
        localInstrument: 'CORE',
        collectionDate: '2026-12-03',
        debits: [debit(1), debit(2)],
      },
    ],
    ...overrides,
  };
}

export function creditTransferFile(
  overrides: Partial<CreditTransferFile> = {},
): CreditTransferFile {
  return {
    messageId: 'KONTOR-CT-20261128-1',
    createdAt: CREATED_AT,
    initiatingPartyName: 'Musterhandel GmbH',
    debtor: { name: 'Musterhandel GmbH', iban: IBANS.de5, bic: 'COBADEFFXXX' },
    batches: [
      {
        paymentInfoId: 'KONTOR-CT-20261128-1-P1',
        executionDate: '2026-12-01',
        transfers: [
          {
            endToEndId: 'RE-2026-0815',
            amountMinor: 125000,
            creditor: { name: 'Beispiel Lieferant AG', iban: IBANS.de4, bic: 'BYLADEM1001' },
            remittance: 'Rechnung RE-2026-0815',
          },
        ],
      },
    ],
    ...overrides,
  };
}
