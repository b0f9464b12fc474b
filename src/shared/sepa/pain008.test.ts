import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { formatAmount } from './common.js';
import { SepaFileError } from './errors.js';
import {
  CREDITOR_ID,
  debit,
  directDebitFile,
  IBANS,
  OTHER_CREDITOR_ID,
} from './fixtures.test-support.js';
import { buildPain008 } from './pain008.js';
import type { DirectDebitFile } from './types.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => ['PmtInf', 'DrctDbtTxInf'].includes(name),
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed XML tree
function parse(xml: string): any {
  return parser.parse(xml).Document.CstmrDrctDbtInitn;
}

function errorOf(file: DirectDebitFile): SepaFileError {
  try {
    buildPain008(file);
  } catch (error) {
    if (error instanceof SepaFileError) return error;
    throw error;
  }
  throw new Error('buildPain008 did not throw');
}

describe('buildPain008', () => {
  it('writes the UTF-8 declaration, the namespace and the group header', () => {
    const xml = buildPain008(directDebitFile());
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.008.001.08">',
      ),
    ).toBe(true);
    const doc = parse(xml);
    expect(doc.GrpHdr).toMatchObject({
      MsgId: 'KONTOR-DD-20261128-1',
      CreDtTm: '2026-11-28T09:30:00Z',
      NbOfTxs: '2',
      CtrlSum: '59.93',
      InitgPty: { Nm: 'Sportverein Beispiel e.V.' },
    });
  });

  it('writes payment information with SEPA, the instrument, the sequence type and the creditor id', () => {
    const pi = parse(buildPain008(directDebitFile())).PmtInf[0];
    expect(pi).toMatchObject({
      PmtInfId: 'KONTOR-DD-20261128-1-RCUR',
      PmtMtd: 'DD',
      BtchBookg: 'true',
      NbOfTxs: '2',
      CtrlSum: '59.93',
      PmtTpInf: { SvcLvl: { Cd: 'SEPA' }, LclInstrm: { Cd: 'CORE' }, SeqTp: 'RCUR' },
      ReqdColltnDt: '2026-12-03',
      CdtrAcct: { Id: { IBAN: IBANS.creditor } },
      CdtrAgt: { FinInstnId: { BICFI: 'SOGEDEFFXXX' } },
      ChrgBr: 'SLEV',
      CdtrSchmeId: { Id: { PrvtId: { Othr: { Id: CREDITOR_ID, SchmeNm: { Prtry: 'SEPA' } } } } },
    });
    expect(pi.DrctDbtTxInf[0]).toMatchObject({
      PmtId: { EndToEndId: 'BEITRAG-1' },
      InstdAmt: { '#text': '29.96', '@_Ccy': 'EUR' },
      DrctDbtTx: {
        MndtRltdInf: { MndtId: 'MANDAT-1', DtOfSgntr: '2025-06-01', AmdmntInd: 'false' },
      },
      DbtrAgt: { FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } },
      Dbtr: { Nm: 'Mitglied 1' },
      RmtInf: { Ustrd: 'Mitgliedsbeitrag 12/2026, Mitglied 1' },
    });
  });

  it('normalises IBAN, BIC and creditor id and writes a given debtor BIC', () => {
    const file = directDebitFile({
      creditor: {
        name: 'V',
        iban: 'de75 5121 0800 1245 1261 99',
        bic: 'sogedeff',
        creditorId: 'de98 zzz 09999999999',
      },
    });
    file.batches[0]!.debits[0]!.debtor.bic = 'ingddeffxxx';
    const pi = parse(buildPain008(file)).PmtInf[0];
    expect(pi.CdtrAcct.Id.IBAN).toBe(IBANS.creditor);
    expect(pi.CdtrAgt.FinInstnId.BICFI).toBe('SOGEDEFF');
    expect(pi.CdtrSchmeId.Id.PrvtId.Othr.Id).toBe(CREDITOR_ID);
    expect(pi.DrctDbtTxInf[0].DbtrAgt.FinInstnId.BICFI).toBe('INGDDEFFXXX');
  });

  it('sums exactly in decimal: 0.10 + 0.20 = 0.30, three maximum amounts', () => {
    const file = directDebitFile({
      batches: [
        {
          paymentInfoId: 'A',
          sequenceType: 'RCUR',
          localInstrument: 'CORE',
          collectionDate: '2026-12-03',
          debits: [debit(1, { amountMinor: 10 }), debit(2, { amountMinor: 20 })],
        },
        {
          paymentInfoId: 'B',
          sequenceType: 'FRST',
          localInstrument: 'CORE',
          collectionDate: '2026-12-03',
          debits: [3, 4, 5].map((n) => debit(n, { amountMinor: 99_999_999_999 })),
        },
      ],
    });
    expect(0.1 + 0.2).not.toBe(0.3);
    const doc = parse(buildPain008(file));
    expect(doc.PmtInf[0].CtrlSum).toBe('0.30');
    expect(doc.PmtInf[1].CtrlSum).toBe('2999999999.97');
    expect(doc.GrpHdr.CtrlSum).toBe('3000000000.27');
    expect(doc.GrpHdr.NbOfTxs).toBe('5');
    expect(doc.PmtInf[1].DrctDbtTxInf[0].InstdAmt['#text']).toBe('999999999.99');
  });

  it('formats cents with two decimals', () => {
    expect(formatAmount(1)).toBe('0.01');
    expect(formatAmount(100)).toBe('1.00');
    expect(formatAmount(1_250_000)).toBe('12500.00');
    expect(formatAmount(99_999_999_999n * 100_000n)).toBe('99999999999000.00');
  });

  it('transliterates and cuts names and remittance, leaves RmtInf out when nothing is left', () => {
    const file = directDebitFile();
    file.batches[0]!.debits[0]!.debtor.name = 'Größer & Söhne ' + 'ü'.repeat(100);
    file.batches[0]!.debits[0]!.remittance = 'Beitrag für Jürgen <5> & "Co"' + ' x'.repeat(100);
    file.batches[0]!.debits[1]!.remittance = '日本語';
    const txs = parse(buildPain008(file)).PmtInf[0].DrctDbtTxInf;
    expect(txs[0].Dbtr.Nm).toHaveLength(70);
    expect(txs[0].Dbtr.Nm.startsWith('Groesser + Soehne ueue')).toBe(true);
    expect(txs[0].RmtInf.Ustrd.startsWith("Beitrag fuer Juergen (5) + 'Co' x x")).toBe(true);
    expect(txs[0].RmtInf.Ustrd.length).toBeLessThanOrEqual(140);
    expect(txs[1].RmtInf).toBeUndefined();
  });

  it('writes the mandate amendments (new id, new creditor id, new account, new bank)', () => {
    const file = directDebitFile();
    file.batches[0]!.debits = [
      debit(1, { amendment: { originalMandateId: 'ALT-1' } }),
      debit(2, {
        amendment: { originalCreditorId: OTHER_CREDITOR_ID, originalCreditorName: 'Früher' },
      }),
      debit(3, { amendment: { originalDebtorIban: IBANS.de5 } }),
      debit(4, { amendment: { debtorBankChanged: true } }),
    ];
    const txs = parse(buildPain008(file)).PmtInf[0].DrctDbtTxInf;
    const details = txs.map(
      (t: { DrctDbtTx: { MndtRltdInf: { AmdmntInd: string; AmdmntInfDtls: unknown } } }) => {
        expect(t.DrctDbtTx.MndtRltdInf.AmdmntInd).toBe('true');
        return t.DrctDbtTx.MndtRltdInf.AmdmntInfDtls;
      },
    );
    expect(details[0]).toEqual({ OrgnlMndtId: 'ALT-1' });
    expect(details[1]).toEqual({
      OrgnlCdtrSchmeId: {
        Nm: 'Frueher',
        Id: { PrvtId: { Othr: { Id: OTHER_CREDITOR_ID, SchmeNm: { Prtry: 'SEPA' } } } },
      },
    });
    expect(details[2]).toEqual({ OrgnlDbtrAcct: { Id: { IBAN: IBANS.de5 } } });
    expect(details[3]).toEqual({ OrgnlDbtrAcct: { Id: { Othr: { Id: 'SMNDA' } } } });
  });

  it('writes B2B and batch booking false', () => {
    const file = directDebitFile();
    file.batches[0]!.localInstrument = 'B2B';
    file.batches[0]!.batchBooking = false;
    const pi = parse(buildPain008(file)).PmtInf[0];
    expect(pi.PmtTpInf.LclInstrm.Cd).toBe('B2B');
    expect(pi.BtchBookg).toBe('false');
  });

  it('escapes nothing it need not: transliteration leaves no markup characters', () => {
    const file = directDebitFile({ initiatingPartyName: 'A & B <C> "D"' });
    const xml = buildPain008(file);
    expect(xml).toContain("<Nm>A + B (C) 'D'</Nm>");
    expect(xml).not.toMatch(/&(?!amp;|lt;|gt;|quot;)/);
  });
});

describe('buildPain008 refuses input no valid file can carry', () => {
  const cases: [string, (f: DirectDebitFile) => void, string, RegExp][] = [
    ['no batch', (f) => (f.batches = []), '/batches', /at least one batch/],
    [
      'an empty batch',
      (f) => (f.batches[0]!.debits = []),
      '/batches/0/debits',
      /at least one debit/,
    ],
    [
      'a wrong creditor IBAN',
      (f) => (f.creditor.iban = 'DE75512108001245126198'),
      '/creditor/iban',
      /check sum/,
    ],
    [
      'a wrong debtor IBAN',
      (f) => (f.batches[0]!.debits[1]!.debtor.iban = 'DE00'),
      '/batches/0/debits/1/debtor/iban',
      /not an IBAN/,
    ],
    [
      'a wrong creditor id',
      (f) => (f.creditor.creditorId = 'DE97ZZZ09999999999'),
      '/creditor/creditorId',
      /check digits/,
    ],
    ['a wrong BIC', (f) => (f.creditor.bic = 'NOPE'), '/creditor/bic', /not a BIC/],
    [
      'a zero amount',
      (f) => (f.batches[0]!.debits[0]!.amountMinor = 0),
      '/batches/0/debits/0/amountMinor',
      /greater than 0/,
    ],
    [
      'a negative amount',
      (f) => (f.batches[0]!.debits[0]!.amountMinor = -5),
      '/batches/0/debits/0/amountMinor',
      /greater than 0/,
    ],
    [
      'fractional cents',
      (f) => (f.batches[0]!.debits[0]!.amountMinor = 10.5),
      '/batches/0/debits/0/amountMinor',
      /whole number/,
    ],
    [
      'too large an amount',
      (f) => (f.batches[0]!.debits[0]!.amountMinor = 100_000_000_000),
      '/batches/0/debits/0/amountMinor',
      /999999999.99/,
    ],
    ['a message id with //', (f) => (f.messageId = 'A//B'), '/messageId', /\/\//],
    [
      'an end-to-end id of 36',
      (f) => (f.batches[0]!.debits[0]!.endToEndId = 'x'.repeat(36)),
      '/batches/0/debits/0/endToEndId',
      /1-35/,
    ],
    [
      'a mandate id starting with /',
      (f) => (f.batches[0]!.debits[0]!.mandateId = '/M'),
      '/batches/0/debits/0/mandateId',
      /start or end/,
    ],
    [
      'a duplicate end-to-end id',
      (f) => (f.batches[0]!.debits[1]!.endToEndId = 'BEITRAG-1'),
      '/batches/0/debits/1/endToEndId',
      /already used at \/batches\/0\/debits\/0\/endToEndId/,
    ],
    [
      'a duplicate payment-information id',
      (f) => f.batches.push({ ...f.batches[0]!, debits: [debit(9)] }),
      '/batches/1/paymentInfoId',
      /already used/,
    ],
    [
      'a mandate twice as FRST',
      (f) => {
        f.batches[0]!.sequenceType = 'FRST';
        f.batches[0]!.debits[1]!.mandateId = 'MANDAT-1';
      },
      '/batches/0/debits/1/mandateId',
      /already used/,
    ],
    [
      'CORE and B2B in one file',
      (f) =>
        f.batches.push({
          ...f.batches[0]!,
          paymentInfoId: 'X',
          localInstrument: 'B2B',
          debits: [debit(9)],
        }),
      '/batches/1/localInstrument',
      /one instrument per file/,
    ],
    [
      'an unknown sequence type',
      (f) => ((f.batches[0] as { sequenceType: string }).sequenceType = 'ONCE'),
      '/batches/0/sequenceType',
      /FRST/,
    ],
    [
      'an impossible date',
      (f) => (f.batches[0]!.collectionDate = '2026-02-30'),
      '/batches/0/collectionDate',
      /YYYY-MM-DD/,
    ],
    [
      'a mandate signed after collection',
      (f) => (f.batches[0]!.debits[0]!.mandateSignedOn = '2026-12-04'),
      '/batches/0/debits/0/mandateSignedOn',
      /after the collection date/,
    ],
    [
      'a name of no representable letter',
      (f) => (f.batches[0]!.debits[0]!.debtor.name = '日本'),
      '/batches/0/debits/0/debtor/name',
      /SEPA character set/,
    ],
    [
      'an empty amendment',
      (f) => (f.batches[0]!.debits[0]!.amendment = {}),
      '/batches/0/debits/0/amendment',
      /at least one change/,
    ],
    [
      'an amendment with both a new bank and an old IBAN',
      (f) =>
        (f.batches[0]!.debits[0]!.amendment = {
          debtorBankChanged: true,
          originalDebtorIban: IBANS.de5,
        }),
      '/batches/0/debits/0/amendment/originalDebtorIban',
      /SMNDA/,
    ],
    ['an invalid creation time', (f) => (f.createdAt = new Date('x')), '/createdAt', /timestamp/],
  ];
  it.each(cases)('%s', (_name, change, path, message) => {
    const file = directDebitFile();
    change(file);
    const error = errorOf(file);
    expect(error.path).toBe(path);
    expect(error.problem).toMatch(message);
    expect(error.message).toBe(`${path}: ${error.problem}`);
  });

  it('accepts the unchanged fixture (so each case above fails for its own reason)', () => {
    expect(() => buildPain008(directDebitFile())).not.toThrow();
    expect(CREDITOR_ID).toBe('DE98ZZZ09999999999');
  });
});
