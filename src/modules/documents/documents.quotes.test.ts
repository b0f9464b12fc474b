import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock, DAY } from '../../shared/clock.js';
import {
  canValidate,
  describeErrors,
  validateAll,
} from '../../shared/einvoice/validator.test-support.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import { expireQuotes } from './documents.quotes.js';
import { billingAddress, call, download, type Body } from './documents.test-support.js';

/**
 * Quotes and order confirmations (docs/invoicing.md, "Quotes and order confirmations"): own
 * number ranges, a quote's outcome (accepted, declined, expired by the schedule) audited and
 * announced, conversion quote → order confirmation → invoice in full or in part with the
 * chain visible from each document, the layouts in German and English, and the converted
 * invoice's e-invoice under KoSIT's rules where the kit is installed.
 */

const TODAY = '2026-06-01';
let t: TestApp;
let clock: ManualClock;

type Doc = Body & {
  id: string;
  version: number;
  documentType: string;
  status: string;
  documentNumber: string | null;
  quoteStatus: string | null;
  validUntil: string | null;
  quoteDecidedBy: string | null;
  originDocumentId: string | null;
  convertedToDocumentIds: string[];
  contractReference: string | null;
  fileId: string | null;
  lineItems: { description: string }[];
  grossTotal: number;
};

beforeAll(async () => {
  clock = new ManualClock(new Date(`${TODAY}T08:00:00Z`));
  t = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
});
afterAll(async () => {
  await t.close();
});

async function account(language?: string): Promise<{ user: TestUser; partnerId: string }> {
  const user = await createUser(t);
  const partner = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
    name: language === 'en' ? 'Acme Ltd' : 'Kunde GmbH',
    ...(language ? { language } : {}),
    addresses: [billingAddress('einkauf@kunde.example')],
  });
  return { user, partnerId: partner.id };
}

const LINES = [
  { description: 'Konzept', quantity: 1, unitPrice: 500 },
  { description: 'Umsetzung', quantity: 10, unitPrice: 100 },
  { description: 'Schulung', quantity: 2, unitPrice: 250 },
];

const quote = (user: TestUser, partnerId: string, extra: Body = {}) =>
  call<Doc>(t, user, 'POST', '/v1/documents', {
    documentType: 'QUOTE',
    name: 'Website',
    partnerId,
    creationDate: TODAY,
    status: 'FINAL',
    lineItems: LINES,
    orderReference: 'PO-4711',
    ...extra,
  });

const read = (user: TestUser, id: string) => call<Doc>(t, user, 'GET', `/v1/documents/${id}`);

async function outbox(user: TestUser, type: string): Promise<string[]> {
  const rows = await t.app.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['payload'])
    .where('account_id', '=', user.accountId)
    .where('event_type', '=', type)
    .execute();
  return rows.map((r) => (JSON.parse(r.payload) as { data: { id: string } }).data.id);
}

async function audits(user: TestUser, id: string): Promise<string[]> {
  const rows = await t.app.ctx.db
    .selectFrom('audit_events')
    .select(['action'])
    .where('account_id', '=', user.accountId)
    .where('resource_id', '=', id)
    .execute();
  return rows.map((r) => r.action);
}

async function subscribe(user: TestUser): Promise<void> {
  await call(t, user, 'POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: [
      'quote.finalized',
      'quote.accepted',
      'quote.declined',
      'quote.expired',
      'order_confirmation.finalized',
    ],
  });
}

describe('quotes: numbers, outcome, events', () => {
  it('finalizes a quote with AN-… and an order confirmation with AB-…, each its own sequence', async () => {
    const { user, partnerId } = await account();
    const q1 = await quote(user, partnerId);
    const q2 = await quote(user, partnerId);
    expect(q1).toMatchObject({
      documentType: 'QUOTE',
      status: 'FINAL',
      documentNumber: 'AN-2026-0001',
      quoteStatus: 'OPEN',
      validUntil: '2026-07-01',
      originDocumentId: null,
      convertedToDocumentIds: [],
    });
    expect(q2.documentNumber).toBe('AN-2026-0002');
    const oc = await call<Doc>(t, user, 'POST', `/v1/documents/${q1.id}/convert`, {
      documentType: 'ORDER_CONFIRMATION',
    });
    const finalOc = await call<Doc>(t, user, 'PUT', `/v1/documents/${oc.id}`, {
      version: oc.version,
      status: 'FINAL',
    });
    expect(finalOc.documentNumber).toBe('AB-2026-0001');
    expect(finalOc.quoteStatus).toBeNull();
    // The invoice sequence is untouched by both.
    const numbering = await call<Body>(t, user, 'GET', '/v1/documents/numbering');
    expect(numbering).toMatchObject({
      quoteFormat: 'AN-{YYYY}-{0000}',
      orderConfirmationFormat: 'AB-{YYYY}-{0000}',
      nextQuoteNumber: 'AN-2026-0003',
      nextOrderConfirmationNumber: 'AB-2026-0002',
      nextInvoiceNumber: '2026-0001',
    });
  });

  it('numbers by the account’s own quote and order confirmation formats', async () => {
    const { user, partnerId } = await account();
    const saved = await call<Body>(t, user, 'PUT', '/v1/documents/numbering', {
      version: 0,
      quoteFormat: 'ANG-{YY}{MM}-{000}',
      orderConfirmationFormat: 'AB/{YYYY}/{00000}',
    });
    expect(saved).toMatchObject({
      invoiceFormat: '{YYYY}-{0000}',
      nextQuoteNumber: 'ANG-2606-001',
      nextOrderConfirmationNumber: 'AB/2026/00001',
    });
    expect((await quote(user, partnerId)).documentNumber).toBe('ANG-2606-001');
    const bad = await t.request({
      method: 'PUT',
      url: '/v1/documents/numbering',
      token: user.token,
      payload: { quoteFormat: 'AN-{YYYY}' },
    });
    expect(bad.statusCode, bad.body).toBe(400);
    expect(bad.json<{ errors: { path: string }[] }>().errors[0]!.path).toBe('/body/quoteFormat');
  });

  it('refuses a quote without buyer or lines with 422 naming the fields; validUntil only on quotes', async () => {
    const { user } = await account();
    const res = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: {
        documentType: 'QUOTE',
        name: 'Leer',
        creationDate: TODAY,
        status: 'FINAL',
      },
    });
    expect(res.statusCode, res.body).toBe(422);
    const paths = res.json<{ errors: { path: string }[] }>().errors.map((e) => e.path);
    expect(paths).toContain('/body/partnerId');
    expect(paths).toContain('/body/lineItems');
    // finalize-check answers the same problems for a draft quote, without writing.
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'QUOTE',
      name: 'Leer',
      creationDate: TODAY,
    });
    const check = await call<{ finalizable: boolean; problems: { path: string }[] }>(
      t,
      user,
      'GET',
      `/v1/documents/${draft.id}/finalize-check`,
    );
    expect(check.finalizable).toBe(false);
    expect(check.problems.map((p) => p.path)).toEqual(expect.arrayContaining(paths));
    const wrong = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: user.token,
      payload: { documentType: 'INVOICE', name: 'X', creationDate: TODAY, validUntil: TODAY },
    });
    expect(wrong.statusCode, wrong.body).toBe(400);
  });

  it('records accepted and declined, once, audited and announced; answers 409 after', async () => {
    const { user, partnerId } = await account();
    await subscribe(user);
    const a = await quote(user, partnerId);
    const d = await quote(user, partnerId);
    const accepted = await call<Doc>(
      t,
      user,
      'POST',
      `/v1/documents/${a.id}/decision`,
      {
        decision: 'ACCEPTED',
        name: 'Erika Mustermann',
      },
      200,
    );
    expect(accepted).toMatchObject({ quoteStatus: 'ACCEPTED', quoteDecidedBy: 'Erika Mustermann' });
    const declined = await call<Doc>(
      t,
      user,
      'POST',
      `/v1/documents/${d.id}/decision`,
      {
        decision: 'DECLINED',
      },
      200,
    );
    expect(declined.quoteStatus).toBe('DECLINED');
    const again = await t.request({
      method: 'POST',
      url: `/v1/documents/${a.id}/decision`,
      token: user.token,
      payload: { decision: 'DECLINED' },
    });
    expect(again.statusCode, again.body).toBe(409);
    expect(await outbox(user, 'quote.finalized')).toEqual(expect.arrayContaining([a.id, d.id]));
    expect(await outbox(user, 'quote.accepted')).toEqual([a.id]);
    expect(await outbox(user, 'quote.declined')).toEqual([d.id]);
    expect(await audits(user, a.id)).toContain('document.quote_accepted');
    expect(await audits(user, d.id)).toContain('document.quote_declined');
    // A declined quote cannot be converted.
    const convert = await t.request({
      method: 'POST',
      url: `/v1/documents/${d.id}/convert`,
      token: user.token,
      payload: { documentType: 'INVOICE' },
    });
    expect(convert.statusCode, convert.body).toBe(409);
  });

  it('lets one of two answers given at once win; the other is 409', async () => {
    const { user, partnerId } = await account();
    const q = await quote(user, partnerId);
    const answers = await Promise.all(
      (['ACCEPTED', 'DECLINED'] as const).map((decision) =>
        t.request({
          method: 'POST',
          url: `/v1/documents/${q.id}/decision`,
          token: user.token,
          payload: { decision },
        }),
      ),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    const winner = answers.find((r) => r.statusCode === 200)!.json<Doc>();
    expect((await read(user, q.id)).quoteStatus).toBe(winner.quoteStatus);
  });

  it('expires OPEN quotes after validUntil by the schedule, once, and refuses them after', async () => {
    const { user, partnerId } = await account();
    await subscribe(user);
    const q = await quote(user, partnerId, { validUntil: '2026-06-10' });
    expect(q.validUntil).toBe('2026-06-10');
    expect(await expireQuotes(t.app.ctx)).toBe(0);
    clock.advance(10 * DAY);
    expect((await read(user, q.id)).quoteStatus).toBe('OPEN');
    clock.advance(1 * DAY);
    expect(await expireQuotes(t.app.ctx)).toBeGreaterThanOrEqual(1);
    expect(await expireQuotes(t.app.ctx)).toBe(0);
    const expired = await read(user, q.id);
    expect(expired).toMatchObject({ quoteStatus: 'EXPIRED', quoteDecidedBy: 'system' });
    expect(await outbox(user, 'quote.expired')).toEqual([q.id]);
    expect(await audits(user, q.id)).toContain('document.quote_expired');
    for (const [url, payload] of [
      [`/v1/documents/${q.id}/decision`, { decision: 'ACCEPTED' }],
      [`/v1/documents/${q.id}/convert`, { documentType: 'INVOICE' }],
    ] as const) {
      const res = await t.request({ method: 'POST', url, token: user.token, payload });
      expect(res.statusCode, res.body).toBe(409);
    }
  });

  it('lists quotes by outcome; one past validUntil is EXPIRED there before the scan', async () => {
    const { user, partnerId } = await account();
    const day = clock.now().toISOString().slice(0, 10);
    const accepted = await quote(user, partnerId, { creationDate: day });
    const declined = await quote(user, partnerId, { creationDate: day });
    const open = await quote(user, partnerId, { creationDate: day });
    const lapsed = await quote(user, partnerId, { creationDate: day, validUntil: day });
    const draft = await quote(user, partnerId, { creationDate: day, status: 'DRAFT' });
    await call(
      t,
      user,
      'POST',
      `/v1/documents/${accepted.id}/decision`,
      { decision: 'ACCEPTED' },
      200,
    );
    await call(
      t,
      user,
      'POST',
      `/v1/documents/${declined.id}/decision`,
      { decision: 'DECLINED' },
      200,
    );
    clock.advance(DAY);
    const ids = async (quoteStatus: string) =>
      (
        await call<{ data: { id: string }[] }>(
          t,
          user,
          'GET',
          `/v1/documents?documentType=QUOTE&quoteStatus=${quoteStatus}`,
        )
      ).data.map((d) => d.id);
    expect(await ids('OPEN')).toEqual([open.id]);
    expect(await ids('EXPIRED')).toEqual([lapsed.id]);
    expect(await ids('ACCEPTED')).toEqual([accepted.id]);
    expect(await ids('DECLINED')).toEqual([declined.id]);
    expect(await ids('OPEN')).not.toContain(draft.id);
    const wrong = await t.request({
      method: 'GET',
      url: '/v1/documents?quoteStatus=MAYBE',
      token: user.token,
    });
    expect(wrong.statusCode, wrong.body).toBe(400);
  });
});

describe('quotes: conversion and the chain', () => {
  it('converts quote → order confirmation → invoice, the chain visible from each', async () => {
    const { user, partnerId } = await account();
    const q = await quote(user, partnerId);
    const oc = await call<Doc>(t, user, 'POST', `/v1/documents/${q.id}/convert`, {
      documentType: 'ORDER_CONFIRMATION',
    });
    expect(oc).toMatchObject({
      documentType: 'ORDER_CONFIRMATION',
      status: 'DRAFT',
      originDocumentId: q.id,
      partnerId,
      orderReference: 'PO-4711',
      grossTotal: q.grossTotal,
    });
    // Converted in full while OPEN: the quote is accepted.
    const after = await read(user, q.id);
    expect(after).toMatchObject({ quoteStatus: 'ACCEPTED', convertedToDocumentIds: [oc.id] });
    const finalOc = await call<Doc>(t, user, 'PUT', `/v1/documents/${oc.id}`, {
      version: oc.version,
      status: 'FINAL',
    });
    const inv = await call<Doc>(t, user, 'POST', `/v1/documents/${finalOc.id}/convert`, {
      documentType: 'INVOICE',
    });
    expect(inv).toMatchObject({
      documentType: 'INVOICE',
      status: 'DRAFT',
      originDocumentId: oc.id,
      contractReference: q.documentNumber,
      orderReference: 'PO-4711',
    });
    expect((await read(user, oc.id)).convertedToDocumentIds).toEqual([inv.id]);
    const list = await call<{ data: Doc[] }>(
      t,
      user,
      'GET',
      '/v1/documents?documentType=ORDER_CONFIRMATION',
    );
    expect(list.data.map((d) => d.id)).toEqual([oc.id]);
    expect(list.data[0]!.convertedToDocumentIds).toEqual([inv.id]);
    // An order confirmation does not convert back into an order confirmation.
    const back = await t.request({
      method: 'POST',
      url: `/v1/documents/${oc.id}/convert`,
      token: user.token,
      payload: { documentType: 'ORDER_CONFIRMATION' },
    });
    expect(back.statusCode, back.body).toBe(400);
  });

  it('converts chosen lines only, leaves the quote OPEN, and refuses unknown positions and drafts', async () => {
    const { user, partnerId } = await account();
    const q = await quote(user, partnerId);
    const part = await call<Doc>(t, user, 'POST', `/v1/documents/${q.id}/convert`, {
      documentType: 'INVOICE',
      linePositions: [3, 1],
    });
    expect(part.lineItems.map((l) => l.description)).toEqual(['Konzept', 'Schulung']);
    expect(part.grossTotal).toBe(1190);
    expect((await read(user, q.id)).quoteStatus).toBe('OPEN');
    const unknown = await t.request({
      method: 'POST',
      url: `/v1/documents/${q.id}/convert`,
      token: user.token,
      payload: { documentType: 'INVOICE', linePositions: [4] },
    });
    expect(unknown.statusCode, unknown.body).toBe(400);
    const draft = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'QUOTE',
      name: 'Entwurf',
      partnerId,
      creationDate: TODAY,
      lineItems: LINES,
    });
    const res = await t.request({
      method: 'POST',
      url: `/v1/documents/${draft.id}/convert`,
      token: user.token,
      payload: { documentType: 'INVOICE' },
    });
    expect(res.statusCode, res.body).toBe(409);
    const other = await createUser(t);
    const foreign = await t.request({
      method: 'POST',
      url: `/v1/documents/${q.id}/convert`,
      token: other.token,
      payload: { documentType: 'INVOICE' },
    });
    expect(foreign.statusCode).toBe(404);
  });
});

describe('quotes: layouts and the converted invoice’s e-invoice', () => {
  it('prints "Angebot … gültig bis" in German and "Quote … valid until" in English', async () => {
    for (const [language, words] of [
      ['de', ['Angebot AN-2026-0001', 'gültig bis', 'Auftragsbestätigung AB-2026-0001']],
      ['en', ['Quote AN-2026-0001', 'valid until', 'Order confirmation AB-2026-0001']],
    ] as const) {
      const { user, partnerId } = await account(language);
      const q = await quote(user, partnerId);
      expect(q.fileId).not.toBeNull();
      const quoteText = (await pageTexts(await download(t, user, q.fileId!))).join('\n');
      expect(quoteText).toContain(words[0]);
      expect(quoteText).toContain(words[1]);
      const oc = await call<Doc>(t, user, 'POST', `/v1/documents/${q.id}/convert`, {
        documentType: 'ORDER_CONFIRMATION',
      });
      const finalOc = await call<Doc>(t, user, 'PUT', `/v1/documents/${oc.id}`, {
        version: oc.version,
        status: 'FINAL',
      });
      const ocText = (await pageTexts(await download(t, user, finalOc.fileId!))).join('\n');
      expect(ocText).toContain(words[2]);
      expect(ocText).toContain('AN-2026-0001');
      // PDF only: no e-invoice of a quote.
      const xml = await t.request({
        method: 'GET',
        url: `/v1/documents/${q.id}/einvoice?format=xrechnung-cii`,
        token: user.token,
      });
      expect(xml.statusCode).toBe(409);
    }
  });

  it('writes the quote as contract reference (BT-12) into the converted invoice’s e-invoice', async () => {
    const { user, partnerId } = await account();
    const q = await quote(user, partnerId);
    const draft = await call<Doc>(t, user, 'POST', `/v1/documents/${q.id}/convert`, {
      documentType: 'INVOICE',
    });
    const inv = await call<Doc>(t, user, 'PUT', `/v1/documents/${draft.id}`, {
      version: draft.version,
      deliveryDate: TODAY,
      status: 'FINAL',
    });
    const get = async (format: string) => {
      const res = await t.request({
        method: 'GET',
        url: `/v1/documents/${inv.id}/einvoice?format=${format}`,
        token: user.token,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.body;
    };
    const cii = await get('xrechnung-cii');
    const ubl = await get('xrechnung-ubl');
    expect(cii).toMatch(
      /<ram:ContractReferencedDocument>\s*<ram:IssuerAssignedID>AN-2026-0001<\/ram:IssuerAssignedID>/,
    );
    expect(cii).toContain('PO-4711');
    expect(ubl).toMatch(/<cac:ContractDocumentReference>\s*<cbc:ID>AN-2026-0001<\/cbc:ID>/);
    if (canValidate()) {
      const results = validateAll([
        { name: 'converted.cii.xml', bytes: cii },
        { name: 'converted.ubl.xml', bytes: ubl },
      ]);
      for (const result of results) expect(result.errors, describeErrors(result)).toBe(0);
    }
  });
});
