import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  TEST_COMPANY,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { parseEInvoiceXml } from '../../shared/einvoice/index.js';
import {
  canValidate,
  describeErrors,
  validateAll,
} from '../../shared/einvoice/validator.test-support.js';
import { analysePdf } from '../../shared/pdf/analyse.js';
import { call, type Body } from './documents.test-support.js';
import { report } from '../../../test/report.js';
import { markStornos } from '../../db/migrations/0023_credit_note_titles.js';

/**
 * Lawful invoices end to end over HTTP (issue 10): finalize checks, the frozen parties, the
 * e-invoices of every FINAL invoice (XRechnung CII and UBL, ZUGFeRD PDF) validated by KoSIT's
 * rules in one batch and read back through Kontor's own intake, Storno and credit notes.
 */

type Doc = Body & {
  id: string;
  version: number;
  documentNumber: string | null;
  grossTotal: number;
  netTotal: number;
  taxTotal: number;
  currency: string;
  fileId: string | null;
};
type Rate = { id: string; category: string; rate: number; name: string };

let t: TestApp;
let user: TestUser;
let rates: Rate[];
const partners = {} as Record<'city' | 'de' | 'nl' | 'fr' | 'ch', string>;

const rate = (category: string, percent?: number) => {
  const found = rates.find(
    (r) => r.category === category && (percent === undefined || r.rate === percent),
  );
  if (!found) throw new Error(`no ${category} ${percent ?? ''} rate`);
  return found.id;
};

async function partner(name: string, body: Body): Promise<string> {
  return (await call<{ id: string }>(t, user, 'POST', '/v1/partners', { name, ...body })).id;
}

/** A FINAL invoice made by one POST (status FINAL). */
async function finalInvoice(body: Body, u: TestUser = user): Promise<Doc> {
  return call<Doc>(t, u, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Rechnung',
    creationDate: '2026-11-20',
    status: 'FINAL',
    ...body,
  });
}

async function einvoice(doc: Doc, format: string, u: TestUser = user) {
  const res = await t.request({
    method: 'GET',
    url: `/v1/documents/${doc.id}/einvoice?format=${format}`,
    token: u.token,
  });
  expect(res.statusCode, res.body).toBe(200);
  return {
    bytes: res.rawPayload,
    etag: res.headers.etag as string,
    type: res.headers['content-type'],
  };
}

const hamburg = {
  type: 'BILLING',
  street: 'Rathausmarkt 1',
  postalCode: '20095',
  city: 'Hamburg',
  country: 'DE',
  email: 'rechnung@stadt.example',
};

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  const created = await call<Rate>(t, user, 'POST', '/v1/tax-rates', {
    name: 'Ausfuhr 0 %',
    rate: 0,
    category: 'G',
    exemptionReason: 'Steuerfreie Ausfuhrlieferung (§ 4 Nr. 1a i. V. m. § 6 UStG)',
    exemptionCode: 'VATEX-EU-G',
  });
  await call(t, user, 'POST', '/v1/tax-rates', { name: 'Nullsatz', rate: 0, category: 'Z' });
  await call(t, user, 'POST', '/v1/tax-rates', {
    name: 'Nicht steuerbar',
    rate: 0,
    category: 'O',
    exemptionReason: 'Nicht im Inland steuerbare Leistung',
    exemptionCode: 'VATEX-EU-O',
  });
  expect(created.category).toBe('G');
  rates = (await call<{ data: Rate[] }>(t, user, 'GET', '/v1/tax-rates?limit=100')).data;
  partners.city = await partner('Stadtverwaltung Musterstadt', {
    addresses: [hamburg],
    buyerReference: '04011000-12345-03',
    einvoiceFormat: 'XRECHNUNG_CII',
  });
  partners.de = await partner('Kunde & Söhne AG', {
    addresses: [{ ...hamburg, street: 'Hafenstraße 5', email: 'ap@kunde.example' }],
  });
  partners.nl = await partner('Nederland B.V.', {
    vatId: 'NL123456789B01',
    addresses: [
      {
        type: 'BILLING',
        street: 'Damrak 1',
        postalCode: '1012 LG',
        city: 'Amsterdam',
        country: 'NL',
        email: 'ap@nederland.example',
      },
    ],
  });
  partners.fr = await partner('France SARL', {
    vatId: 'FR40303265045',
    language: 'en',
    electronicAddress: { scheme: 'EM', value: 'factures@france.example' },
    addresses: [
      {
        type: 'BILLING',
        street: '1 Rue de Rivoli',
        postalCode: '75001',
        city: 'Paris',
        country: 'FR',
      },
    ],
  });
  partners.ch = await partner('Schweiz AG', {
    addresses: [
      {
        type: 'BILLING',
        street: 'Bahnhofstrasse 1',
        postalCode: '8001',
        city: 'Zürich',
        country: 'CH',
      },
    ],
  });
});

afterAll(async () => {
  await t.close();
});

describe('invoices: finalize checks (§14 UStG, EN 16931)', () => {
  it('refuses an incomplete invoice with every missing item at once, and uses no number', async () => {
    const bare = await createUser(t);
    await t.app.ctx.db
      .updateTable('accounts')
      .set({ company: null })
      .where('id', '=', bare.accountId)
      .execute();
    const res = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: bare.token,
      payload: {
        documentType: 'INVOICE',
        name: 'Unvollständig',
        creationDate: '2026-11-20',
        partnerName: 'Irgendwer',
        status: 'FINAL',
        lineItems: [{ description: 'X', quantity: 1, unitPrice: 10 }],
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    const problem = res.json<{ code: string; errors: { path: string }[] }>();
    expect(problem.code).toBe('invoice_incomplete');
    const paths = problem.errors.map((e) => e.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/company/address/street',
        '/company/address/city',
        '/company/taxNumber',
        '/body/partnerId',
        '/body/deliveryDate',
        '/company/bankAccounts',
      ]),
    );
    const list = await call<{ data: Doc[] }>(t, bare, 'GET', '/v1/documents');
    expect(list.data).toHaveLength(0);

    // Completed, the same account's first invoice still gets the first number.
    await t.app.ctx.db
      .updateTable('accounts')
      .set({ company: JSON.stringify(TEST_COMPANY) })
      .where('id', '=', bare.accountId)
      .execute();
    const p = (
      await call<{ id: string }>(t, bare, 'POST', '/v1/partners', {
        name: 'Kunde',
        addresses: [hamburg],
      })
    ).id;
    const ok = await finalInvoice(
      {
        partnerId: p,
        deliveryDate: '2026-11-19',
        lineItems: [{ description: 'X', quantity: 1, unitPrice: 10 }],
      },
      bare,
    );
    expect(ok.documentNumber).toBe('2026-0001');
  });

  it('asks XRechnung buyers for a buyer reference and checks reverse-charge VAT ids', async () => {
    const xr = await partner('Behörde ohne Leitweg', {
      addresses: [hamburg],
      einvoiceFormat: 'XRECHNUNG_UBL',
    });
    const res = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: {
        documentType: 'INVOICE',
        name: 'R',
        creationDate: '2026-11-20',
        partnerId: xr,
        deliveryDate: '2026-11-20',
        status: 'FINAL',
        lineItems: [{ description: 'X', quantity: 1, unitPrice: 10, taxRateId: rate('AE') }],
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    const paths = res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path);
    expect(paths).toEqual(expect.arrayContaining(['/body/buyerReference', '/partner/vatId']));
  });

  it('fills the buyer reference from the partner and the due date from the payment term', async () => {
    const doc = await finalInvoice({
      partnerId: partners.city,
      deliveryDate: '2026-11-18',
      lineItems: [{ description: 'Beratung', quantity: 2, unitPrice: 100 }],
    });
    expect(doc).toMatchObject({
      buyerReference: '04011000-12345-03',
      dueDate: '2026-12-04',
      invoiceType: 'INVOICE',
      deliveryDate: '2026-11-18',
    });
  });

  it('answers 400 naming the field for bad invoice fields, and keeps them off contract documents', async () => {
    for (const [payload, path] of [
      [{ servicePeriod: { from: '2026-11-30', to: '2026-11-01' } }, '/body/servicePeriod/to'],
      [{ skontoPercent: 2 }, '/body/skontoDays'],
      [{ skontoPercent: 2.001, skontoDays: 10 }, '/body/skontoPercent'],
      [
        { documentType: 'CONTRACT', templateId: 'tpl_x', deliveryDate: '2026-11-01' },
        '/body/deliveryDate',
      ],
    ] as const) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/documents',
        token: user.token,
        payload: {
          documentType: 'INVOICE',
          name: 'R',
          creationDate: '2026-11-20',
          ...(payload.documentType === 'CONTRACT'
            ? {}
            : { lineItems: [{ description: 'X', quantity: 1, unitPrice: 1 }] }),
          ...payload,
        },
      });
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe(path);
    }
  });
});

describe('invoices: e-invoices, Storno and credit notes', () => {
  type Variant =
    | 'standard'
    | 'period'
    | 'reverseCharge'
    | 'intraEu'
    | 'export'
    | 'zero'
    | 'notSubject'
    | 'usd'
    | 'smallBusiness'
    | 'storno'
    | 'partialCredit';
  const made = {} as Record<Variant, Doc>;

  beforeAll(async () => {
    const two = [
      { description: 'Softwareentwicklung', quantity: 12.5, unitPrice: 120, unitCode: 'HUR' },
      {
        description: 'Fachbuch',
        quantity: 2,
        unitPrice: 39.9,
        taxRateId: rate('S', 7),
        unitCode: 'H87',
      },
    ];
    made.standard = await finalInvoice({
      partnerId: partners.city,
      deliveryDate: '2026-11-18',
      lineItems: two,
    });
    made.period = await finalInvoice({
      partnerId: partners.de,
      servicePeriod: { from: '2026-10-01', to: '2026-10-31' },
      orderReference: 'PO-4711',
      note: 'Vielen Dank für Ihren Auftrag.',
      skontoPercent: 2,
      skontoDays: 10,
      lineItems: [...two, { description: 'Rabatt', quantity: 1, unitPrice: -100 }],
    });
    made.reverseCharge = await finalInvoice({
      partnerId: partners.nl,
      deliveryDate: '2026-11-10',
      lineItems: [{ description: 'Montage', quantity: 8, unitPrice: 95, taxRateId: rate('AE') }],
    });
    made.intraEu = await finalInvoice({
      partnerId: partners.fr,
      deliveryDate: '2026-11-12',
      lineItems: [{ description: 'Maschine', quantity: 1, unitPrice: 15000, taxRateId: rate('K') }],
    });
    made.export = await finalInvoice({
      partnerId: partners.ch,
      deliveryDate: '2026-11-12',
      lineItems: [
        { description: 'Ersatzteile', quantity: 3, unitPrice: 210, taxRateId: rate('G') },
      ],
    });
    made.zero = await finalInvoice({
      partnerId: partners.de,
      deliveryDate: '2026-11-12',
      lineItems: [{ description: 'Solarmodul', quantity: 4, unitPrice: 250, taxRateId: rate('Z') }],
    });
    made.notSubject = await finalInvoice({
      partnerId: partners.ch,
      deliveryDate: '2026-11-12',
      lineItems: [
        { description: 'Beratung im Ausland', quantity: 1, unitPrice: 900, taxRateId: rate('O') },
      ],
    });
    made.usd = await finalInvoice({
      partnerId: partners.de,
      currency: 'USD',
      deliveryDate: '2026-11-12',
      lineItems: [{ description: 'License', quantity: 3, unitPrice: 49.99 }],
    });
    // A small business (§19 UStG): a tax number, no VAT id, the exempt rate.
    const small = await createUser(t);
    await t.app.ctx.db
      .updateTable('accounts')
      .set({ company: JSON.stringify({ ...TEST_COMPANY, vatId: null, smallBusiness: true }) })
      .where('id', '=', small.accountId)
      .execute();
    const smallRates = (await call<{ data: Rate[] }>(t, small, 'GET', '/v1/tax-rates?limit=100'))
      .data;
    const smallPartner = (
      await call<{ id: string }>(t, small, 'POST', '/v1/partners', {
        name: 'Nachbar',
        addresses: [hamburg],
      })
    ).id;
    made.smallBusiness = await finalInvoice(
      {
        partnerId: smallPartner,
        deliveryDate: '2026-11-12',
        lineItems: [
          {
            description: 'Gartenpflege',
            quantity: 5,
            unitPrice: 30,
            taxRateId: smallRates.find((r) => r.category === 'E')!.id,
          },
        ],
      },
      small,
    );
    made.smallBusiness.owner = small;
    made.storno = await call<Doc>(t, user, 'POST', `/v1/documents/${made.standard.id}/cancel`, {
      creationDate: '2026-11-21',
    });
    made.partialCredit = await call<Doc>(
      t,
      user,
      'POST',
      `/v1/documents/${made.period.id}/credit-notes`,
      {
        creationDate: '2026-11-22',
        note: '2 Stunden zu viel berechnet',
        lineItems: [
          { description: 'Softwareentwicklung (Korrektur)', quantity: 2, unitPrice: 120 },
        ],
      },
    );
  });

  it('numbers credit notes in their own sequence and links them to the invoice', async () => {
    expect(made.storno).toMatchObject({
      invoiceType: 'CREDIT_NOTE',
      documentNumber: 'GS-2026-0001',
      precedingDocumentId: made.standard.id,
      precedingDocumentNumber: made.standard.documentNumber,
      precedingDocumentDate: '2026-11-20',
      grossTotal: made.standard.grossTotal,
      status: 'FINAL',
    });
    expect(made.partialCredit).toMatchObject({ documentNumber: 'GS-2026-0002', grossTotal: 285.6 });
    // A payment of a credit note is a refund: OUTGOING by default, and it settles the note.
    const refund = await call<{ direction: string }>(t, user, 'POST', '/v1/payments', {
      documentId: made.storno.id,
      amount: made.storno.grossTotal,
      currency: 'EUR',
      paymentDate: '2026-11-23',
      status: 'MARKED',
    });
    expect(refund.direction).toBe('OUTGOING');
    const settled = await call<Doc>(t, user, 'GET', `/v1/documents/${made.storno.id}`);
    expect(settled.paymentStatus).toBe('PAID');
    const original = await call<Doc>(t, user, 'GET', `/v1/documents/${made.standard.id}`);
    expect(original).toMatchObject({ cancelledByDocumentId: made.storno.id, overdue: false });
    const again = await t.request({
      method: 'POST',
      url: `/v1/documents/${made.standard.id}/cancel`,
      token: user.token,
      payload: {},
    });
    expect(again.statusCode).toBe(409);
    const tooMuch = await t.request({
      method: 'POST',
      url: `/v1/documents/${made.period.id}/credit-notes`,
      token: user.token,
      payload: { lineItems: [{ description: 'Alles', quantity: 1, unitPrice: 100000 }] },
    });
    expect(tooMuch.statusCode, tooMuch.body).toBe(422);
    // A partly credited invoice cannot be cancelled in full.
    const storno = await t.request({
      method: 'POST',
      url: `/v1/documents/${made.period.id}/cancel`,
      token: user.token,
      payload: {},
    });
    expect(storno.statusCode).toBe(409);
    const ofCredit = await t.request({
      method: 'POST',
      url: `/v1/documents/${made.storno.id}/cancel`,
      token: user.token,
      payload: {},
    });
    expect(ofCredit.statusCode).toBe(409);
  });

  it('titles a Storno "Stornorechnung" and a partial credit note "Rechnungskorrektur"', async () => {
    const fileName = async (doc: Doc) =>
      (await call<{ fileName: string }>(t, user, 'GET', `/v1/files/${doc.fileId!}`)).fileName;
    expect(await fileName(made.storno)).toBe('Stornorechnung GS-2026-0001.pdf');
    expect(await fileName(made.partialCredit)).toBe('Rechnungskorrektur GS-2026-0002.pdf');
    const db = t.app.ctx.db;
    const flags = async () =>
      (
        await db
          .selectFrom('documents')
          .select(['id', 'storno'])
          .where('id', 'in', [made.storno.id, made.partialCredit.id])
          .execute()
      ).map((r) => [r.id, r.storno]);
    const expected = [
      [made.storno.id, 1],
      [made.partialCredit.id, 0],
    ];
    expect((await flags()).sort()).toEqual(expected.sort());
    // An installation upgraded from before the flag: its Stornos are found by their invoice.
    await db.updateTable('documents').set({ storno: 0 }).where('id', '=', made.storno.id).execute();
    await markStornos(db as never);
    expect((await flags()).sort()).toEqual(expected.sort());
  });

  it('answers the same e-invoice bytes every time, with a strong ETag and 304', async () => {
    const a = await einvoice(made.standard, 'xrechnung-cii');
    const b = await einvoice(made.standard, 'xrechnung-cii');
    expect(a.bytes.equals(b.bytes)).toBe(true);
    expect(a.type).toMatch(/application\/xml/);
    expect(a.etag).toMatch(/^"[0-9a-f]{64}"$/);
    const again = await t.request({
      method: 'GET',
      url: `/v1/documents/${made.standard.id}/einvoice?format=xrechnung-cii`,
      token: user.token,
      headers: { 'if-none-match': a.etag },
    });
    expect(again.statusCode).toBe(304);
    const pdf = await einvoice(made.standard, 'zugferd');
    expect(pdf.type).toMatch(/application\/pdf/);
    expect(pdf.bytes.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers 409 for drafts and contract documents, 404 for another account, 400 for a bad format', async () => {
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Entwurf',
      creationDate: '2026-11-20',
      lineItems: [{ description: 'X', quantity: 1, unitPrice: 1 }],
    });
    const url = (id: string, f = 'xrechnung-ubl') => `/v1/documents/${id}/einvoice?format=${f}`;
    expect(
      (await t.request({ method: 'GET', url: url(draft.id), token: user.token })).statusCode,
    ).toBe(409);
    expect(
      (await t.request({ method: 'GET', url: url(draft.id, 'pdf'), token: user.token })).statusCode,
    ).toBe(400);
    const other = await createUser(t);
    expect(
      (await t.request({ method: 'GET', url: url(made.standard.id), token: other.token }))
        .statusCode,
    ).toBe(404);
  });

  it('answers 409 for a contract document and 401 without credentials', async () => {
    const templates = await call<{ data: { id: string }[] }>(
      t,
      user,
      'GET',
      '/v1/document-templates?systemKey=TERMINATION',
    );
    const contract = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'CONTRACT',
      name: 'Kündigung',
      creationDate: '2026-11-20',
      templateId: templates.data[0]!.id,
      partnerId: partners.de,
    });
    const url = `/v1/documents/${contract.id}/einvoice?format=xrechnung-cii`;
    expect((await t.request({ method: 'GET', url, token: user.token })).statusCode).toBe(409);
    expect((await t.request({ method: 'GET', url })).statusCode).toBe(401);
  });

  it('guards cancel and credit-notes: 400 for unknown fields, 404 for another account, 401 without credentials', async () => {
    const id = made.reverseCharge.id;
    const other = await createUser(t);
    for (const [path, valid] of [
      ['cancel', {}],
      ['credit-notes', { lineItems: [{ description: 'X', quantity: 1, unitPrice: 1 }] }],
    ] as const) {
      const url = `/v1/documents/${id}/${path}`;
      const unknown = await t.request({
        method: 'POST',
        url,
        token: user.token,
        payload: { ...valid, surprise: true },
      });
      expect(unknown.statusCode, unknown.body).toBe(400);
      const foreign = await t.request({ method: 'POST', url, token: other.token, payload: valid });
      expect(foreign.statusCode).toBe(404);
      expect((await t.request({ method: 'POST', url, payload: valid })).statusCode).toBe(401);
    }
    // None of these wrote anything: the invoice is still open for a Storno.
    const invoice = await call<Doc>(t, user, 'GET', `/v1/documents/${id}`);
    expect(invoice.cancelledByDocumentId).toBeNull();
  });

  it('gives every variant in CII, UBL and ZUGFeRD that KoSIT accepts, and reads them back', async () => {
    const files: { name: string; bytes: Buffer }[] = [];
    for (const [name, doc] of Object.entries(made)) {
      const owner = (doc.owner as TestUser | undefined) ?? user;
      for (const format of ['xrechnung-cii', 'xrechnung-ubl', 'zugferd']) {
        // The Swiss buyer has no email or electronic address: no valid XRechnung exists.
        if (doc.partnerId === partners.ch && format !== 'zugferd') {
          const res = await t.request({
            method: 'GET',
            url: `/v1/documents/${doc.id}/einvoice?format=${format}`,
            token: owner.token,
          });
          expect(
            res.statusCode,
            `${name} ${format} ${res.body.slice(res.body.indexOf('BuyerTradeParty'), res.body.indexOf('BuyerTradeParty') + 1500)}`,
          ).toBe(409);
          expect(res.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe(
            '/partner/electronicAddress',
          );
          continue;
        }
        const { bytes } = await einvoice(doc, format, owner);
        files.push({ name: `${name}.${format}.${format === 'zugferd' ? 'pdf' : 'xml'}`, bytes });
        if (format === 'zugferd') {
          const analysis = await analysePdf(bytes);
          expect(analysis.eInvoice?.documentNumber, name).toBe(doc.documentNumber);
          continue;
        }
        // Kontor's own intake reads what Kontor wrote: same number, parties and totals.
        const read = parseEInvoiceXml(bytes);
        expect(read.documentNumber).toBe(doc.documentNumber);
        expect(read.kind).toBe(doc.invoiceType);
        expect(read.currency).toBe(doc.currency);
        expect(read.seller.name).toBe('Test GmbH');
        expect(read.buyer.name).toBe(doc.partnerName);
        const minor = (v: number) => Math.round(v * 100);
        expect(read.totals).toMatchObject({
          netMinor: minor(doc.netTotal),
          taxMinor: minor(doc.taxTotal),
          grossMinor: minor(doc.grossTotal),
        });
      }
    }
    if (!canValidate()) return;
    const results = validateAll(files);
    const invalid = results.filter((r) => !r.valid);
    expect(invalid.map((r) => `${r.file}\n${describeErrors(r)}`).join('\n\n')).toBe('');
    expect(results).toHaveLength(files.length);
    report(
      `e-invoice variants validated through the API: ${results.length}, valid: ${results.length - invalid.length}\n`,
    );
  }, 120_000);

  it('mails XRechnung buyers the XML and others the ZUGFeRD PDF', async () => {
    const xml = await call<Doc>(
      t,
      user,
      'POST',
      `/v1/documents/${made.reverseCharge.id}/send`,
      { to: ['buchhaltung@nl.example'] },
      200,
    );
    expect(xml.sentTo).toEqual(['buchhaltung@nl.example']);
    const invoice = await finalInvoice({
      partnerId: partners.city,
      deliveryDate: '2026-11-18',
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });
    await call(t, user, 'POST', `/v1/documents/${invoice.id}/send`, {}, 200);
    const mails = await mailsTo(t, 'rechnung@stadt.example');
    const last = mails.at(-1)!;
    expect(last.raw).toContain(`Rechnung ${invoice.documentNumber}.xml`);
    expect(last.raw).not.toContain(`Rechnung ${invoice.documentNumber}.pdf`);
  });
});

describe('invoices: a PDF that cannot be rendered is refused before FINAL', () => {
  it('answers 422, keeps the draft and uses no number; the next invoice gets the first', async () => {
    const small = await buildTestApp({ env: { RENDER_MAX_PAGES: '1' } });
    try {
      const owner = await createUser(small);
      const partnerId = (
        await call<{ id: string }>(small, owner, 'POST', '/v1/partners', {
          name: 'Kunde',
          addresses: [hamburg],
        })
      ).id;
      const body = {
        documentType: 'INVOICE',
        name: 'Lang',
        creationDate: '2026-11-20',
        deliveryDate: '2026-11-20',
        partnerId,
      };
      // 120 lines do not fit on one page: the render cap refuses the PDF.
      const many = Array.from({ length: 120 }, (_, i) => ({
        description: `Position ${i + 1}`,
        quantity: 1,
        unitPrice: 10,
      }));
      const draft = await call<Doc>(small, owner, 'POST', '/v1/documents', {
        ...body,
        lineItems: many,
      });
      const refused = await small.request({
        method: 'PUT',
        url: `/v1/documents/${draft.id}`,
        token: owner.token,
        payload: { version: draft.version, status: 'FINAL' },
      });
      expect(refused.statusCode, refused.body).toBe(422);
      expect(refused.json<{ code: string }>().code).toBe('file_unprocessable');
      const still = await call<Doc>(small, owner, 'GET', `/v1/documents/${draft.id}`);
      expect(still).toMatchObject({
        status: 'DRAFT',
        documentNumber: null,
        version: draft.version,
      });
      const direct = await small.request({
        method: 'POST',
        url: '/v1/documents',
        token: owner.token,
        payload: { ...body, status: 'FINAL', lineItems: many },
      });
      expect(direct.statusCode).toBe(422);

      const ok = await call<Doc>(small, owner, 'POST', '/v1/documents', {
        ...body,
        status: 'FINAL',
        lineItems: [{ description: 'Kurz', quantity: 1, unitPrice: 10 }],
      });
      expect(ok).toMatchObject({ documentNumber: '2026-0001', pageCount: 1 });
      expect(ok.fileId).toMatch(/^fil_/);
    } finally {
      await small.close();
    }
  });
});

describe('send is no mail relay', () => {
  it('allows the partner’s addresses and at most 3 others, and caps sends per day by plan', async () => {
    const invoice = await finalInvoice({
      partnerId: partners.de,
      deliveryDate: '2026-11-18',
      lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    });
    const send = (payload: Body) =>
      t.request({
        method: 'POST',
        url: `/v1/documents/${invoice.id}/send`,
        token: user.token,
        payload,
      });
    const others = ['a@x.example', 'b@x.example', 'c@x.example', 'd@x.example'];
    const tooMany = await send({ to: others.slice(0, 2), cc: others.slice(2) });
    expect(tooMany.statusCode, tooMany.body).toBe(422);
    expect(tooMany.json<{ errors: { path: string }[] }>().errors.map((e) => e.path)).toEqual([
      '/body/cc/1',
    ]);
    // The partner's own address does not count as an extra recipient.
    const ok = await send({ to: ['ap@kunde.example', ...others.slice(0, 3)] });
    expect(ok.statusCode, ok.body).toBe(200);

    const usage = await call<{ mailsToday: { used: number; limit: number } }>(
      t,
      user,
      'GET',
      '/v1/usage',
    );
    expect(usage.mailsToday).toMatchObject({ limit: 20 });
    const used = usage.mailsToday.used;
    expect(used).toBeGreaterThan(0);
    // Use up the rest of today's sends of the FREE plan, then one more is refused.
    const key = `mail:${user.accountId}:${new Date().toISOString().slice(0, 10)}`;
    for (let i = used; i < 20; i++) await t.app.ctx.counters.hit(key, 86_400_000);
    const capped = await send({});
    expect(capped.statusCode, capped.body).toBe(429);
    expect(capped.json<{ code: string }>().code).toBe('quota_exceeded');
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
  });
});
