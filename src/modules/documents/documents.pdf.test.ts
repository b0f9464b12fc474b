import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { analysePdf } from '../../shared/pdf/analyse.js';
import { call, download, publishedTemplate, sha256, type Body } from './documents.test-support.js';

/**
 * What a generated invoice's PDF says (issue 4): partner, lines and amounts in the account's
 * number format, read back from the PDF with pdf.js. A template that does not lay out the
 * lines gets the standard table of lines, VAT per rate and totals; one that loops over
 * `document.lineItems` itself does not.
 */

type Doc = Body & { id: string; version: number; fileId: string | null; pdfSha256: string | null };

let t: TestApp;
let user: TestUser;
let partnerId: string;

const LINES = [
  // 10 × 95.50 = 955.00 and 2.5 × 18.00 = 45.00 at 19 %: net 1 000.00, VAT 190.00.
  { description: 'Beratung Datenschutz', quantity: 10, unitPrice: 95.5 },
  { description: 'Fahrtkosten <b>pauschal</b> & Spesen', quantity: 2.5, unitPrice: 18 },
];

/** A GENERATED invoice of `u`, made FINAL; its PDF's text (pages joined) and the document. */
async function finalInvoice(
  u: TestUser,
  templateId: string,
  extra: Body = {},
): Promise<{ doc: Doc; text: string; pdf: Buffer }> {
  const draft = await call<Doc>(t, u, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    source: 'GENERATED',
    name: 'Rechnung Mai',
    creationDate: '2026-05-04',
    dueDate: '2026-05-18',
    deliveryDate: '2026-05-04',
    templateId,
    partnerId,
    lineItems: LINES,
    ...extra,
  });
  const doc = await call<Doc>(t, u, 'PUT', `/v1/documents/${draft.id}`, {
    version: draft.version,
    status: 'FINAL',
  });
  expect(doc.fileId).toMatch(/^fil_/);
  const pdf = await download(t, u, doc.fileId!);
  expect(sha256(pdf)).toBe(doc.pdfSha256);
  const analysis = await analysePdf(pdf);
  // pdf.js splits runs of text at style changes; whitespace is normalised for the checks.
  return { doc, pdf, text: analysis.text.replace(/\s+/g, ' ') };
}

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  partnerId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde & Söhne AG',
      addresses: [
        { type: 'BILLING', street: 'Hafenstraße 5', postalCode: '20457', city: 'Hamburg' },
      ],
    })
  ).id;
});

afterAll(async () => {
  await t.close();
});

describe('documents: invoice PDF content', () => {
  it('shows partner, lines, VAT per rate and totals in German format when the template does not', async () => {
    const templateId = await publishedTemplate(t, user, {
      contentSource:
        '<p>{{ partner.name }}<br>{{ partner.address.street }}</p><h1>Rechnung {{ document.documentNumber }}</h1>',
    });
    const { doc, text } = await finalInvoice(user, templateId, { partnerId });
    expect(doc).toMatchObject({ documentNumber: '2026-0001', grossTotal: 1190, netTotal: 1000 });
    expect(text).toContain('Kunde & Söhne AG');
    expect(text).toContain('Hafenstraße 5');
    expect(text).toContain('Rechnung 2026-0001');
    expect(text).toContain('Beratung Datenschutz');
    // A description is text, never markup: its tags come out as written.
    expect(text).toContain('Fahrtkosten <b>pauschal</b> & Spesen');
    expect(text).toContain('955,00 €');
    expect(text).toContain('95,50 €');
    expect(text).toContain('2,5');
    expect(text).toContain('Nettobetrag 1.000,00 €');
    expect(text).toContain('zzgl. 19 % USt. auf 1.000,00 € 190,00 €');
    expect(text).toContain('Gesamtbetrag 1.190,00 €');
    expect(text).toContain('Zahlbar bis 18.05.2026');
  });

  it('leaves the lines to a template that loops over document.lineItems itself', async () => {
    const templateId = await publishedTemplate(t, user, {
      contentSource: `<p>{{ partner.name }}</p>
        <ul>{% for line in document.lineItems %}
          <li>Z{{ forloop.index }}: {{ line.description }} | {{ line.quantity | number }} × {{ line.unitPrice | money: document.currency }} = {{ line.netAmount | money: document.currency }} ({{ line.taxRate }} %)</li>
        {% endfor %}</ul>
        {% for tax in document.taxes %}<p>USt {{ tax.rate }} %: {{ tax.tax | money: document.currency }}</p>{% endfor %}
        <p>Summe {{ document.grossTotal | money: document.currency }}, fällig {{ document.dueDate | date }}</p>`,
    });
    const { text } = await finalInvoice(user, templateId, { partnerId });
    expect(text).toContain('Kunde & Söhne AG');
    expect(text).toContain('Z1: Beratung Datenschutz | 10 × 95,50 € = 955,00 € (19 %)');
    expect(text).toContain(
      'Z2: Fahrtkosten <b>pauschal</b> & Spesen | 2,5 × 18,00 € = 45,00 € (19 %)',
    );
    expect(text).toContain('USt 19 %: 190,00 €');
    expect(text).toContain('Summe 1.190,00 €, fällig 18.05.2026');
    expect(text).not.toContain('Nettobetrag');
    expect(text.split('Beratung Datenschutz')).toHaveLength(2);
  });

  it('writes amounts in the account’s number format and the document’s currency', async () => {
    const english = await createUser(t);
    const account = await call<{ version: number }>(t, english, 'GET', '/v1/account/addresses');
    await call(t, english, 'PATCH', '/v1/account/addresses', {
      version: account.version,
      numberFormat: '1,234.56',
      dateFormat: 'DD/MM/YYYY',
    });
    const templateId = await publishedTemplate(t, english, {
      contentSource: '<p>Invoice {{ document.documentNumber }} for {{ partner.name }}</p>',
    });
    const acme = await call<{ id: string }>(t, english, 'POST', '/v1/partners', {
      name: 'Acme Ltd',
      addresses: [
        {
          type: 'BILLING',
          street: '1 High St',
          postalCode: 'SW1A 1AA',
          city: 'London',
          country: 'GB',
        },
      ],
    });
    const { text } = await finalInvoice(english, templateId, {
      partnerId: acme.id,
      currency: 'USD',
      lineItems: [{ description: 'Consulting', quantity: 1000, unitPrice: 12.34 }],
    });
    // 12 340.00 net, 19 % VAT 2 344.60, gross 14 684.60, in USD.
    expect(text).toContain('Consulting');
    expect(text).toContain('$12,340.00');
    expect(text).toContain('$2,344.60');
    expect(text).toContain('$14,684.60');
    expect(text).toContain('Zahlbar bis 18/05/2026');
  });

  it('renders a template with showLogo when the account has no logo, without one', async () => {
    const templateId = await publishedTemplate(t, user, {
      contentSource: '<p>Ohne Logo {{ partner.name }}</p>',
      showLogo: true,
      logoPosition: 'TOP_RIGHT',
    });
    const { doc, text } = await finalInvoice(user, templateId, { partnerId });
    expect(doc.status).toBe('FINAL');
    expect(text).toContain('Ohne Logo Kunde & Söhne AG');
    expect(text).toContain('Gesamtbetrag 1.190,00 €');
  });

  it('does not add the table to documents that are no invoices', async () => {
    const templateId = await publishedTemplate(t, user, { contentSource: '<p>Vertrag</p>' });
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'CONTRACT',
      name: 'Vertrag',
      creationDate: '2026-05-04',
      templateId,
      status: 'FINAL',
    });
    const text = (await analysePdf(await download(t, user, draft.fileId!))).text;
    expect(text).toContain('Vertrag');
    expect(text).not.toContain('Gesamtbetrag');
  });
});
