import { describe, expect, it } from 'vitest';
import { toCii } from './cii.js';
import { buildEnInvoice, einvoiceScenarios, SELLER } from './fixtures.test-support.js';
import { parseEInvoiceXml } from './read.js';
import type { EnInvoice } from './model.js';
import { toUbl } from './ubl.js';
import { canValidate, describeErrors, validateAll } from './validator.test-support.js';
import { report } from '../../../test/report.js';

/**
 * Every scenario in CII and UBL as XRechnung, and in CII also as plain EN 16931 (what a
 * ZUGFeRD/Factur-X EN 16931 PDF embeds); plus one with markup characters in names.
 */

interface Rendered {
  name: string;
  invoice: EnInvoice;
  xml: string;
}

const escaping = buildEnInvoice({
  number: '2026-<&>"-1',
  seller: { ...SELLER, name: 'Müller & Söhne <"Technik"> GmbH' },
  notes: ['a < b && c > "d"', 'Steuer\u0007zeichen entfernt'],
});

function render(): Rendered[] {
  const out: Rendered[] = [];
  for (const { name, invoice } of [
    ...einvoiceScenarios(),
    { name: 'escaping', invoice: escaping },
  ]) {
    out.push({ name: `${name}.xrechnung.cii.xml`, invoice, xml: toCii(invoice) });
    out.push({ name: `${name}.xrechnung.ubl.xml`, invoice, xml: toUbl(invoice) });
    const en16931: EnInvoice = { ...invoice, specification: 'EN16931' };
    out.push({ name: `${name}.en16931.cii.xml`, invoice: en16931, xml: toCii(en16931) });
  }
  return out;
}

const rendered = render();

describe.skipIf(!canValidate())('KoSIT validation (XRechnung 3.0.2 configuration)', () => {
  it('accepts every serialized variant', () => {
    const results = validateAll(rendered.map((r) => ({ name: r.name, bytes: r.xml })));
    const verdicts = results.map(
      (r) =>
        `${r.valid ? 'VALID  ' : 'INVALID'} ${r.file} (${r.errors} errors, ${r.warnings} warnings) ${r.scenario ?? ''}`,
    );
    report(`${verdicts.join('\n')}\n`);
    for (const [i, result] of results.entries()) {
      const { name, invoice } = rendered[i]!;
      expect(result.valid, `${name}:\n${describeErrors(result)}`).toBe(true);
      if (invoice.specification === 'XRECHNUNG') expect(result.scenario, name).toMatch(/XRechnung/);
      else expect(result.scenario, name).not.toMatch(/XRechnung/);
    }
  }, 60_000);
});

describe('toCii and toUbl', () => {
  it.each(rendered.map((r) => [r.name, r] as const))('%s reads back with the same data', (_, r) => {
    const { invoice } = r;
    const read = parseEInvoiceXml(r.xml);
    expect(read.syntax).toBe(r.name.endsWith('.cii.xml') ? 'CII' : 'UBL');
    expect(read.documentNumber).toBe(invoice.number);
    expect(read.documentType).toBe(invoice.typeCode);
    expect(read.kind).toBe(invoice.typeCode === '381' ? 'CREDIT_NOTE' : 'INVOICE');
    expect(read.issueDate).toBe(invoice.issueDate);
    expect(read.dueDate).toBe(invoice.dueDate);
    expect(read.currency).toBe(invoice.currency);
    expect(read.buyerReference).toBe(invoice.buyerReference);
    expect(read.paymentReference).toBe(invoice.payment?.remittanceInformation);
    expect(read.seller.name).toBe(invoice.seller.name);
    expect(read.seller.vatId).toBe(invoice.seller.vatId);
    expect(read.seller.taxNumber).toBe(invoice.seller.taxNumber);
    expect(read.buyer.name).toBe(invoice.buyer.name);
    expect(read.buyer.vatId).toBe(invoice.buyer.vatId);
    expect(read.lineCount).toBe(invoice.lines.length);
    expect(read.totals).toEqual({
      netMinor: invoice.totals.taxExclusiveMinor,
      taxMinor: invoice.totals.taxMinor,
      grossMinor: invoice.totals.taxInclusiveMinor,
      dueMinor: invoice.totals.payableMinor,
    });
    expect(read.warnings).toEqual([]);
  });

  it('writes the same bytes for the same invoice', () => {
    for (const { invoice } of einvoiceScenarios()) {
      expect(toCii(invoice)).toBe(toCii(structuredClone(invoice)));
      expect(toUbl(invoice)).toBe(toUbl(structuredClone(invoice)));
    }
  });

  it('escapes markup characters and drops control characters', () => {
    for (const xml of [toCii(escaping), toUbl(escaping)]) {
      expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
      expect(xml).toContain('Müller &amp; Söhne &lt;&quot;Technik&quot;&gt; GmbH');
      expect(xml).toContain('Steuerzeichen entfernt');
      const read = parseEInvoiceXml(xml);
      expect(read.seller.name).toBe('Müller & Söhne <"Technik"> GmbH');
      expect(read.documentNumber).toBe('2026-<&>"-1');
    }
  });

  it('writes BT-25 and BT-26 of a credit note in both syntaxes', () => {
    const note = einvoiceScenarios().find((s) => s.name === 'credit-note')!.invoice;
    expect(toCii(note)).toMatch(
      /<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>2026-0001<\/ram:IssuerAssignedID>\s*<ram:FormattedIssueDateTime>\s*<qdt:DateTimeString format="102">20261120<\/qdt:DateTimeString>/,
    );
    const ubl = toUbl(note);
    expect(ubl).toMatch(/^<\?xml[^>]*>\n<CreditNote /);
    expect(ubl).toMatch(
      /<cac:InvoiceDocumentReference>\s*<cbc:ID>2026-0001<\/cbc:ID>\s*<cbc:IssueDate>2026-11-20<\/cbc:IssueDate>/,
    );
    expect(ubl).toContain('<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>');
    expect(ubl).toContain('<cbc:CreditedQuantity unitCode="HUR">12.5</cbc:CreditedQuantity>');
  });

  it('always writes the CII header trade delivery, empty without delivery data', () => {
    const period = einvoiceScenarios().find((s) => s.name === 'service-period')!.invoice;
    expect(toCii(period)).toContain('<ram:ApplicableHeaderTradeDelivery/>');
  });
});
