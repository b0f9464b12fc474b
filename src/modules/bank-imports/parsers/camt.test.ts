import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { parseCamt } from './camt.js';
import { readXml } from './camt-xml.js';
import { parseStatementFile } from './index.js';
import type { ParsedStatement } from './types.js';
import { report } from '../../../../test/report.js';

/** Self-written CAMT fixtures, shaped like the German banks' (DK) files of each version. */

type Message = '052' | '053' | '054';
const MESSAGE_ELEMENT = {
  '052': 'BkToCstmrAcctRpt',
  '053': 'BkToCstmrStmt',
  '054': 'BkToCstmrDbtCdtNtfctn',
};
const STATEMENT_ELEMENT = { '052': 'Rpt', '053': 'Stmt', '054': 'Ntfctn' };

function camt(
  message: Message,
  version: string,
  statements: string[],
  options: { encoding?: string; suffix?: string } = {},
): string {
  const element = MESSAGE_ELEMENT[message] + (options.suffix ?? '');
  const tag = STATEMENT_ELEMENT[message];
  return `<?xml version="1.0" encoding="${options.encoding ?? 'UTF-8'}"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.${message}.001.${version}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <${element}>
    <GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2024-03-28T18:00:00+01:00</CreDtTm></GrpHdr>
    ${statements.map((body) => `<${tag}>${body}</${tag}>`).join('\n    ')}
  </${element}>
</Document>`;
}

const OWN_IBAN = 'DE89370400440532013000';

function account(currency = 'EUR', iban = OWN_IBAN): string {
  return `<Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>${currency}</Ccy></Acct>`;
}

function balance(code: string, amount: string, indicator: 'CRDT' | 'DBIT', date: string): string {
  return `<Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">${amount}</Amt>
    <CdtDbtInd>${indicator}</CdtDbtInd><Dt><Dt>${date}</Dt></Dt></Bal>`;
}

const parse = (xml: string | Buffer) => parseCamt(typeof xml === 'string' ? Buffer.from(xml) : xml);

function balanceHolds(statement: ParsedStatement): boolean {
  const sum = statement.entries.reduce((total, entry) => total + entry.amountMinor, 0);
  return statement.openingBalanceMinor! + sum === statement.closingBalanceMinor;
}

function refusal(xml: string | Buffer): AppError {
  try {
    parse(xml);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** camt.053.001.02 as Sparkassen and Volksbanken send it: names directly under Dbtr/Cdtr. */
const V02 = camt('053', '02', [
  `<Id>2024-03-28-001</Id><ElctrncSeqNb>61</ElctrncSeqNb>
   <CreDtTm>2024-03-28T18:00:00+01:00</CreDtTm>
   ${account()}
   ${balance('PRCD', '1000.00', 'CRDT', '2024-03-27')}
   ${balance('CLBD', '1969.50', 'CRDT', '2024-03-28')}
   <Ntry>
     <Amt Ccy="EUR">1190.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
     <BookgDt><Dt>2024-03-28</Dt></BookgDt><ValDt><Dt>2024-03-28</Dt></ValDt>
     <AcctSvcrRef>2024032800001</AcctSvcrRef>
     <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn>
       <Prtry><Cd>NTRF+166</Cd><Issr>ZKA</Issr></Prtry></BkTxCd>
     <NtryDtls><TxDtls>
       <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
       <RltdPties>
         <Dbtr><Nm>Muster  GmbH</Nm></Dbtr>
         <DbtrAcct><Id><IBAN>DE02 1203 0000 0000 2020 51</IBAN></Id></DbtrAcct>
         <Cdtr><Nm>Kontor Test AG</Nm></Cdtr>
         <CdtrAcct><Id><IBAN>${OWN_IBAN}</IBAN></Id></CdtrAcct>
       </RltdPties>
       <RltdAgts><DbtrAgt><FinInstnId><BIC>BYLADEM1001</BIC></FinInstnId></DbtrAgt></RltdAgts>
       <RmtInf><Ustrd>Rechnung RE-2024-0042</Ustrd><Ustrd>Kunde 4711
          vielen Dank</Ustrd></RmtInf>
     </TxDtls></NtryDtls>
     <AddtlNtryInf>SEPA-Gutschrift</AddtlNtryInf>
   </Ntry>
   <Ntry>
     <Amt Ccy="EUR">220.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
     <BookgDt><Dt>2024-03-28</Dt></BookgDt><ValDt><Dt>2024-03-27</Dt></ValDt>
     <NtryRef>NR-2</NtryRef>
     <NtryDtls><TxDtls>
       <Refs><EndToEndId>E2E-LS-99</EndToEndId><MndtId>MANDAT-2019-7</MndtId></Refs>
       <RltdPties>
         <Cdtr><Nm>Stadtwerke Musterstadt</Nm></Cdtr>
         <CdtrAcct><Id><IBAN>DE44500105175407324931</IBAN></Id></CdtrAcct>
       </RltdPties>
       <RltdAgts><CdtrAgt><FinInstnId><BIC>INGDDEFFXXX</BIC></FinInstnId></CdtrAgt></RltdAgts>
       <RmtInf><Ustrd>Abschlag Strom Maerz</Ustrd></RmtInf>
     </TxDtls></NtryDtls>
     <AddtlNtryInf>SEPA-Lastschrift</AddtlNtryInf>
   </Ntry>`,
]);

describe('parseCamt: camt.053 versions', () => {
  it('reads a camt.053.001.02 statement: account, balances, entries with every field', () => {
    const result = parse(V02);
    expect(result.format).toBe('CAMT053');
    expect(result.errors).toEqual([]);
    expect(result.statements).toHaveLength(1);
    const statement = result.statements[0]!;
    expect(statement).toMatchObject({
      format: 'CAMT053',
      statementId: '2024-03-28-001',
      account: OWN_IBAN,
      currency: 'EUR',
      openingBalanceMinor: 100000,
      openingDate: '2024-03-27',
      closingBalanceMinor: 196950,
      closingDate: '2024-03-28',
    });
    expect(statement.entries).toEqual([
      {
        bookingDate: '2024-03-28',
        valueDate: '2024-03-28',
        amountMinor: 119000,
        currency: 'EUR',
        counterpartyName: 'Muster GmbH',
        counterpartyIban: 'DE02120300000000202051',
        counterpartyBic: 'BYLADEM1001',
        purpose: 'Rechnung RE-2024-0042 Kunde 4711 vielen Dank',
        endToEndId: null,
        mandateReference: null,
        bankReference: '2024032800001',
        bookingText: 'SEPA-Gutschrift',
        reversal: false,
      },
      {
        bookingDate: '2024-03-28',
        valueDate: '2024-03-27',
        amountMinor: -22050,
        currency: 'EUR',
        counterpartyName: 'Stadtwerke Musterstadt',
        counterpartyIban: 'DE44500105175407324931',
        counterpartyBic: 'INGDDEFFXXX',
        purpose: 'Abschlag Strom Maerz',
        endToEndId: 'E2E-LS-99',
        mandateReference: 'MANDAT-2019-7',
        bankReference: 'NR-2',
        bookingText: 'SEPA-Lastschrift',
        reversal: false,
      },
    ]);
    expect(balanceHolds(statement)).toBe(true);
  });

  it('reads camt.053.001.08: Pty/Nm, BICFI, Sts/Cd, DtTm, structured reference', () => {
    const xml = camt('053', '08', [
      `<Id>S8</Id>${account()}
       ${balance('OPBD', '50.00', 'DBIT', '2024-03-31')}
       ${balance('CLBD', '25.00', 'CRDT', '2024-03-31')}
       <Ntry>
         <Amt Ccy="EUR">75.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
         <BookgDt><DtTm>2024-03-31T23:30:00-05:00</DtTm></BookgDt>
         <ValDt><Dt>2024-04-01</Dt></ValDt>
         <AcctSvcrRef>R8</AcctSvcrRef>
         <BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd>
         <NtryDtls><TxDtls>
           <Refs><EndToEndId>E2E-8</EndToEndId></Refs>
           <Amt Ccy="EUR">75.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
           <RltdPties>
             <Dbtr><Pty><Nm>Käufer &amp; Söhne KG</Nm></Pty></Dbtr>
             <DbtrAcct><Id><IBAN>AT611904300234573201</IBAN></Id></DbtrAcct>
           </RltdPties>
           <RltdAgts><DbtrAgt><FinInstnId><BICFI>BKAUATWW</BICFI></FinInstnId></DbtrAgt></RltdAgts>
           <RmtInf><Strd><CdtrRefInf><Tp><CdOrPrtry><Cd>SCOR</Cd></CdOrPrtry></Tp>
             <Ref>RF18539007547034</Ref></CdtrRefInf></Strd></RmtInf>
         </TxDtls></NtryDtls>
       </Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.errors).toEqual([]);
    const [statement] = result.statements;
    expect(statement).toMatchObject({ openingBalanceMinor: -5000, closingBalanceMinor: 2500 });
    expect(statement!.entries[0]).toMatchObject({
      // The bank's local date, not the UTC one (which would be 2024-04-01).
      bookingDate: '2024-03-31',
      valueDate: '2024-04-01',
      amountMinor: 7500,
      counterpartyName: 'Käufer & Söhne KG',
      counterpartyIban: 'AT611904300234573201',
      counterpartyBic: 'BKAUATWW',
      purpose: 'RF18539007547034',
      endToEndId: 'E2E-8',
      bookingText: 'PMNT/RCDT/ESCT',
    });
    expect(balanceHolds(statement!)).toBe(true);
  });

  it.each(['01', '02', '03', '04', '05', '06', '07', '08', '09', '10'])(
    'reads camt.053.001.%s',
    (version) => {
      const xml = camt(
        '053',
        version,
        [
          `<Id>V${version}</Id>${account()}${balance('OPBD', '1.00', 'CRDT', '2024-01-01')}
           ${balance('CLBD', '3.00', 'CRDT', '2024-01-02')}
           <Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
             <BookgDt><Dt>2024-01-02</Dt></BookgDt></Ntry>`,
        ],
        { suffix: version === '01' ? 'V01' : '' },
      );
      const [statement] = parse(xml).statements;
      expect(statement).toMatchObject({ statementId: `V${version}`, closingBalanceMinor: 300 });
      expect(statement!.entries.map((e) => e.amountMinor)).toEqual([200]);
    },
  );

  it('reads 001.01 account ids (PrtryAcct) and the V01 message element', () => {
    const xml = camt(
      '052',
      '01',
      [
        `<Id>R1</Id><Acct><Id><PrtryAcct><Id>1234567890</Id></PrtryAcct></Id></Acct>
         <Ntry><Amt Ccy="SEK">200000</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
           <BookgDt><DtTm>2007-10-18T10:15:00+01:00</DtTm></BookgDt></Ntry>`,
      ],
      { suffix: 'V01' },
    );
    const result = parse(xml);
    expect(result.format).toBe('CAMT052');
    expect(result.statements[0]).toMatchObject({ account: '1234567890', currency: 'SEK' });
    expect(result.statements[0]!.entries[0]).toMatchObject({
      bookingDate: '2007-10-18',
      amountMinor: -20000000,
    });
  });

  it('refuses versions outside 001.01–001.10 and messages that are not statements', () => {
    expect(refusal(camt('053', '11', ['<Id>X</Id>'])).message).toBe(
      'camt.053.001.11 is not supported; versions 001.01 to 001.10 are read.',
    );
    const camt056 = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.056.001.08"><FIToFIPmtCxlReq><Assgnmt><Id>1</Id></Assgnmt></FIToFIPmtCxlReq></Document>`;
    expect(refusal(camt056)).toMatchObject({
      code: 'file_unprocessable',
      message:
        'The file is a camt.056 message, not a bank statement; camt.052, camt.053 and camt.054 are read.',
    });
    expect(refusal(camt('053', '02', [])).message).toBe(
      'The camt.053 message contains no statement (<Stmt>).',
    );
  });
});

describe('parseCamt: batches, reversals, returns', () => {
  const batch = (amounts: string[], total: string) =>
    camt('053', '08', [
      `<Id>B</Id>${account()}${balance('OPBD', '0.00', 'CRDT', '2024-05-01')}
       ${balance('CLBD', total, 'CRDT', '2024-05-02')}
       <Ntry><NtryRef>SAMMLER-1</NtryRef><Amt Ccy="EUR">${total}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
         <Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2024-05-02</Dt></BookgDt>
         <AcctSvcrRef>ASR-77</AcctSvcrRef><AddtlNtryInf>SAMMEL-GUTSCHRIFT</AddtlNtryInf>
         <NtryDtls><Btch><NbOfTxs>${amounts.length}</NbOfTxs></Btch>
         ${amounts
           .map(
             (amount, index) => `<TxDtls>
               <Refs><EndToEndId>E2E-${index + 1}</EndToEndId></Refs>
               <AmtDtls><TxAmt><Amt Ccy="EUR">${amount}</Amt></TxAmt></AmtDtls>
               <RltdPties><Dbtr><Pty><Nm>Zahler ${index + 1}</Nm></Pty></Dbtr></RltdPties>
               <RmtInf><Ustrd>Rechnung ${index + 1}</Ustrd></RmtInf>
             </TxDtls>`,
           )
           .join('')}
         </NtryDtls></Ntry>`,
    ]);

  it('splits an entry with several TxDtls into one entry each, with its own amount and identity', () => {
    const result = parse(batch(['10.00', '20.50', '0.25'], '30.75'));
    expect(result.errors).toEqual([]);
    const [statement] = result.statements;
    expect(
      statement!.entries.map((e) => [
        e.amountMinor,
        e.counterpartyName,
        e.purpose,
        e.endToEndId,
        e.bankReference,
      ]),
    ).toEqual([
      [1000, 'Zahler 1', 'Rechnung 1', 'E2E-1', 'ASR-77/1'],
      [2050, 'Zahler 2', 'Rechnung 2', 'E2E-2', 'ASR-77/2'],
      [25, 'Zahler 3', 'Rechnung 3', 'E2E-3', 'ASR-77/3'],
    ]);
    expect(statement!.entries.every((e) => e.bookingText === 'SAMMEL-GUTSCHRIFT')).toBe(true);
    expect(balanceHolds(statement!)).toBe(true);
  });

  it('keeps a batch whose details do not add up as one booking and says why', () => {
    const result = parse(batch(['10.00', '20.00'], '30.75'));
    const [statement] = result.statements;
    expect(statement!.entries).toHaveLength(1);
    expect(statement!.entries[0]).toMatchObject({
      amountMinor: 3075,
      bankReference: 'ASR-77',
      purpose: 'SAMMEL-GUTSCHRIFT',
    });
    expect(result.errors).toEqual([
      {
        statement: 0,
        entry: 0,
        message:
          'Entry 1: its 2 transaction details cannot be booked separately (they add up to 30.00 EUR, the entry to 30.75 EUR); the entry is kept as one booking.',
      },
    ]);
    expect(balanceHolds(statement!)).toBe(true);
  });

  it('marks a batch kept as one booking with its count and the EndToEndIds it lists; a split one not', () => {
    const kept = parse(batch(['10.00', '20.00'], '30.75')).statements[0]!.entries[0]!;
    expect(kept.batch).toEqual({ references: [], count: 2, endToEndIds: ['E2E-1', 'E2E-2'] });
    const split = parse(batch(['10.00', '20.75'], '30.75')).statements[0]!.entries;
    expect(split.map((e) => e.batch)).toEqual([undefined, undefined]);
  });

  it('reads a batch booking without transaction details: Btch PmtInfId, MsgId and NbOfTxs', () => {
    const xml = camt('053', '08', [
      `<Id>B</Id>${account()}${balance('OPBD', '0.00', 'CRDT', '2024-05-01')}
       ${balance('CLBD', '2380.00', 'CRDT', '2024-05-02')}
       <Ntry><Amt Ccy="EUR">2380.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
         <BookgDt><Dt>2024-05-02</Dt></BookgDt><AcctSvcrRef>ASR-9</AcctSvcrRef>
         <NtryDtls><Btch><MsgId>sep-01jd8x0000000000000000000</MsgId>
           <PmtInfId>sep-01jd8x00000000000-FRST-20240502</PmtInfId><NbOfTxs>2</NbOfTxs>
           <TtlAmt Ccy="EUR">2380.00</TtlAmt><CdtDbtInd>CRDT</CdtDbtInd></Btch></NtryDtls></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.errors).toEqual([]);
    expect(result.statements[0]!.entries[0]).toMatchObject({
      amountMinor: 238000,
      endToEndId: null,
      batch: {
        references: ['sep-01jd8x00000000000-FRST-20240502', 'sep-01jd8x0000000000000000000'],
        count: 2,
        endToEndIds: [],
      },
    });
  });

  it('marks no batch on one transaction with its EndToEndId, even in a Btch of one', () => {
    const entry = parse(batch(['30.75'], '30.75')).statements[0]!.entries[0]!;
    expect(entry.endToEndId).toBe('E2E-1');
    expect(entry.batch).toBeUndefined();
  });

  it('books a reversal in the direction CdtDbtInd states and flags it (ISO 20022)', () => {
    // A returned incoming transfer: the bank takes 50.00 back (DBIT + RvslInd). The original
    // payer is still the debtor of the original transaction, so it is the counterparty.
    const xml = camt('053', '02', [
      `<Id>RV</Id>${account()}${balance('OPBD', '100.00', 'CRDT', '2024-06-01')}
       ${balance('CLBD', '50.00', 'CRDT', '2024-06-02')}
       <Ntry><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>true</RvslInd>
         <Sts>BOOK</Sts><BookgDt><Dt>2024-06-02</Dt></BookgDt><AcctSvcrRef>RV-1</AcctSvcrRef>
         <NtryDtls><TxDtls>
           <RltdPties><Dbtr><Nm>Falsch Überwiesen GmbH</Nm></Dbtr>
             <DbtrAcct><Id><IBAN>DE02100500000024290661</IBAN></Id></DbtrAcct>
             <Cdtr><Nm>Kontor Test AG</Nm></Cdtr></RltdPties>
           <RmtInf><Ustrd>STORNO Gutschrift</Ustrd></RmtInf>
         </TxDtls></NtryDtls></Ntry>`,
    ]);
    const [statement] = parse(xml).statements;
    expect(statement!.entries[0]).toMatchObject({
      amountMinor: -5000,
      reversal: true,
      counterpartyName: 'Falsch Überwiesen GmbH',
      counterpartyIban: 'DE02100500000024290661',
    });
    expect(balanceHolds(statement!)).toBe(true);
  });

  it('keeps a return (RtrInf) as an entry with its sign, reason and the original payer', () => {
    const xml = camt('053', '04', [
      `<Id>RT</Id>${account()}${balance('OPBD', '500.00', 'CRDT', '2024-07-01')}
       ${balance('CLBD', '497.00', 'CRDT', '2024-07-03')}
       <Ntry><Amt Ccy="EUR">50.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>
         <BookgDt><Dt>2024-07-02</Dt></BookgDt><AcctSvcrRef>LS-1</AcctSvcrRef>
         <NtryDtls><TxDtls><Refs><EndToEndId>RE-17</EndToEndId><MndtId>M-17</MndtId></Refs>
           <RltdPties><Dbtr><Nm>Kunde Meier</Nm></Dbtr>
             <DbtrAcct><Id><IBAN>DE75512108001245126199</IBAN></Id></DbtrAcct>
             <Cdtr><Nm>Kontor Test AG</Nm></Cdtr>
             <CdtrAcct><Id><IBAN>${OWN_IBAN}</IBAN></Id></CdtrAcct></RltdPties>
           <RmtInf><Ustrd>Beitrag Juli</Ustrd></RmtInf></TxDtls></NtryDtls>
         <AddtlNtryInf>SEPA-Lastschrift</AddtlNtryInf></Ntry>
       <Ntry><Amt Ccy="EUR">53.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
         <BookgDt><Dt>2024-07-03</Dt></BookgDt><AcctSvcrRef>RL-1</AcctSvcrRef>
         <NtryDtls><TxDtls><Refs><EndToEndId>RE-17</EndToEndId><MndtId>M-17</MndtId></Refs>
           <AmtDtls><TxAmt><Amt Ccy="EUR">50.00</Amt></TxAmt></AmtDtls>
           <RltdPties><Dbtr><Nm>Kunde Meier</Nm></Dbtr>
             <DbtrAcct><Id><IBAN>DE75512108001245126199</IBAN></Id></DbtrAcct></RltdPties>
           <RmtInf><Ustrd>Beitrag Juli</Ustrd></RmtInf>
           <RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>Konto erloschen</AddtlInf></RtrInf>
         </TxDtls></NtryDtls>
         <AddtlNtryInf>Retoure SEPA-Lastschrift</AddtlNtryInf></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.errors).toEqual([]);
    const [collection, returned] = result.statements[0]!.entries;
    expect(collection).toMatchObject({ amountMinor: 5000, counterpartyName: 'Kunde Meier' });
    expect(collection).not.toHaveProperty('returnReason');
    expect(returned).toMatchObject({
      amountMinor: -5300, // the entry amount: the returned 50.00 plus 3.00 return fee
      counterpartyName: 'Kunde Meier',
      counterpartyIban: 'DE75512108001245126199',
      endToEndId: 'RE-17',
      mandateReference: 'M-17',
      returnReason: 'AC04',
      reversal: false,
      bookingText: 'Retoure SEPA-Lastschrift',
    });
    expect(balanceHolds(result.statements[0]!)).toBe(true);
  });
});

describe('parseCamt: camt.052, camt.054, several statements', () => {
  it('reads a camt.052 report without closing balance and skips pending entries', () => {
    const xml = camt('052', '08', [
      `<Id>RPT-1</Id>${account()}
       ${balance('PRCD', '700.00', 'CRDT', '2024-08-01')}
       ${balance('ITBD', '640.00', 'CRDT', '2024-08-02')}
       <Ntry><Amt Ccy="EUR">60.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
         <BookgDt><Dt>2024-08-02</Dt></BookgDt><AcctSvcrRef>B-1</AcctSvcrRef></Ntry>
       <Ntry><Amt Ccy="EUR">99.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts>
         <BookgDt><Dt>2024-08-03</Dt></BookgDt></Ntry>
       <Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts>
         <BookgDt><Dt>2024-08-03</Dt></BookgDt></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.format).toBe('CAMT052');
    expect(result.statements[0]).toMatchObject({
      statementId: 'RPT-1',
      openingBalanceMinor: 70000,
      openingDate: '2024-08-01',
      closingBalanceMinor: null,
      closingDate: null,
    });
    expect(result.statements[0]!.entries.map((e) => e.amountMinor)).toEqual([-6000]);
    expect(result.errors).toEqual([
      {
        statement: 0,
        message:
          '2 entries have status PDNG (pending) and were skipped: only booked entries are imported.',
      },
    ]);
  });

  it('reads a camt.054 notification (no balances)', () => {
    const xml = camt('054', '08', [
      `<Id>N-1</Id><Acct><Id><IBAN>${OWN_IBAN}</IBAN></Id></Acct>
       <Ntry><Amt Ccy="EUR">12.34</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
         <BookgDt><Dt>2024-09-09</Dt></BookgDt><AcctSvcrRef>N1</AcctSvcrRef></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.format).toBe('CAMT054');
    expect(result.statements[0]).toMatchObject({
      currency: 'EUR',
      openingBalanceMinor: null,
      closingBalanceMinor: null,
    });
    expect(result.statements[0]!.entries[0]!.amountMinor).toBe(1234);
  });

  it('reads several statements of one message, each with its own account and balances', () => {
    const statement = (id: string, iban: string, open: string, amount: string, close: string) =>
      `<Id>${id}</Id>${account('EUR', iban)}${balance('OPBD', open, 'CRDT', '2024-10-01')}
       ${balance('CLBD', close, 'CRDT', '2024-10-01')}
       <Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
         <BookgDt><Dt>2024-10-01</Dt></BookgDt><AcctSvcrRef>${id}-1</AcctSvcrRef></Ntry>`;
    const xml = camt('053', '02', [
      statement('A', OWN_IBAN, '1.00', '2.00', '3.00'),
      statement('B', 'DE02120300000000202051', '10.00', '5.00', '15.00'),
    ]);
    const result = parse(xml);
    expect(
      result.statements.map((s) => [s.statementId, s.account, s.entries.length, balanceHolds(s)]),
    ).toEqual([
      ['A', OWN_IBAN, 1, true],
      ['B', 'DE02120300000000202051', 1, true],
    ]);
  });

  it('reads a Document wrapped in an envelope (SWIFT MX AppHdr)', () => {
    const inner = camt('053', '07', [
      `<Id>MX</Id>${account()}<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>
        <BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>`,
    ]).replace(/^<\?xml[^>]*>/, '');
    const xml = `<message><AppHdr xmlns="urn:iso:std:iso:20022:tech:xsd:head.001.001.01"><MsgDefIdr>camt.053.001.07</MsgDefIdr></AppHdr>${inner}</message>`;
    expect(parse(xml).statements[0]!.entries).toHaveLength(1);
  });
});

describe('parseCamt: amounts, dates, encodings, bad entries', () => {
  const single = (amount: string, extra = '', currency = 'EUR') =>
    camt('053', '02', [
      `<Id>X</Id>${account(currency)}
       <Ntry><Amt Ccy="${currency}">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd>
         <BookgDt><Dt>2024-01-05</Dt></BookgDt>${extra}</Ntry>
       <Ntry><Amt Ccy="${currency}">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>
         <BookgDt><Dt>2024-01-05</Dt></BookgDt></Ntry>`,
    ]);

  it('converts decimal strings to minor units exactly', () => {
    const amount = (text: string, currency = 'EUR') =>
      parse(single(text, '', currency)).statements[0]!.entries[0]!.amountMinor;
    expect(amount('0.29')).toBe(29); // 0.29 * 100 = 28.999999999999996 as a float
    expect(amount('1234567.8')).toBe(123456780);
    expect(amount('18.150')).toBe(1815); // zeros beyond the minor unit are harmless
    expect(amount('7.00000')).toBe(700);
    expect(amount('5')).toBe(500);
    expect(amount('1500', 'JPY')).toBe(1500);
    expect(amount('1.234', 'KWD')).toBe(1234);
  });

  it('reports an amount with more significant decimals than the currency has, keeps the rest', () => {
    const result = parse(single('1.23456'));
    expect(result.statements[0]!.entries.map((e) => e.amountMinor)).toEqual([-100]);
    expect(result.errors).toEqual([
      {
        statement: 0,
        entry: 0,
        message: 'Entry 1: the amount 1.23456 has more decimals than EUR has (2).',
      },
    ]);
  });

  it('reports bad entries one by one and never throws for them', () => {
    const xml = camt('053', '02', [
      `<Id>E</Id>${account()}
       <Ntry><Amt Ccy="EUR">1,50</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-05</Dt></BookgDt></Ntry>
       <Ntry><Amt Ccy="EUR">2.00</Amt><BookgDt><Dt>2024-01-05</Dt></BookgDt></Ntry>
       <Ntry><Amt>3.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-05</Dt></BookgDt></Ntry>
       <Ntry><Amt Ccy="EUR">4.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-02-30</Dt></BookgDt></Ntry>
       <Ntry><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-05</Dt></BookgDt></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.statements[0]!.entries.map((e) => e.amountMinor)).toEqual([500]);
    expect(result.errors.map((e) => [e.entry, e.message])).toEqual([
      [0, 'Entry 1: the amount "1,50" is not a decimal number.'],
      [1, 'Entry 2: the credit/debit indicator is missing (CRDT or DBIT expected).'],
      [2, 'Entry 3: the amount has no valid currency (Ccy).'],
      [3, 'Entry 4: the booking date "2024-02-30" is not a valid date.'],
    ]);
  });

  it("falls back to the value date, then the statement's date, and says so", () => {
    const xml = camt('053', '08', [
      `<Id>D</Id><FrToDt><FrDtTm>2024-02-01T00:00:00</FrDtTm><ToDtTm>2024-02-29T23:59:59</ToDtTm></FrToDt>${account()}
       <Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><ValDt><Dt>2024-02-10</Dt></ValDt></Ntry>
       <Ntry><Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry>`,
    ]);
    const result = parse(xml);
    expect(result.statements[0]!.entries.map((e) => e.bookingDate)).toEqual([
      '2024-02-10',
      '2024-02-29',
    ]);
    expect(result.errors.map((e) => e.message)).toEqual([
      'Entry 1: the entry has no booking date; its value date 2024-02-10 is used.',
      "Entry 2: the entry has no booking date; the statement's date 2024-02-29 is used.",
    ]);
  });

  it('decodes ISO-8859-1 as the XML declaration says', () => {
    const xml = camt(
      '052',
      '08',
      [
        `<Id>L1</Id>${account()}<Ntry><Amt Ccy="EUR">5.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>
           <Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2025-09-09</Dt></BookgDt>
           <NtryDtls><TxDtls><RltdPties><Cdtr><Pty><Nm>Grüße aus München</Nm></Pty></Cdtr></RltdPties>
           <RmtInf><Ustrd>Café Ünique – Schrödinger</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`.replace(
          '–',
          '-',
        ),
      ],
      { encoding: 'ISO-8859-1' },
    );
    const bytes = Buffer.from(xml, 'latin1');
    expect(bytes.includes(Buffer.from('Grüße', 'utf8'))).toBe(false);
    const entry = parse(bytes).statements[0]!.entries[0]!;
    expect(entry.counterpartyName).toBe('Grüße aus München');
    expect(entry.purpose).toBe('Café Ünique - Schrödinger');
  });

  it('reads NOTPROVIDED end-to-end references as none', () => {
    const entry = (id: string) =>
      parse(
        single(
          '1.00',
          `<NtryDtls><TxDtls><Refs><EndToEndId>${id}</EndToEndId></Refs></TxDtls></NtryDtls>`,
        ),
      ).statements[0]!.entries[0]!.endToEndId;
    expect(entry('NOTPROVIDED')).toBeNull();
    expect(entry('notprovided')).toBeNull();
    expect(entry('NOT PROVIDED')).toBeNull();
    expect(entry('RE-1')).toBe('RE-1');
  });

  it('refuses DOCTYPEs (no XXE, no entity expansion) and malformed XML', () => {
    const xxe = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${V02.replace(/^<\?xml[^>]*>/, '').replace('Muster  GmbH', '&x;')}`;
    expect(refusal(xxe).message).toBe(
      'The XML contains a DOCTYPE or entity declaration, which is not accepted.',
    );
    expect(refusal(V02.replace('Muster  GmbH', '&nbsp;')).message).toMatch(
      /^The XML is not well-formed: Unknown or malformed entity reference "&nbsp;" \(line \d+\)\.$/,
    );
    expect(refusal(V02.replace('</Ntry>', '</Ntr>')).message).toMatch(
      /^The XML is not well-formed: End tag <\/Ntr> does not match <Ntry> \(line \d+\)\.$/,
    );
    expect(refusal(V02.slice(0, V02.length - 20)).code).toBe('file_unprocessable');
    expect(refusal(Buffer.from([0x3c, 0x3f, 0x78, 0xff, 0xfe, 0x00])).code).toBe(
      'file_unprocessable',
    );
  });
});

describe('parseStatementFile on damaged CAMT', () => {
  it('answers statements or refuses with file_unprocessable, never anything else', () => {
    const source = Buffer.from(V02);
    const tokens = [
      '<',
      '>',
      '</Ntry>',
      '<Ntry>',
      '&',
      '&#0;',
      '"',
      'DBIT',
      '-1.00',
      '\u0000',
      'é',
    ];
    fc.assert(
      fc.property(
        fc.nat({ max: source.length }),
        fc.nat({ max: 40 }),
        fc.constantFrom(...tokens),
        (at, cut, token) => {
          const damaged = Buffer.concat([
            source.subarray(0, at),
            Buffer.from(token),
            source.subarray(Math.min(source.length, at + cut)),
          ]);
          try {
            const result = parseStatementFile(damaged);
            for (const statement of result.statements)
              for (const entry of statement.entries)
                expect(Number.isSafeInteger(entry.amountMinor)).toBe(true);
          } catch (error) {
            expect(error).toBeInstanceOf(AppError);
            expect((error as AppError).code).toBe('file_unprocessable');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('camt-xml reader', () => {
  it('decodes entities and CDATA, strips prefixes, reports the namespace', () => {
    const { root, rootNamespace } = readXml(
      `<?xml version="1.0"?><!-- c --><p:Doc xmlns:p="urn:x" a='1 &lt; 2'><p:T>A &amp; B &#228;&#x20AC;<![CDATA[<raw>]]></p:T><E/></p:Doc>`,
    );
    expect(rootNamespace).toBe('urn:x');
    expect(root.name).toBe('Doc');
    expect(root.attributes).toEqual(['xmlns:p', 'urn:x', 'a', '1 < 2']);
    expect(root.children.map((c) => [c.name, c.text])).toEqual([
      ['T', 'A & B ä€<raw>'],
      ['E', ''],
    ]);
  });

  it.each([
    ['<a><b></a>', 'End tag </a> does not match <b>'],
    ['<a>', 'Element <a> is not closed'],
    ['<a></a><b></b>', 'More than one document element'],
    ['text<a/>', 'Text outside the document element'],
    ['<a x=1></a>', 'Attribute x is not quoted'],
    ['<a x="1" x="2"></a>', 'Duplicate attribute x'],
    ['<a>&bogus;</a>', 'Unknown or malformed entity reference "&bogus;"'],
    ['<a>&#0;</a>', 'Unknown or malformed entity reference "&#0;"'],
    ['', 'The document has no element'],
    [`${'<a>'.repeat(101)}${'</a>'.repeat(101)}`, 'Elements nested deeper than 100 levels'],
  ])('refuses %s', (xml, message) => {
    expect(() => readXml(xml)).toThrow(message);
  });
});

/** A camt.053.001.08 with `count` single-transaction entries, as a large bank would send it. */
function largeStatement(count: number): { xml: Buffer; closing: number } {
  const parts = [
    `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>BIG</MsgId><CreDtTm>2024-01-31T20:00:00+01:00</CreDtTm></GrpHdr><Stmt><Id>BIG-1</Id>
${account()}${balance('OPBD', '1000.00', 'CRDT', '2024-01-01')}`,
  ];
  let total = 100000;
  for (let i = 0; i < count; i++) {
    const minor = 100 + ((i * 7919) % 900000);
    const credit = i % 3 !== 0;
    total += credit ? minor : -minor;
    const amount = `${Math.trunc(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
    const [role, other] = credit ? ['Dbtr', 'Cdtr'] : ['Cdtr', 'Dbtr'];
    parts.push(`
<Ntry><NtryRef>${i}</NtryRef><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2024-01-${String(1 + (i % 28)).padStart(2, '0')}</Dt></BookgDt><ValDt><Dt>2024-01-${String(1 + (i % 28)).padStart(2, '0')}</Dt></ValDt><AcctSvcrRef>ASR${i}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>E2E-${i}</EndToEndId></Refs><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>${credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><RltdPties><${role}><Pty><Nm>Geschäftspartner ${i % 500} GmbH</Nm></Pty></${role}><${role}Acct><Id><IBAN>DE02120300000000202051</IBAN></Id></${role}Acct><${other}><Pty><Nm>Kontor Test AG</Nm></Pty></${other}></RltdPties><RltdAgts><${role}Agt><FinInstnId><BICFI>BYLADEM1001</BICFI></FinInstnId></${role}Agt></RltdAgts><RmtInf><Ustrd>Rechnung RE-2024-${String(i).padStart(5, '0')} vom 02.01.2024, Kundennummer 4711</Ustrd></RmtInf></TxDtls></NtryDtls><AddtlNtryInf>${credit ? 'SEPA-Gutschrift' : 'SEPA-Lastschrift'}</AddtlNtryInf></Ntry>`);
  }
  const closing = `${Math.trunc(Math.abs(total) / 100)}.${String(Math.abs(total) % 100).padStart(2, '0')}`;
  parts.push(
    `\n${balance('CLBD', closing, total < 0 ? 'DBIT' : 'CRDT', '2024-01-31')}</Stmt></BkToCstmrStmt></Document>`,
  );
  return { xml: Buffer.from(parts.join('')), closing: total };
}

describe('parseCamt: size', () => {
  it('parses a generated 50 000-entry camt.053 (time printed, not asserted)', () => {
    const { xml, closing } = largeStatement(50_000);
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = parseStatementFile(xml);
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - started;
    report(
      `camt.053 with 50 000 entries (${(xml.length / 1e6).toFixed(1)} MB): parsed in ${elapsed.toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms)\n`,
    );
    expect(result.errors).toEqual([]);
    const [statement] = result.statements;
    expect(statement!.entries).toHaveLength(50_000);
    expect(statement!.closingBalanceMinor).toBe(closing);
    expect(balanceHolds(statement!)).toBe(true);
    expect(statement!.entries[49_999]).toMatchObject({
      bankReference: 'ASR49999',
      counterpartyName: 'Geschäftspartner 499 GmbH',
      purpose: 'Rechnung RE-2024-49999 vom 02.01.2024, Kundennummer 4711',
    });
  });
});
