import { createCanvas, loadImage } from '@napi-rs/canvas';
import jsqr from 'jsqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { rasterizePdf } from '../../shared/pdf/rasterize.js';
import { call, download, type Body } from './documents.test-support.js';

/**
 * The system invoice layout (issue 10) read back from real PDFs: every item § 14 (4) UStG
 * asks for, English labels for an English partner, the § 19 small-business invoice without
 * VAT, reverse charge with both VAT ids, a credit note referring to its invoice, and the
 * GiroCode decoded from the rasterized page to exactly the EPC payload.
 */

// jsqr is CommonJS with `exports.default`: under NodeNext the default import is the module.
const jsQR = jsqr.default;

type Doc = Body & { id: string; documentNumber: string; fileId: string | null };

let t: TestApp;
let user: TestUser;
let partnerId: string;
let rate19: string;
let rate7: string;

/** The id of the account's system template with `key`. */
async function systemTemplate(u: TestUser, key: 'INVOICE' | 'CREDIT_NOTE'): Promise<string> {
  const list = await call<{ data: { id: string }[] }>(
    t,
    u,
    'GET',
    `/v1/document-templates?systemKey=${key}`,
  );
  return list.data[0]!.id;
}

async function taxRates(u: TestUser): Promise<Map<number, string>> {
  const list = await call<{ data: { id: string; rate: number }[] }>(
    t,
    u,
    'GET',
    '/v1/tax-rates?limit=100',
  );
  return new Map(list.data.map((r) => [r.rate, r.id]));
}

async function newPartner(u: TestUser, body: Body = {}): Promise<string> {
  return (
    await call<{ id: string }>(t, u, 'POST', '/v1/partners', {
      name: 'Kunde & Söhne AG',
      addresses: [
        { type: 'OFFICE', street: 'Falsche Allee 9', postalCode: '99999', city: 'Nirgendwo' },
        {
          type: 'BILLING',
          name: 'Buchhaltung',
          street: 'Hafenstraße 5',
          postalCode: '20457',
          city: 'Hamburg',
          country: 'DE',
        },
      ],
      ...body,
    })
  ).id;
}

/** A FINAL invoice from the system INVOICE template: the document, its PDF and its text. */
async function finalInvoice(
  u: TestUser,
  body: Body,
): Promise<{ doc: Doc; pdf: Buffer; text: string }> {
  const doc = await call<Doc>(t, u, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    source: 'GENERATED',
    name: 'Rechnung Mai',
    creationDate: '2026-05-04',
    dueDate: '2026-05-18',
    deliveryDate: '2026-04-30',
    templateId: await systemTemplate(u, 'INVOICE'),
    status: 'FINAL',
    ...body,
  });
  expect(doc.fileId).toMatch(/^fil_/);
  const pdf = await download(t, u, doc.fileId!);
  // pdf.js splits runs of text at style changes; whitespace is normalised for the checks.
  const text = (await pageTexts(pdf)).join(' ').replace(/\s+/g, ' ');
  return { doc, pdf, text };
}

/** The payload of the QR code on page 1, rasterized at 300 dpi; null when none is found. */
async function qrPayload(pdf: Buffer): Promise<string | null> {
  const [page] = await rasterizePdf(pdf, { pages: [1], dpi: 300 });
  const image = await loadImage(page!.png);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(image, 0, 0);
  const { data } = ctx.getImageData(0, 0, image.width, image.height);
  return jsQR(new Uint8ClampedArray(data), image.width, image.height)?.data ?? null;
}

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  partnerId = await newPartner(user);
  const rates = await taxRates(user);
  rate19 = rates.get(19)!;
  rate7 = rates.get(7)!;
});

afterAll(async () => {
  await t.close();
});

// 10 h × 95.50 = 955.00 at 19 % (VAT 181.45), 2 × 24.95 = 49.90 at 7 % (VAT 3.493 → 3.49):
// net 1 004.90, VAT 184.94, gross 1 189.84.
const lines = () => [
  {
    description: 'Beratung Buchhaltung',
    quantity: 10,
    unitPrice: 95.5,
    taxRateId: rate19,
    unitCode: 'HUR',
  },
  {
    description: 'Fachbuch Steuerrecht',
    quantity: 2,
    unitPrice: 24.95,
    taxRateId: rate7,
    unitCode: 'H87',
  },
];

describe('invoice layout: a German invoice', () => {
  let doc: Doc;
  let pdf: Buffer;
  let text: string;

  beforeAll(async () => {
    ({ doc, pdf, text } = await finalInvoice(user, {
      partnerId,
      lineItems: lines(),
      orderReference: 'B-4711',
      skontoPercent: 2,
      skontoDays: 10,
    }));
  });

  it('carries every mandatory item of § 14 (4) UStG', () => {
    expect(doc).toMatchObject({ netTotal: 1004.9, taxTotal: 184.94, grossTotal: 1189.84 });
    const number = doc.documentNumber;
    expect(number).toMatch(/^2026-\d{4}$/);
    // Seller: name and full address (sender line and footer), tax number and VAT id.
    expect(text).toContain('Test GmbH · Musterstraße 1 · 10115 Berlin');
    expect(text).toContain('USt-IdNr. DE123456788');
    expect(text).toContain('Steuernummer 30/123/45678');
    // Buyer: name and the BILLING address, not the office one.
    expect(text).toContain('Kunde & Söhne AG Buchhaltung Hafenstraße 5 20457 Hamburg');
    expect(text).not.toContain('Nirgendwo');
    // Number, date, date of supply, customer number, order reference.
    expect(text).toContain(`Rechnungsnummer ${number}`);
    expect(text).toContain('Rechnungsdatum 04.05.2026');
    expect(text).toContain('Liefer-/Leistungsdatum 30.04.2026');
    expect(text).toContain('Kundennummer 10001');
    expect(text).toContain('Bestellnummer B-4711');
    expect(text).toContain(`Rechnung ${number}`);
    // Quantity with unit and description of every line, unit price, rate and net amount.
    expect(text).toContain('1 Beratung Buchhaltung 10 Std. 95,50 € 19 % 955,00 €');
    expect(text).toContain('2 Fachbuch Steuerrecht 2 Stk. 24,95 € 7 % 49,90 €');
    // Net per rate, the rate, the VAT per rate, the totals.
    expect(text).toContain('Nettobetrag 1.004,90 €');
    expect(text).toContain('USt. 19 % auf 955,00 € 181,45 €');
    expect(text).toContain('USt. 7 % auf 49,90 € 3,49 €');
    expect(text).toContain('Gesamtbetrag 1.189,84 €');
    // Payment terms: Skonto agreed in advance (§ 14 (4) Nr. 7 UStG) and the due date.
    expect(text).toContain(
      'Bei Zahlung bis zum 14.05.2026: 2 % Skonto (23,80 €), Zahlbetrag 1.166,04 €.',
    );
    expect(text).toContain('Zahlbar ohne Abzug bis zum 18.05.2026.');
    expect(text).toContain('Bezahlen per GiroCode');
    // Standard-rated only: no tax notes.
    expect(text).not.toContain('Steuerschuldnerschaft');
    expect(text).not.toContain('§ 19');
  });

  it('has the company data in the footer and no appended standard table', () => {
    expect(text).toContain('Geschäftsführer: Erika Mustermann');
    expect(text).toContain('Registergericht: Amtsgericht Charlottenburg HRB 12345');
    expect(text).toContain('IBAN DE02 1203 0000 0000 2020 51');
    expect(text).toContain('BIC BYLADEM1001');
    expect(text).toContain('E-Mail rechnung@test-gmbh.example');
    expect(text).toContain('Tel. +49 30 1234567');
    // The layout shows the lines itself: each once, no "Zahlbar bis" of the standard table.
    expect(text.split('Beratung Buchhaltung')).toHaveLength(2);
    expect(text).not.toContain('Zahlbar bis ');
  });

  it('prints a GiroCode that decodes to exactly the EPC payload of the amount due', async () => {
    expect(await qrPayload(pdf)).toBe(
      [
        'BCD',
        '002',
        '1',
        'SCT',
        'BYLADEM1001',
        'Test GmbH',
        'DE02120300000000202051',
        'EUR1189.84',
        '',
        '',
        doc.documentNumber,
      ].join('\n'),
    );
  });
});

describe('invoice layout: language and tax cases', () => {
  it('writes English labels for an English partner', async () => {
    const english = await newPartner(user, { name: 'Acme Ltd', language: 'en' });
    const { doc, text } = await finalInvoice(user, { partnerId: english, lineItems: lines() });
    expect(text).toContain(`Invoice ${doc.documentNumber}`);
    expect(text).toContain(`Invoice number ${doc.documentNumber}`);
    expect(text).toContain('Invoice date 04.05.2026');
    expect(text).toContain('Delivery date 30.04.2026');
    expect(text).toContain('Customer number');
    expect(text).toContain('Net amount 1.004,90 €');
    expect(text).toContain('VAT 19 % on 955,00 € 181,45 €');
    expect(text).toContain('Total amount 1.189,84 €');
    expect(text).toContain('10 hours');
    expect(text).toContain('Payable without deduction by 18.05.2026.');
    expect(text).toContain('Pay by GiroCode');
    expect(text).toContain('Managing directors: Erika Mustermann');
    for (const german of ['Rechnungsnummer', 'Gesamtbetrag', 'Zahlbar', 'Geschäftsführer'])
      expect(text).not.toContain(german);
  });

  it('shows the § 19 sentence and no VAT for a small business', async () => {
    const small = await createUser(t);
    const {
      version,
      updatedAt: _u,
      ...company
    } = await call<Body & { version: number }>(t, small, 'GET', '/v1/account/company');
    await call(t, small, 'PUT', '/v1/account/company', {
      ...company,
      version,
      smallBusiness: true,
    });
    const exempt = await call<{ id: string }>(t, small, 'POST', '/v1/tax-rates', {
      name: 'Kleinunternehmer',
      rate: 0,
      category: 'E',
      exemptionReason: 'Steuerfrei als Kleinunternehmer',
    });
    const { doc, text } = await finalInvoice(small, {
      partnerId: await newPartner(small),
      lineItems: [
        { description: 'Gartenpflege', quantity: 3, unitPrice: 40, taxRateId: exempt.id },
      ],
    });
    expect(doc).toMatchObject({ netTotal: 120, taxTotal: 0, grossTotal: 120 });
    expect(text).toContain('Gemäß § 19 UStG wird keine Umsatzsteuer berechnet.');
    expect(text).toContain('1 Gartenpflege 3 Stk. 40,00 € 120,00 €');
    expect(text).toContain('Gesamtbetrag 120,00 €');
    // No VAT column, rate, VAT line or net/VAT split; the § 19 sentence replaces the reason.
    expect(text).not.toMatch(/USt\. \d/);
    expect(text).not.toContain('Nettobetrag');
    expect(text).not.toContain('0 %');
    expect(text).not.toContain('Steuerfrei als Kleinunternehmer');
  });

  it('shows the reverse-charge wording and both VAT ids', async () => {
    const reverse = await call<{ id: string }>(t, user, 'POST', '/v1/tax-rates', {
      name: 'Reverse Charge',
      rate: 0,
      category: 'AE',
      exemptionReason: 'Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)',
    });
    const austrian = await newPartner(user, {
      name: 'Wiener Bau GmbH',
      vatId: 'ATU12345678',
      addresses: [
        {
          type: 'BILLING',
          street: 'Ringstraße 1',
          postalCode: '1010',
          city: 'Wien',
          country: 'AT',
        },
      ],
    });
    const { text } = await finalInvoice(user, {
      partnerId: austrian,
      lineItems: [{ description: 'Montage', quantity: 1, unitPrice: 500, taxRateId: reverse.id }],
    });
    expect(text).toContain('Wiener Bau GmbH Ringstraße 1 1010 Wien ÖSTERREICH');
    expect(text).toContain('Steuerschuldnerschaft des Leistungsempfängers (§ 13b UStG)');
    // The rate's reason already says it: the statutory sentence is not repeated.
    expect(text.split('Steuerschuldnerschaft des Leistungsempfängers')).toHaveLength(2);
    expect(text).toContain(
      'USt-IdNr. des Leistenden: DE123456788 · USt-IdNr. des Leistungsempfängers: ATU12345678',
    );
    expect(text).toContain('USt. 0 % (Reverse Charge) auf 500,00 € 0,00 €');
    expect(text).toContain('Ihre USt-IdNr. ATU12345678');
  });

  it('prints a Storno as "Stornorechnung" with its invoice, no payment terms and no GiroCode', async () => {
    const { doc } = await finalInvoice(user, { partnerId, lineItems: lines() });
    const credit = await call<Doc & { name: string }>(
      t,
      user,
      'POST',
      `/v1/documents/${doc.id}/cancel`,
      { creationDate: '2026-05-20' },
    );
    expect(credit.fileId).toMatch(/^fil_/);
    expect(credit.name).toBe(`Stornorechnung zu ${doc.documentNumber}`);
    const pdf = await download(t, user, credit.fileId!);
    const text = (await pageTexts(pdf)).join(' ').replace(/\s+/g, ' ');
    expect(text).toContain(`Stornorechnung ${credit.documentNumber}`);
    expect(text).toContain(`Stornorechnung-Nr. ${credit.documentNumber}`);
    expect(text).toContain(`Zur Rechnung ${doc.documentNumber} vom 04.05.2026`);
    expect(text).toContain(
      `Diese Stornorechnung storniert die Rechnung ${doc.documentNumber} vom 04.05.2026.`,
    );
    expect(text).toContain('Gesamtbetrag 1.189,84 €');
    // § 14 (2) Satz 2 UStG keeps "Gutschrift" for self-billing.
    expect(text).not.toMatch(/gutschrift|Rechnungskorrektur/i);
    expect(text).not.toContain('Zahlungsbedingungen');
    expect(text).not.toContain('GiroCode');
    expect(await qrPayload(pdf)).toBeNull();
  });

  it('prints a partial credit note as "Rechnungskorrektur", in English as "Credit note"', async () => {
    const english = await newPartner(user, { name: 'London Ltd', language: 'en' });
    for (const [partner, words, refers] of [
      [
        partnerId,
        ['Rechnungskorrektur', 'Rechnungskorrektur-Nr.'],
        'Diese Rechnungskorrektur bezieht sich auf die Rechnung',
      ],
      [english, ['Credit note', 'Credit note number'], 'This credit note refers to invoice'],
    ] as const) {
      const { doc } = await finalInvoice(user, { partnerId: partner, lineItems: lines() });
      const credit = await call<Doc & { name: string }>(
        t,
        user,
        'POST',
        `/v1/documents/${doc.id}/credit-notes`,
        {
          creationDate: '2026-05-20',
          lineItems: [
            { description: 'Fachbuch zurück', quantity: 1, unitPrice: 24.95, taxRateId: rate7 },
          ],
        },
      );
      expect(credit.name).toBe(`Rechnungskorrektur zu ${doc.documentNumber}`);
      const text = (await pageTexts(await download(t, user, credit.fileId!)))
        .join(' ')
        .replace(/\s+/g, ' ');
      expect(text).toContain(`${words[0]} ${credit.documentNumber}`);
      expect(text).toContain(`${words[1]} ${credit.documentNumber}`);
      expect(text).toContain(`${refers} ${doc.documentNumber}`);
      expect(text).not.toMatch(/gutschrift|storno|cancellation/i);
    }
  });
});
