import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { SepaFileError } from './errors.js';
import { creditTransferFile, IBANS } from './fixtures.test-support.js';
import { buildPain001 } from './pain001.js';
import type { CreditTransferFile } from './types.js';

const parser = new XMLParser({
  ignoreAttributes: false,
  parseTagValue: false,
  isArray: (name) => ['PmtInf', 'CdtTrfTxInf'].includes(name),
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a parsed XML tree
function parse(xml: string): any {
  return parser.parse(xml).Document.CstmrCdtTrfInitn;
}

function errorOf(file: CreditTransferFile): SepaFileError {
  try {
    buildPain001(file);
  } catch (error) {
    if (error instanceof SepaFileError) return error;
    throw error;
  }
  throw new Error('buildPain001 did not throw');
}

describe('buildPain001', () => {
  it('writes the declaration, namespace, header and payment information', () => {
    const xml = buildPain001(creditTransferFile());
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09">',
      ),
    ).toBe(true);
    const doc = parse(xml);
    expect(doc.GrpHdr).toMatchObject({
      MsgId: 'KONTOR-CT-20261128-1',
      NbOfTxs: '1',
      CtrlSum: '1250.00',
    });
    expect(doc.PmtInf[0]).toMatchObject({
      PmtInfId: 'KONTOR-CT-20261128-1-P1',
      PmtMtd: 'TRF',
      BtchBookg: 'true',
      PmtTpInf: { SvcLvl: { Cd: 'SEPA' } },
      ReqdExctnDt: { Dt: '2026-12-01' },
      Dbtr: { Nm: 'Musterhandel GmbH' },
      DbtrAcct: { Id: { IBAN: IBANS.de5 } },
      DbtrAgt: { FinInstnId: { BICFI: 'COBADEFFXXX' } },
      ChrgBr: 'SLEV',
    });
    expect(doc.PmtInf[0].CdtTrfTxInf[0]).toEqual({
      PmtId: { EndToEndId: 'RE-2026-0815' },
      Amt: { InstdAmt: { '#text': '1250.00', '@_Ccy': 'EUR' } },
      CdtrAgt: { FinInstnId: { BICFI: 'BYLADEM1001' } },
      Cdtr: { Nm: 'Beispiel Lieferant AG' },
      CdtrAcct: { Id: { IBAN: IBANS.de4 } },
      RmtInf: { Ustrd: 'Rechnung RE-2026-0815' },
    });
  });

  it('without BICs: NOTPROVIDED for the debtor agent, no creditor agent', () => {
    const file = creditTransferFile({ debtor: { name: 'Müller', iban: IBANS.de5, bic: null } });
    file.batches[0]!.transfers[0]!.creditor.bic = undefined;
    const pi = parse(buildPain001(file)).PmtInf[0];
    expect(pi.Dbtr.Nm).toBe('Mueller');
    expect(pi.DbtrAgt).toEqual({ FinInstnId: { Othr: { Id: 'NOTPROVIDED' } } });
    expect(pi.CdtTrfTxInf[0].CdtrAgt).toBeUndefined();
  });

  it('counts and sums exactly over several batches', () => {
    const file = creditTransferFile();
    const transfer = file.batches[0]!.transfers[0]!;
    file.batches = [
      {
        paymentInfoId: 'P1',
        executionDate: '2026-12-01',
        transfers: [
          { ...transfer, amountMinor: 10 },
          { ...transfer, endToEndId: 'B', amountMinor: 20 },
        ],
      },
      {
        paymentInfoId: 'P2',
        executionDate: '2026-12-02',
        batchBooking: false,
        transfers: [{ ...transfer, endToEndId: 'C', amountMinor: 7 }],
      },
    ];
    const doc = parse(buildPain001(file));
    expect(doc.GrpHdr.NbOfTxs).toBe('3');
    expect(doc.GrpHdr.CtrlSum).toBe('0.37');
    expect(doc.PmtInf.map((p: { CtrlSum: string }) => p.CtrlSum)).toEqual(['0.30', '0.07']);
    expect(doc.PmtInf[1].BtchBookg).toBe('false');
  });
});

describe('buildPain001 refuses input no valid file can carry', () => {
  const cases: [string, (f: CreditTransferFile) => void, string, RegExp][] = [
    ['no batch', (f) => (f.batches = []), '/batches', /at least one batch/],
    [
      'an empty batch',
      (f) => (f.batches[0]!.transfers = []),
      '/batches/0/transfers',
      /at least one transfer/,
    ],
    [
      'a wrong debtor IBAN',
      (f) => (f.debtor.iban = 'DE89370400440532013001'),
      '/debtor/iban',
      /check sum/,
    ],
    [
      'a creditor outside SEPA',
      (f) => (f.batches[0]!.transfers[0]!.creditor.iban = 'BR1800360305000010009795493C1'),
      '/batches/0/transfers/0/creditor/iban',
      /outside the SEPA area/,
    ],
    [
      'a wrong creditor BIC',
      (f) => (f.batches[0]!.transfers[0]!.creditor.bic = 'BYLADEM'),
      '/batches/0/transfers/0/creditor/bic',
      /not a BIC/,
    ],
    [
      'a zero amount',
      (f) => (f.batches[0]!.transfers[0]!.amountMinor = 0),
      '/batches/0/transfers/0/amountMinor',
      /greater than 0/,
    ],
    [
      'too large an amount',
      (f) => (f.batches[0]!.transfers[0]!.amountMinor = 100_000_000_000),
      '/batches/0/transfers/0/amountMinor',
      /999999999.99/,
    ],
    [
      'an end-to-end id ending in /',
      (f) => (f.batches[0]!.transfers[0]!.endToEndId = 'RE-1/'),
      '/batches/0/transfers/0/endToEndId',
      /start or end/,
    ],
    [
      'an impossible execution date',
      (f) => (f.batches[0]!.executionDate = '1.12.2026'),
      '/batches/0/executionDate',
      /YYYY-MM-DD/,
    ],
    [
      'an initiating party of no representable letter',
      (f) => (f.initiatingPartyName = ' '),
      '/initiatingPartyName',
      /SEPA character set/,
    ],
  ];
  it.each(cases)('%s', (_name, change, path, message) => {
    const file = creditTransferFile();
    change(file);
    const error = errorOf(file);
    expect(error.path).toBe(path);
    expect(error.problem).toMatch(message);
  });
});
