import { describe, expect, it } from 'vitest';
import { compileTemplate, renderTemplate } from './compile.js';
import { buildRenderContext, type AccountData } from './context.js';
import { sampleData } from './sample-data.js';

const account: AccountData = {
  name: 'Kontor GmbH',
  currency: 'EUR',
  dateFormat: 'DD.MM.YYYY',
  numberFormat: '1.234,56',
};
const today = '2026-03-05';

describe('render context: the document', () => {
  it('takes a presented invoice as it is and offers its amounts in minor units', () => {
    const context = buildRenderContext({
      account,
      today,
      document: {
        name: 'Rechnung',
        documentType: 'INVOICE',
        documentNumber: '2026-0007',
        creationDate: '2026-03-01',
        dueDate: '2026-03-15',
        currency: 'EUR',
        lineItems: [
          {
            description: 'Beratung',
            quantity: 1.5,
            unitPrice: 100.01,
            netAmount: 150.02,
            taxRate: 19,
          },
          // Stored JSON may hold anything: non-objects are skipped, odd members become null.
          'nonsense' as never,
          { description: 7, quantity: 'x', unitPrice: 0.001, taxRate: 5.5 } as never,
        ],
        taxes: [{ rate: 19, net: 150.02, tax: 28.5 }],
        netTotal: 150.02,
        taxTotal: 28.5,
        grossTotal: 178.52,
      },
    });
    expect(context.document).toEqual({
      name: 'Rechnung',
      documentType: 'INVOICE',
      documentNumber: '2026-0007',
      creationDate: '2026-03-01',
      dueDate: '2026-03-15',
      currency: 'EUR',
      lineItems: [
        {
          description: 'Beratung',
          quantity: 1.5,
          unitPrice: 10001,
          netAmount: 15002,
          taxRate: 19,
          taxCategory: null,
          unitCode: null,
          unit: '',
        },
        {
          description: null,
          quantity: null,
          unitPrice: null,
          netAmount: null,
          taxRate: 5.5,
          taxCategory: null,
          unitCode: null,
          unit: '',
        },
      ],
      taxes: [
        {
          rate: 19,
          net: 15002,
          tax: 2850,
          category: 'S',
          exemptionReason: null,
          exemptionCode: null,
        },
      ],
      netTotal: 15002,
      taxTotal: 2850,
      grossTotal: 17852,
      // An invoice without an invoiceType is an INVOICE; the other invoice fields are null.
      invoiceType: 'INVOICE',
      deliveryDate: null,
      servicePeriod: null,
      buyerReference: null,
      orderReference: null,
      paymentTerms: null,
      skontoPercent: null,
      skontoDays: null,
      note: null,
      precedingDocumentId: null,
      precedingDocumentNumber: null,
      precedingDocumentDate: null,
      cancelledByDocumentId: null,
      downPaymentDeductions: [],
      prepaidAmount: null,
      validUntil: null,
      originDocumentNumber: null,
    });
  });

  it('defaults to the account currency, no lines and null totals; an unknown currency writes no amounts', () => {
    const plain = buildRenderContext({ account, today, document: { name: 'Brief' } });
    expect(plain.document).toMatchObject({
      currency: 'EUR',
      lineItems: [],
      taxes: [],
      netTotal: null,
      grossTotal: null,
      dueDate: null,
    });
    const odd = buildRenderContext({
      account,
      today,
      document: { currency: 'XXY', grossTotal: 12, lineItems: [{ unitPrice: 1 }] },
    });
    expect(odd.document).toMatchObject({ currency: 'XXY', grossTotal: null });
    expect(odd.document?.lineItems[0]?.unitPrice).toBeNull();
    // Three decimals are not euros: not written rather than rounded.
    const precise = buildRenderContext({ account, today, document: { grossTotal: 1.005 } });
    expect(precise.document?.grossTotal).toBeNull();
  });

  it('lets a template loop over the lines and write them with the money and number filters', () => {
    const source =
      '{% for line in document.lineItems %}<p>{{ forloop.index }}. {{ line.description }}: ' +
      '{{ line.quantity | number }} × {{ line.unitPrice | money: document.currency }} = ' +
      '{{ line.netAmount | money: document.currency }} ({{ line.taxRate | number }} %)</p>{% endfor %}' +
      '{% for tax in document.taxes %}<p>USt {{ tax.rate }} % auf {{ tax.net | money: document.currency }}: {{ tax.tax | money: document.currency }}</p>{% endfor %}' +
      '<p>{{ document.lineItems.size }} Positionen, {{ document.netTotal | money: document.currency }} + {{ document.taxTotal | money: document.currency }} = {{ document.grossTotal | money: document.currency }}, fällig {{ document.dueDate | date }}</p>';
    // With the samples: an invoice at 19 % and 7 %, due 14 days after today.
    const sample = compileTemplate({ contentSource: source }, { account, today });
    expect(sample.problems).toEqual([]);
    expect(sample.compiledContentHtml).toBe(
      '<p>1. Wartung Heizungsanlage (Jahrespauschale): 1 × 850,00 € = 850,00 € (19 %)</p>' +
        '<p>2. Anfahrt: 2 × 45,50 € = 91,00 € (19 %)</p>' +
        '<p>3. Fachbuch Heizungstechnik: 1 × 29,90 € = 29,90 € (7 %)</p>' +
        '<p>USt 19 % auf 941,00 €: 178,79 €</p><p>USt 7 % auf 29,90 €: 2,09 €</p>' +
        '<p>3 Positionen, 970,90 € + 180,88 € = 1.151,78 €, fällig 19.03.2026</p>',
    );

    // A real document in the English format and another currency; descriptions are escaped.
    const rendered = renderTemplate(
      { contentSource: source },
      buildRenderContext({
        account: { ...account, numberFormat: '1,234.56', dateFormat: 'DD/MM/YYYY' },
        today,
        document: {
          currency: 'GBP',
          dueDate: '2026-04-01',
          lineItems: [
            {
              description: '<b>Design</b> & build',
              quantity: 1234.5,
              unitPrice: 10,
              netAmount: 12345,
              taxRate: 20,
            },
          ],
          taxes: [{ rate: 20, net: 12345, tax: 2469 }],
          netTotal: 12345,
          taxTotal: 2469,
          grossTotal: 14814,
        },
      }),
    );
    expect(rendered.contentHtml).toBe(
      '<p>1. &lt;b&gt;Design&lt;/b&gt; &amp; build: 1,234.5 × £10.00 = £12,345.00 (20 %)</p>' +
        '<p>USt 20 % auf £12,345.00: £2,469.00</p>' +
        '<p>1 Positionen, £12,345.00 + £2,469.00 = £14,814.00, fällig 01/04/2026</p>',
    );
  });

  it('knows the members of lines and taxes for the unknown-placeholder check', () => {
    const result = compileTemplate(
      {
        contentSource:
          '{{ document.lineItems.first.description }} {{ document.lineItems.first.price }} {{ document.taxes[0].rate }} {{ document.total }}',
      },
      { account, today },
    );
    expect(result.problems.map((p) => p.placeholder)).toEqual([
      'document.lineItems.first.price',
      'document.total',
    ]);
  });

  it('has sample invoice figures that add up (VAT per rate on the net sum, half-up)', () => {
    const { document } = sampleData(today, 'EUR');
    const lines = document!.lineItems!;
    const cents = (n: number | null | undefined) => Math.round((n ?? 0) * 100);
    for (const l of lines)
      expect(cents(l.netAmount)).toBe(Math.round(cents(l.unitPrice) * (l.quantity ?? 0)));
    const net = lines.reduce((s, l) => s + cents(l.netAmount), 0);
    expect(net).toBe(cents(document!.netTotal));
    for (const t of document!.taxes!) {
      const rateNet = lines
        .filter((l) => l.taxRate === t.rate)
        .reduce((s, l) => s + cents(l.netAmount), 0);
      expect(cents(t.net)).toBe(rateNet);
      expect(cents(t.tax)).toBe(Math.round((rateNet * (t.rate ?? 0)) / 100));
    }
    expect(cents(document!.taxTotal)).toBe(document!.taxes!.reduce((s, t) => s + cents(t.tax), 0));
    expect(cents(document!.grossTotal)).toBe(net + cents(document!.taxTotal));
  });
});
