import { describe, expect, it } from 'vitest';
import { debit, IBANS } from './fixtures.test-support.js';
import { groupCreditTransfers, groupDirectDebits } from './group.js';
import { isValidSepaId } from './text.js';

describe('groupDirectDebits', () => {
  it('makes one batch per sequence type and date, ordered by date then FRST, RCUR, FNAL, OOFF', () => {
    const batches = groupDirectDebits(
      [
        { ...debit(1), sequenceType: 'RCUR', collectionDate: '2026-12-15' },
        { ...debit(2), sequenceType: 'OOFF', collectionDate: '2026-12-03' },
        { ...debit(3), sequenceType: 'RCUR', collectionDate: '2026-12-03' },
        { ...debit(4), sequenceType: 'FRST', collectionDate: '2026-12-03' },
        { ...debit(5), sequenceType: 'RCUR', collectionDate: '2026-12-15' },
      ],
      'DD-1',
    );
    expect(
      batches.map((b) => [b.paymentInfoId, b.sequenceType, b.collectionDate, b.localInstrument]),
    ).toEqual([
      ['DD-1-FRST-20261203', 'FRST', '2026-12-03', 'CORE'],
      ['DD-1-RCUR-20261203', 'RCUR', '2026-12-03', 'CORE'],
      ['DD-1-OOFF-20261203', 'OOFF', '2026-12-03', 'CORE'],
      ['DD-1-RCUR-20261215', 'RCUR', '2026-12-15', 'CORE'],
    ]);
    expect(batches[3]!.debits.map((d) => d.endToEndId)).toEqual(['BEITRAG-1', 'BEITRAG-5']);
    expect(batches[0]!.debits[0]).not.toHaveProperty('sequenceType');
  });

  it('cuts a long prefix so that the distinguishing tail stays', () => {
    const [batch] = groupDirectDebits(
      [{ ...debit(1), sequenceType: 'FNAL', collectionDate: '2027-01-04' }],
      'A-very-long-message-id-of-35-chars/',
      'B2B',
    );
    expect(batch!.paymentInfoId).toBe('A-very-long-message-i-FNAL-20270104');
    expect(isValidSepaId(batch!.paymentInfoId)).toBe(true);
    expect(batch!.localInstrument).toBe('B2B');
  });
});

describe('groupCreditTransfers', () => {
  it('makes one batch per execution date, ordered by date', () => {
    const t = (id: string, executionDate: string) => ({
      endToEndId: id,
      amountMinor: 100,
      executionDate,
      creditor: { name: 'X', iban: IBANS.de1 },
      remittance: id,
    });
    const batches = groupCreditTransfers(
      [t('A', '2026-12-04'), t('B', '2026-12-01'), t('C', '2026-12-04')],
      'CT-9',
    );
    expect(
      batches.map((b) => [b.paymentInfoId, b.executionDate, b.transfers.map((x) => x.endToEndId)]),
    ).toEqual([
      ['CT-9-20261201', '2026-12-01', ['B']],
      ['CT-9-20261204', '2026-12-04', ['A', 'C']],
    ]);
  });
});
