import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { detectFormat } from './detect.js';
import { parseStatementFile } from './index.js';

function refusal(bytes: Buffer | string): string {
  try {
    detectFormat(typeof bytes === 'string' ? Buffer.from(bytes) : bytes);
  } catch (error) {
    if (error instanceof AppError && error.code === 'file_unprocessable') return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

const detect = (text: string | Buffer) =>
  detectFormat(typeof text === 'string' ? Buffer.from(text) : text);

const camtHead = (message: string, version: string, element: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.${message}.001.${version}"><${element}><GrpHdr><MsgId>1</MsgId></GrpHdr></${element}></Document>`;

const MT940 = `:20:STARTUMSE
:25:10020030/1234567
:28C:00001/001
:60F:C240301EUR1000,00
:61:2403010301CR100,00NTRFNONREF
:86:166?00GUTSCHRIFT?20SVWZ+Rechnung 1
:62F:C240301EUR1100,00
-`;

describe('detectFormat', () => {
  it('recognises camt.052, camt.053 and camt.054 of every version 001.01–001.10', () => {
    for (const version of ['01', '02', '04', '08', '10']) {
      const suffix = version === '01' ? 'V01' : '';
      expect(detect(camtHead('053', version, `BkToCstmrStmt${suffix}`))).toBe('CAMT053');
      expect(detect(camtHead('052', version, `BkToCstmrAcctRpt${suffix}`))).toBe('CAMT052');
      expect(detect(camtHead('054', version, `BkToCstmrDbtCdtNtfctn${suffix}`))).toBe('CAMT054');
    }
    // Prefixed elements, a BOM, leading whitespace and a comment.
    expect(
      detect(
        `\uFEFF  <!-- export --><n:Document xmlns:n="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><n:BkToCstmrStmt/></n:Document>`,
      ),
    ).toBe('CAMT053');
  });

  it('refuses other XML: other camt messages, versions, pain, random XML, DOCTYPEs', () => {
    expect(refusal(camtHead('053', '11', 'BkToCstmrStmt'))).toBe(
      'camt.053.001.11 is not supported; versions 001.01 to 001.10 are read.',
    );
    expect(refusal(camtHead('056', '08', 'FIToFIPmtCxlReq'))).toBe(
      'The file is a camt.056 message, not a bank statement; camt.052, camt.053 and camt.054 are read.',
    );
    expect(
      refusal(
        '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.09"><CstmrCdtTrfInitn/></Document>',
      ),
    ).toBe(
      'The file is an ISO 20022 pain.001.001.09 message, not a bank statement; camt.052, camt.053 and camt.054 are read.',
    );
    expect(refusal('<?xml version="1.0"?>\n<rss version="2.0"><channel></channel></rss>')).toBe(
      'The XML (document element <rss>) is not a bank statement; camt.052, camt.053 and camt.054 are read.',
    );
    expect(
      refusal(
        '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">]><Document><BkToCstmrStmt/></Document>',
      ),
    ).toBe('The XML contains a DOCTYPE or entity declaration, which is not accepted.');
  });

  it('recognises MT940 (with and without SWIFT blocks) and refuses MT942 and other MT types', () => {
    expect(detect(MT940)).toBe('MT940');
    expect(detect(`{1:F01BANKDEFFXXX0000000000}{2:I940BANKDEFFXXXXN}{4:\r\n${MT940}}`)).toBe(
      'MT940',
    );
    const interim = `:20:CGNGHKLI0290980\n:25:GJB0291077111\n:28C:03917/00001\n:34F:EURD0,00\n:13D:1610301730+0000\n:61:1610301031D0,42MCI0NONREF\n:90D:1EUR2,30\n`;
    const reason =
      'The file is an MT942 interim transaction report, not a statement; upload the MT940 end-of-day statement instead.';
    expect(refusal(interim)).toBe(reason);
    expect(refusal(`{1:F01BANKDEFFXXX0000000000}{2:O942BANKDEFFXXXXN}{4:\n:20:X\n:25:Y\n-}`)).toBe(
      reason,
    );
    expect(refusal(`{1:F01BANKDEFFXXX0000000000}{2:O950BANKDEFFXXXXN}{4:\n:20:X\n:25:Y\n-}`)).toBe(
      'The file is a SWIFT MT950 message, not an MT940 statement.',
    );
  });

  it('recognises delimited text as CSV, in any 8-bit encoding or with a BOM', () => {
    expect(
      detect(
        'Buchungstag;Valuta;Auftraggeber/Empfänger;Verwendungszweck;Betrag\n01.03.2024;01.03.2024;Muster GmbH;RE 1;1.234,56\n',
      ),
    ).toBe('CSV');
    expect(
      detect(
        Buffer.from(
          '"Buchungstag";"Betrag";"Währung"\r\n"01.03.2024";"-12,50";"EUR"\r\n',
          'latin1',
        ),
      ),
    ).toBe('CSV');
    expect(
      detect(
        Buffer.concat([
          Buffer.from([0xef, 0xbb, 0xbf]),
          Buffer.from('Datum;Text;Betrag\n01.02.2024;Miete;-800,00\n'),
        ]),
      ),
    ).toBe('CSV');
    expect(detect('Datum,Empfänger,Betrag (EUR)\n2017-10-01,NINTENDO,-59.99\n')).toBe('CSV');
  });

  it.each([
    ['an empty file', Buffer.alloc(0), 'The file is empty.'],
    [
      'a 5-byte file',
      Buffer.from(':NS:\n'),
      'The file has only 5 bytes; that is too small to be a bank statement.',
    ],
    ['whitespace', Buffer.from(' \r\n\t'.repeat(300)), 'The file contains nothing but whitespace.'],
    [
      'a PDF',
      Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj'),
      'The file is a PDF document, not a bank statement.',
    ],
    [
      'a PNG',
      Buffer.from([
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0,
      ]),
      'The file is a PNG image, not a bank statement.',
    ],
    [
      'a JPEG',
      Buffer.from([0xff, 0xd8, 0xff, 0xe0, ...Buffer.from('JFIF0000000000000000')]),
      'The file is a JPEG image, not a bank statement.',
    ],
    [
      'a ZIP',
      Buffer.from([0x50, 0x4b, 0x03, 0x04, ...Buffer.from('camt053.xml00000000000')]),
      'The file is a ZIP archive (or an Office document), not a bank statement; extract it and upload the statement files one by one.',
    ],
    [
      'a gzip',
      Buffer.from([0x1f, 0x8b, 0x08, 0x00, ...Buffer.from('0000000000000000000')]),
      'The file is a gzip archive, not a bank statement; extract it and upload the statement files one by one.',
    ],
    [
      'binary data',
      Buffer.from([...Buffer.from('some text '), 0, 1, 2, 3, ...Buffer.from('more text and more')]),
      'The file is binary data, not a bank statement (MT940, CAMT or CSV).',
    ],
    [
      'JSON',
      Buffer.from('[{"referenceNumber": "STARTUMS", "accountId": "1222333444"}]'),
      'The file is JSON, not a bank statement (MT940, CAMT or CSV).',
    ],
    [
      'prose',
      Buffer.from('Dear customer,\nplease find your statement attached.\nKind regards'),
      'The file is not a recognised bank statement: expected MT940, camt.052/053/054 XML or a CSV export.',
    ],
  ])('refuses %s', (_name, bytes, reason) => {
    expect(refusal(bytes)).toBe(reason);
  });
});

describe('parseStatementFile', () => {
  it('detects and dispatches a CAMT file', () => {
    const xml = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>1</MsgId></GrpHdr><Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct><Ntry><Amt Ccy="EUR">9.99</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-02</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt></Document>`;
    const result = parseStatementFile(Buffer.from(xml), { incomingPaymentTerm: 'SOLL' });
    expect(result.format).toBe('CAMT053');
    expect(result.statements[0]!.entries[0]!.amountMinor).toBe(-999);
  });

  it('refuses what detection refuses, with the reason', () => {
    expect(() => parseStatementFile(Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj'))).toThrow(
      'The file is a PDF document, not a bank statement.',
    );
  });
});
