import { describe, expect, it } from 'vitest';
import {
  creditTransferFile,
  CREDITOR_ID,
  debit,
  directDebitFile,
  IBANS,
  OTHER_CREDITOR_ID,
} from './fixtures.test-support.js';
import { buildPain001, buildPain008, groupCreditTransfers, groupDirectDebits } from './index.js';
import { canValidate, describeProblems, validateAll } from './validator.test-support.js';

const UMLAUT_NAME =
  'Jürgen Größer & Söhne OHG – Bäckerei „Zum Örtchen“ Ästhetik-Straße 12 ÆØÅ éèê Ñ ł';
const UMLAUT_TEXT =
  'Gebühr §12 (50%) für Außenanlage <Große Straße> "Nr. 5"; Tür & Tor: 1.234,56 € — ' +
  'bitte pünktlich überweisen! ' +
  'x'.repeat(120);

/** Every file variant the writers produce, validated in one call of the offline validator. */
function variants(): { name: string; xml: string }[] {
  return [
    {
      name: 'pain008-core-frst-rcur',
      xml: buildPain008(
        directDebitFile({
          batches: [
            {
              paymentInfoId: 'DD-1-FRST',
              sequenceType: 'FRST',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              debits: [
                debit(1, {
                  debtor: { name: 'Erika Mustermann', iban: IBANS.de1, bic: 'INGDDEFFXXX' },
                }),
              ],
            },
            {
              paymentInfoId: 'DD-1-RCUR',
              sequenceType: 'RCUR',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              batchBooking: false,
              debits: [
                debit(2),
                debit(3, { debtor: { name: 'Max', iban: IBANS.de3, bic: 'GENODEF1M04' } }),
              ],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-core-fnal',
      xml: buildPain008(
        directDebitFile({
          batches: [
            {
              paymentInfoId: 'DD-2-FNAL',
              sequenceType: 'FNAL',
              localInstrument: 'CORE',
              collectionDate: '2026-12-15',
              debits: [debit(4)],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-core-ooff-creditor-without-bic',
      xml: buildPain008(
        directDebitFile({
          creditor: { name: 'Verein', iban: IBANS.creditor, bic: null, creditorId: CREDITOR_ID },
          batches: [
            {
              paymentInfoId: 'DD-3-OOFF',
              sequenceType: 'OOFF',
              localInstrument: 'CORE',
              collectionDate: '2026-12-15',
              debits: [debit(5), debit(6)],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-b2b',
      xml: buildPain008(
        directDebitFile({
          batches: [
            {
              paymentInfoId: 'DD-4-B2B-OOFF',
              sequenceType: 'OOFF',
              localInstrument: 'B2B',
              collectionDate: '2026-12-02',
              debits: [debit(7, { amountMinor: 1_250_000 })],
            },
            {
              paymentInfoId: 'DD-4-B2B-RCUR',
              sequenceType: 'RCUR',
              localInstrument: 'B2B',
              collectionDate: '2026-12-02',
              debits: [
                debit(8, { debtor: { name: 'Grosshandel', iban: IBANS.fr, bic: 'BNPAFRPP' } }),
              ],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-umlauts',
      xml: buildPain008(
        directDebitFile({
          initiatingPartyName: UMLAUT_NAME,
          creditor: {
            name: UMLAUT_NAME,
            iban: IBANS.creditor,
            bic: 'SOGEDEFFXXX',
            creditorId: CREDITOR_ID,
          },
          batches: [
            {
              paymentInfoId: 'DD-5',
              sequenceType: 'RCUR',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              debits: [
                debit(9, {
                  debtor: { name: UMLAUT_NAME, iban: IBANS.de2 },
                  remittance: UMLAUT_TEXT,
                }),
                debit(10, {
                  debtor: { name: 'Ünal Çelik', iban: IBANS.nl },
                  remittance: '日本語 only',
                }),
                debit(11, { remittance: '' }),
              ],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-several-dates-grouped',
      xml: buildPain008(
        directDebitFile({
          batches: groupDirectDebits(
            [
              { ...debit(12), sequenceType: 'RCUR', collectionDate: '2026-12-15' },
              { ...debit(13), sequenceType: 'FRST', collectionDate: '2026-12-03' },
              { ...debit(14), sequenceType: 'RCUR', collectionDate: '2026-12-03' },
              { ...debit(15), sequenceType: 'RCUR', collectionDate: '2026-12-15' },
              { ...debit(16), sequenceType: 'FNAL', collectionDate: '2027-01-04' },
            ],
            'KONTOR-DD-20261128-1-with-a-long-prefix',
          ),
        }),
      ),
    },
    {
      name: 'pain008-amendments',
      xml: buildPain008(
        directDebitFile({
          batches: [
            {
              paymentInfoId: 'DD-6',
              sequenceType: 'RCUR',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              debits: [
                debit(17, { amendment: { originalMandateId: 'ALT-MANDAT-17' } }),
                debit(18, {
                  amendment: {
                    originalCreditorId: OTHER_CREDITOR_ID,
                    originalCreditorName: 'Früherer Verein',
                  },
                }),
                debit(19, { amendment: { originalDebtorIban: IBANS.de5 } }),
                debit(20, { amendment: { debtorBankChanged: true, originalMandateId: 'ALT-20' } }),
              ],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain008-exact-sums',
      xml: buildPain008(
        directDebitFile({
          batches: [
            {
              paymentInfoId: 'DD-7-A',
              sequenceType: 'RCUR',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              debits: [
                debit(21, { amountMinor: 10 }),
                debit(22, { amountMinor: 20 }),
                debit(23, { amountMinor: 1 }),
              ],
            },
            {
              paymentInfoId: 'DD-7-B',
              sequenceType: 'FRST',
              localInstrument: 'CORE',
              collectionDate: '2026-12-03',
              debits: [
                debit(24, { amountMinor: 99_999_999_999 }),
                debit(25, { amountMinor: 99_999_999_999 }),
                debit(26, { amountMinor: 99_999_999_999 }),
              ],
            },
          ],
        }),
      ),
    },
    {
      name: 'pain001-several-transfers',
      xml: buildPain001(
        creditTransferFile({
          batches: [
            {
              paymentInfoId: 'CT-1',
              executionDate: '2026-12-01',
              transfers: [1, 2, 3].map((n) => ({
                endToEndId: `RE-2026-${n}`,
                amountMinor: n * 1001,
                creditor: {
                  name: `Lieferant ${n}`,
                  iban: n === 2 ? IBANS.at : IBANS.de4,
                  bic: n === 1 ? 'BYLADEM1001' : null,
                },
                remittance: `Rechnung RE-2026-${n}`,
              })),
            },
          ],
        }),
      ),
    },
    {
      name: 'pain001-several-dates-umlauts-no-bic',
      xml: buildPain001(
        creditTransferFile({
          initiatingPartyName: UMLAUT_NAME,
          debtor: { name: UMLAUT_NAME, iban: IBANS.de5 },
          batches: groupCreditTransfers(
            [
              {
                endToEndId: 'A-1',
                amountMinor: 10,
                executionDate: '2026-12-04',
                remittance: UMLAUT_TEXT,
                creditor: { name: 'Björk Ängström', iban: IBANS.nl },
              },
              {
                endToEndId: 'A-2',
                amountMinor: 20,
                executionDate: '2026-12-01',
                remittance: 'Gebühr',
                creditor: { name: 'Ærøskøbing ApS', iban: IBANS.fr },
              },
              {
                endToEndId: 'A-3',
                amountMinor: 30,
                executionDate: '2026-12-04',
                remittance: '',
                creditor: { name: 'Zoë & Co.', iban: IBANS.de1 },
              },
            ],
            'KONTOR-CT-20261128-2',
          ),
        }),
      ),
    },
  ];
}

describe.runIf(canValidate())('SEPA files against the ISO 20022 XSDs and EPC rules', () => {
  it('every variant is VALID', () => {
    const files = variants();
    const results = validateAll(files);
    expect(results).toHaveLength(files.length);
    for (const result of results)
      expect(result.valid, `${result.file}\n${describeProblems(result)}`).toBe(true);
  });

  it('the validator does reject a broken file (the check can fail)', () => {
    const broken = buildPain008(directDebitFile()).replace('<CtrlSum>', '<CtrlSum>1');
    const [result] = validateAll([{ name: 'broken', xml: broken }]);
    expect(result!.valid).toBe(false);
    expect(result!.problems.map((p) => p.rule)).toContain('ctrl-sum');
  });
});
