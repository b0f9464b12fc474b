import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import {
  canValidate,
  describeErrors,
  validateAll,
} from '../../shared/einvoice/validator.test-support.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { call, download, type Body } from './documents.test-support.js';

/**
 * What a German customer and tax advisor read on an invoice: the partner's customer number
 * (printed, frozen, BT-46) and the units of its lines (a product's unit carried into the
 * line, printed in words, written as the Rec. 20 code), in the PDF and in both XRechnung
 * syntaxes, validated by KoSIT's rules where the kit is installed.
 */

type Line = { unitCode: string; unitPrice: number; taxRateId: string; description: string };
type Doc = Body & {
  id: string;
  documentNumber: string;
  fileId: string | null;
  lineItems: Line[];
};

let t: TestApp;
let user: TestUser;
let partner: { id: string; version: number; partnerNumber: string };
let rate7: string;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  partner = await call(t, user, 'POST', '/v1/partners', {
    name: 'Stadtverwaltung Musterstadt',
    buyerReference: '04011000-12345-03',
    einvoiceFormat: 'XRECHNUNG_CII',
    addresses: [
      {
        type: 'BILLING',
        street: 'Rathausmarkt 1',
        postalCode: '20095',
        city: 'Hamburg',
        country: 'DE',
        email: 'rechnung@stadt.example',
      },
    ],
  });
  const rates = await call<{ data: { id: string; rate: number }[] }>(
    t,
    user,
    'GET',
    '/v1/tax-rates?limit=100',
  );
  rate7 = rates.data.find((r) => r.rate === 7)!.id;
});
afterAll(() => t.close());

const product = (body: Body) =>
  call<{ id: string; unitCode: string | null }>(t, user, 'POST', '/v1/products', {
    currency: 'EUR',
    ...body,
  });

async function einvoice(doc: Doc, format: string): Promise<string> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/documents/${doc.id}/einvoice?format=${format}`,
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

describe('invoice lines from products, and the customer number', () => {
  let doc: Doc;
  let text: string;
  let cii: string;
  let ubl: string;
  let pdf: Buffer;

  beforeAll(async () => {
    const hours = await product({ name: 'Programmierung', unit: 'HUR', unitPrice: 95.5 });
    const words = await product({
      name: 'Schulung',
      unit: 'Stunde',
      unitPrice: 80,
      taxRateId: rate7,
    });
    const free = await product({ name: 'Lizenz', unit: 'Lizenz', unitPrice: 10 });
    expect([hours.unitCode, words.unitCode, free.unitCode]).toEqual(['HUR', 'HUR', null]);
    doc = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung',
      partnerId: partner.id,
      creationDate: '2026-05-04',
      deliveryDate: '2026-04-30',
      status: 'FINAL',
      lineItems: [
        { productId: hours.id, quantity: 12.5 },
        // The line's own unit wins over the product's.
        { productId: words.id, quantity: 2, unitCode: 'DAY' },
        { productId: free.id, quantity: 3 },
        { description: 'Pauschale Anfahrt', quantity: 1, unitPrice: 40, unitCode: 'LS' },
      ],
    });
    expect(doc.fileId).toMatch(/^fil_/);
    pdf = await download(t, user, doc.fileId!);
    text = (await pageTexts(pdf)).join(' ').replace(/\s+/g, ' ');
    cii = await einvoice(doc, 'xrechnung-cii');
    ubl = await einvoice(doc, 'xrechnung-ubl');
  });

  it("carries the product's unit, price and rate into the line unless the line sets its own", () => {
    expect(doc.lineItems.map((l) => [l.description, l.unitCode, l.unitPrice])).toEqual([
      ['Programmierung', 'HUR', 95.5],
      ['Schulung', 'DAY', 80],
      ['Lizenz', 'C62', 10],
      ['Pauschale Anfahrt', 'LS', 40],
    ]);
    expect(doc.lineItems[1]!.taxRateId).toBe(rate7);
  });

  it('prints the units in words and the customer number in the PDF', () => {
    expect(partner.partnerNumber).toBe('10001');
    expect(text).toContain('Kundennummer 10001');
    expect(text).not.toContain(partner.id);
    expect(text).toContain('Programmierung 12,5 Std.');
    expect(text).toContain('Schulung 2 Tage');
    expect(text).toContain('Lizenz 3 Stk.');
    expect(text).toContain('Pauschale Anfahrt 1 pauschal');
  });

  it('writes the unit codes and the customer number (BT-46) to both XRechnung syntaxes', () => {
    for (const code of ['HUR', 'DAY', 'C62', 'LS']) {
      expect(cii).toContain(`<ram:BilledQuantity unitCode="${code}">`);
      expect(ubl).toContain(`<cbc:InvoicedQuantity unitCode="${code}">`);
    }
    expect(cii).toMatch(/<ram:BuyerTradeParty>\s*<ram:ID>10001<\/ram:ID>/);
    expect(ubl).toMatch(
      /<cac:AccountingCustomerParty>\s*<cac:Party>[\s\S]*?<cac:PartyIdentification>\s*<cbc:ID>10001<\/cbc:ID>/,
    );
    expect(cii).not.toContain(partner.id);
  });

  it('keeps the number frozen with the invoice when the partner is renumbered', async () => {
    await call(t, user, 'PUT', `/v1/partners/${partner.id}`, {
      version: partner.version,
      partnerNumber: 'K-99',
    });
    expect(await einvoice(doc, 'xrechnung-cii')).toBe(cii);
    const next = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung 2',
      partnerId: partner.id,
      creationDate: '2026-05-05',
      deliveryDate: '2026-05-05',
      status: 'FINAL',
      lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 50 }],
    });
    expect(await einvoice(next, 'xrechnung-cii')).toMatch(
      /<ram:BuyerTradeParty>\s*<ram:ID>K-99<\/ram:ID>/,
    );
  });

  it('writes the partner id as before for invoices frozen before partners had numbers', async () => {
    const old = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Rechnung alt',
      partnerId: partner.id,
      creationDate: '2026-05-06',
      deliveryDate: '2026-05-06',
      status: 'FINAL',
      lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 50 }],
    });
    const row = await t.app.ctx.db
      .selectFrom('documents')
      .select('einvoice_parties')
      .where('id', '=', old.id)
      .executeTakeFirstOrThrow();
    const parties = JSON.parse(row.einvoice_parties!) as { buyer: Record<string, unknown> };
    delete parties.buyer.number;
    await sql`update documents set einvoice_parties = ${JSON.stringify(parties)} where id = ${old.id}`.execute(
      t.app.ctx.db,
    );
    expect(await einvoice(old, 'xrechnung-cii')).toMatch(
      new RegExp(`<ram:BuyerTradeParty>\\s*<ram:ID>${partner.id}</ram:ID>`),
    );
  });

  it.runIf(canValidate())('passes KoSIT’s XRechnung 3.0.2 rules (CII, UBL, ZUGFeRD PDF)', () => {
    const results = validateAll([
      { name: 'units.cii.xml', bytes: cii },
      { name: 'units.ubl.xml', bytes: ubl },
      { name: 'units.pdf', bytes: pdf },
    ]);
    for (const result of results) expect(result.errors, describeErrors(result)).toBe(0);
  });
});
