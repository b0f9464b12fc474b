import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { parseEInvoiceXml } from '../einvoice/read.js';
import { ciiSample } from './pdf.test-support.js';
import { parseXml, XML_LIMITS } from './xml.js';
import { report } from '../../../test/report.js';

/**
 * Issue 11: the e-invoice XML reader is linear and bounded. Each hostile shape goes through
 * `parseEInvoiceXml` and must be refused with `file_unprocessable` naming the cap, never a
 * 500 and never after seconds of parsing. Times are printed, not asserted.
 */

const UBL = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';

/** A UBL invoice root holding `inner`. */
function invoice(inner: string, rootAttributes = ''): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="${UBL}"${rootAttributes}><ID>1</ID>${inner}</Invoice>`;
}

function refusal(xml: string): { error: AppError; ms: number } {
  const started = performance.now();
  try {
    parseEInvoiceXml(xml);
  } catch (error) {
    if (error instanceof AppError) return { error, ms: performance.now() - started };
    throw error;
  }
  throw new Error('expected a refusal');
}

function expectRefused(label: string, xml: string, cap: RegExp): void {
  const { error, ms } = refusal(xml);
  report(
    `e-invoice ${label}: ${(xml.length / 1e6).toFixed(1)} M chars refused in ${ms.toFixed(0)} ms\n`,
  );
  expect(error.code).toBe('file_unprocessable');
  expect(error.status).toBe(422);
  expect(error.message).toMatch(cap);
}

const attributes = (count: number) =>
  Array.from({ length: count }, (_, i) => ` a${i}="1"`).join('');

describe('e-invoice XML reader limits', () => {
  it('refuses an element with 80 000 attributes, on the root or below it', () => {
    expectRefused(
      '80 000 attributes',
      invoice(`<Note${attributes(80_000)}>x</Note>`),
      /^The XML exceeds a reading limit: An element with more than 256 attributes \(line 2\)\.$/,
    );
    expectRefused(
      '80 000 root attributes',
      invoice('', attributes(80_000)),
      /An element with more than 256 attributes/,
    );
  });

  it('refuses 100 000 nested elements with a 422, not a parser exception', () => {
    const deep = '<x>'.repeat(100_000) + '</x>'.repeat(100_000);
    expectRefused('100 000 levels', invoice(deep), /Elements nested deeper than 100 levels/);
  });

  it('refuses a 50 MB text node (over the size cap) and a text node over the text cap', () => {
    expectRefused(
      '50 MB text',
      invoice(`<Note>${'x'.repeat(50 * 1024 * 1024)}</Note>`),
      /characters; at most 20971520 are read/,
    );
    expectRefused(
      '17 MB text',
      invoice(`<Note>${'x'.repeat(17 * 1024 * 1024)}</Note>`),
      /An element text longer than 16777216 characters/,
    );
    expectRefused(
      '17 MB attribute',
      invoice(`<Note a="${'x'.repeat(17 * 1024 * 1024)}"/>`),
      /An attribute value longer than 16777216 characters/,
    );
  });

  it('refuses more than 100 000 character references', () => {
    expectRefused(
      '200 000 references',
      invoice(`<Note>${'&#65;&amp;'.repeat(100_000)}</Note>`),
      /More than 100000 character or entity references/,
    );
  });

  it('refuses more than 250 000 elements', () => {
    expectRefused(
      '300 000 elements',
      invoice('<Note/>'.repeat(300_000)),
      /More than 250000 elements/,
    );
  });

  it('still reads a real invoice and finds the root namespace through a prefix', () => {
    expect(parseEInvoiceXml(ciiSample()).seller.name).toBeTruthy();
    const parsed = parseXml(
      `<?xml version="1.0"?><!-- c --><p:Doc xmlns:p="urn:x&amp;y"${attributes(255)}><p:T>A</p:T></p:Doc>`,
      1_000_000,
    );
    expect(parsed).toMatchObject({ rootName: 'Doc', rootNamespace: 'urn:x&y' });
    expect(XML_LIMITS).toEqual({
      attributes: 256,
      depth: 100,
      textChars: 16 * 1024 * 1024,
      elements: 250_000,
      references: 100_000,
    });
  });
});
