import { describe, expect, it } from 'vitest';
import type { DocumentRow, StoredLine, StoredTaxLine } from './documents.repository.js';
import { invoiceTableHtml, templateShowsLines } from './invoice-table.js';

function row(lines: StoredLine[], taxes: StoredTaxLine[], extra: Partial<DocumentRow> = {}) {
  const net = lines.reduce((s, l) => s + l.netMinor, 0);
  const tax = taxes.reduce((s, t) => s + t.taxMinor, 0);
  return {
    document_type: 'INVOICE',
    currency: 'EUR',
    line_items: JSON.stringify(lines),
    tax_breakdown: JSON.stringify(taxes),
    net_total: net,
    tax_total: tax,
    gross_total: net + tax,
    due_date: null,
    ...extra,
  } as DocumentRow;
}

const line = (over: Partial<StoredLine>): StoredLine => ({
  productId: null,
  description: 'Leistung',
  quantityMilli: 1000,
  unitPriceMinor: 100,
  taxRateId: 'txr_a',
  rateBp: 1900,
  netMinor: 100,
  ...over,
});

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
const german = { numberFormat: '1.234,56', dateFormat: 'DD.MM.YYYY' } as const;

describe('invoice table', () => {
  it('writes quantities, prices, rates and totals from integers in the account format', () => {
    const html = invoiceTableHtml(
      row(
        [
          line({
            description: 'Kleinteile',
            quantityMilli: 5,
            unitPriceMinor: 123_456,
            netMinor: 617,
            rateBp: 550,
          }),
          line({
            description: 'Arbeit',
            quantityMilli: 1_234_500,
            unitPriceMinor: 100,
            netMinor: 123_450,
          }),
        ],
        [
          { taxRateId: 'txr_a', rateBp: 1900, netMinor: 123_450, taxMinor: 23_456 },
          { taxRateId: 'txr_b', rateBp: 550, netMinor: 617, taxMinor: 34 },
        ],
        { due_date: '2026-12-01' },
      ),
      german,
    )!;
    const t = text(html);
    expect(t).toContain('1 Kleinteile 0,005 1.234,56 € 5,5 % 6,17 €');
    expect(t).toContain('2 Arbeit 1.234,5 1,00 € 19 % 1.234,50 €');
    expect(t).toContain('Nettobetrag 1.240,67 €');
    expect(t).toContain('zzgl. 19 % USt. auf 1.234,50 € 234,56 €');
    expect(t).toContain('zzgl. 5,5 % USt. auf 6,17 € 0,34 €');
    expect(t).toContain('Gesamtbetrag 1.475,57 €');
    expect(t).toContain('Zahlbar bis 01.12.2026.');
  });

  it('escapes descriptions and follows the English number format', () => {
    const html = invoiceTableHtml(
      row([line({ description: '<img src=x onerror=alert(1)> "A" & \'B\'' })], [], {
        currency: 'GBP',
      }),
      { numberFormat: '1,234.56', dateFormat: 'DD/MM/YYYY' },
    )!;
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt; &quot;A&quot; &amp; &#39;B&#39;');
    expect(text(html)).toContain('£1.00');
    expect(html).not.toContain('Zahlbar');
  });

  it('writes units, VAT categories and exemption reasons; no due date on a credit note', () => {
    const reason = 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)';
    const html = invoiceTableHtml(
      row(
        [
          line({ description: 'Montage', quantityMilli: 2500, unitCode: 'HUR', rateBp: 0 }),
          line({ description: 'Anfahrt', unitCode: 'C62', rateBp: 0, taxCategory: 'AE' }),
        ],
        [
          {
            taxRateId: 'txr_a',
            rateBp: 0,
            netMinor: 200,
            taxMinor: 0,
            category: 'AE',
            exemptionReason: reason,
          },
        ],
        { due_date: '2026-12-01', invoice_type: 'CREDIT_NOTE' },
      ),
      german,
    )!;
    const t = text(html);
    expect(t).toContain('1 Montage 2,5 Std.');
    expect(t).toContain('2 Anfahrt 1 Stk. 1,00 €');
    expect(t).toContain('zzgl. 0 % USt. (Reverse Charge) auf 2,00 € 0,00 €');
    expect(t).toContain(reason);
    expect(t).not.toContain('Zahlbar');
  });

  it('is only for invoices with lines', () => {
    expect(invoiceTableHtml(row([], []), german)).toBeUndefined();
    expect(
      invoiceTableHtml(row([line({})], [], { document_type: 'CONTRACT' }), german),
    ).toBeUndefined();
  });

  it('sees when a template lays out the lines itself', () => {
    expect(templateShowsLines(['{% for l in document.lineItems %}{% endfor %}', null])).toBe(true);
    expect(templateShowsLines(['x', '{{ document . lineItems.size }}'])).toBe(true);
    expect(templateShowsLines(["{% assign l = document['lineItems'] %}"])).toBe(true);
    expect(templateShowsLines(['{{ document.grossTotal }} lineItems', null, null])).toBe(false);
    expect(templateShowsLines(['{{ mydocument.lineItemsCount }}'])).toBe(false);
  });
});
