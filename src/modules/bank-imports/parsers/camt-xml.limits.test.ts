import { describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.js';
import { CAMT_XML_LIMITS, readXml } from './camt-xml.js';
import { parseStatementFile } from './index.js';
import { report } from '../../../../test/report.js';

/**
 * Issue 11: the CAMT reader is linear and bounded. Each hostile shape goes through
 * `parseStatementFile`, as an upload would, and must be refused with `file_unprocessable`
 * naming the cap. The assertions are on the answer, not on time; the time is printed.
 */

/** A camt.053 whose one entry carries `inner` (markup) in place of its remittance text. */
function hostileCamt(inner: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>
<GrpHdr><MsgId>M</MsgId><CreDtTm>2026-03-01T00:00:00</CreDtTm></GrpHdr>
<Stmt><Id>1</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
<Ntry><Amt Ccy="EUR">1.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
<BookgDt><Dt>2026-03-02</Dt></BookgDt><NtryDtls><TxDtls><RmtInf>${inner}</RmtInf></TxDtls></NtryDtls></Ntry>
</Stmt></BkToCstmrStmt></Document>`;
}

/** `<Ustrd>` with `count` attributes `a0="1" a1="1" …` (80 000 took 26 s before issue 11). */
function manyAttributes(count: number): string {
  const attributes = Array.from({ length: count }, (_, i) => `a${i}="1"`).join(' ');
  return hostileCamt(`<Ustrd ${attributes}>x</Ustrd>`);
}

function refusal(xml: string): { error: AppError; ms: number } {
  const started = performance.now();
  try {
    parseStatementFile(Buffer.from(xml));
  } catch (error) {
    if (error instanceof AppError) return { error, ms: performance.now() - started };
    throw error;
  }
  throw new Error('expected a refusal');
}

function expectRefused(label: string, xml: string, cap: RegExp): void {
  const { error, ms } = refusal(xml);
  report(
    `camt ${label}: ${(xml.length / 1e6).toFixed(1)} M chars refused in ${ms.toFixed(0)} ms\n`,
  );
  expect(error.code).toBe('file_unprocessable');
  expect(error.status).toBe(422);
  expect(error.message).toMatch(/^The XML exceeds a reading limit: /);
  expect(error.message).toMatch(cap);
}

describe('CAMT reader limits', () => {
  it('refuses an element with 80 000 attributes', () => {
    expectRefused(
      '80 000 attributes',
      manyAttributes(80_000),
      /An element with more than 256 attributes \(line \d+\)/,
    );
  });

  it('refuses 100 000 nested elements without overflowing the stack', () => {
    const deep = '<x>'.repeat(100_000) + '</x>'.repeat(100_000);
    expectRefused('100 000 levels', hostileCamt(deep), /Elements nested deeper than 100 levels/);
  });

  it('refuses a 50 MB text node, and a 50 MB attribute value', () => {
    const big = 'x'.repeat(50 * 1024 * 1024);
    expectRefused(
      '50 MB text',
      hostileCamt(`<Ustrd>${big}</Ustrd>`),
      /An element text longer than 65536 characters/,
    );
    expectRefused(
      '50 MB CDATA',
      hostileCamt(`<Ustrd><![CDATA[${big}]]></Ustrd>`),
      /An element text longer than 65536 characters/,
    );
    expectRefused(
      '50 MB attribute',
      hostileCamt(`<Ustrd a="${big}">x</Ustrd>`),
      /An attribute value longer than 65536 characters/,
    );
  });

  it('refuses text split by comments once the pieces add up past the cap', () => {
    const pieces = 'x'.repeat(1000) + '<!---->';
    expectRefused(
      'split text',
      hostileCamt(`<Ustrd>${pieces.repeat(100)}</Ustrd>`),
      /An element text longer than 65536 characters/,
    );
  });

  it('refuses more than a million character references', () => {
    // 12 000 per node stays under the text cap; 100 nodes are 1.2 million references.
    const node = `<Ustrd>${'&#65;'.repeat(12_000)}</Ustrd>`;
    expectRefused(
      '1.2 M references',
      hostileCamt(node.repeat(100)),
      /More than 1000000 character or entity references/,
    );
  });

  it('refuses more elements than it may hold at once', () => {
    expectRefused(
      '300 000 elements',
      hostileCamt('<b/>'.repeat(300_000)),
      /More than 250000 elements held at once/,
    );
  });

  it('still reads legal documents: references, many distinct attributes, duplicates found', () => {
    const { root } = readXml(
      `<a ${Array.from({ length: 256 }, (_, i) => `a${i}="&lt;${i}&#x41;"`).join(' ')}>&amp;&#228;</a>`,
    );
    expect(root.attributes).toHaveLength(512);
    expect(root.attributes?.[1]).toBe('<0A');
    expect(root.text).toBe('&ä');
    // Past the pairwise check, the Set still finds a duplicate, wherever it is.
    const names = Array.from({ length: 20 }, (_, i) => `a${i}="1"`);
    expect(() => readXml(`<a ${names.join(' ')} a3="2"/>`)).toThrow('Duplicate attribute a3');
    expect(() => readXml(`<a ${names.join(' ')} a19="2"/>`)).toThrow('Duplicate attribute a19');
    expect(() => readXml('<a>&constructor;</a>')).toThrow('Unknown or malformed entity reference');
    expect(() => readXml('<a>&#xD800;</a>')).toThrow('Unknown or malformed entity reference');
  });

  it('counts only the elements it holds: consumed ones give their subtree back', () => {
    const xml = `<r>${'<b><c/><c/></b>'.repeat(100)}</r>`;
    const limits = { elements: 10 };
    expect(readXml(xml, { limits, onClose: (e) => e.name === 'b' }).root.children).toEqual([]);
    expect(() => readXml(xml, { limits })).toThrow(/More than 10 elements held at once/);
  });

  it('answers its caps', () => {
    expect(CAMT_XML_LIMITS).toMatchObject({
      attributes: 256,
      depth: 100,
      textChars: 65_536,
      elements: 250_000,
      references: 1_000_000,
    });
  });
});
