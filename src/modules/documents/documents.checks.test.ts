import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  mailsTo,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import {
  billingAddress,
  call,
  finalInvoice,
  publishedTemplate,
  type Body,
} from './documents.test-support.js';

/**
 * The reads that say what a write would do (docs/invoicing.md §4 and "Rendering, sending"):
 * the finalize check answers the 422 finalizing would give, the setup checklist the seller
 * part of it, the send preview what the send then mails; and the list's payment filters.
 */

let t: TestApp;
let user: TestUser;
let member: TestUser;
let other: TestUser;

interface Problem {
  path: string;
  message: string;
  code: string;
  fixAt: string;
}
interface Check {
  status: string;
  finalizable: boolean;
  problems: Problem[];
}
type Doc = Body & { id: string; version: number; documentNumber: string | null };

const get = (u: TestUser, url: string) => t.request({ method: 'GET', url, token: u.token });

async function partner(u: TestUser, body: Body): Promise<string> {
  return (await call<{ id: string }>(t, u, 'POST', '/v1/partners', { name: 'Kunde AG', ...body }))
    .id;
}

async function draft(u: TestUser, body: Body): Promise<Doc> {
  return call<Doc>(t, u, 'POST', '/v1/documents', {
    documentType: 'INVOICE',
    name: 'Beratung',
    creationDate: '2026-05-01',
    lineItems: [{ description: 'Beratung', quantity: 1, unitPrice: 100 }],
    ...body,
  });
}

async function putCompany(u: TestUser, change: Body): Promise<void> {
  const company = await call<Body>(t, u, 'GET', '/v1/account/company');
  const { updatedAt: _u, ...fields } = company;
  await call(t, u, 'PUT', '/v1/account/company', { ...fields, ...change }, 200);
}

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: user.accountId });
  other = await createUser(t);
});

afterAll(() => t.close());

describe('GET /v1/documents/{id}/finalize-check', () => {
  it('answers exactly the errors of the 422 finalizing gives, each with fixAt, writing nothing', async () => {
    const u = await createUser(t);
    await putCompany(u, { phone: null });
    const { email: _e, ...withoutEmail } = billingAddress('unused@example.com');
    const city = await partner(u, {
      addresses: [withoutEmail],
      einvoiceFormat: 'XRECHNUNG_CII',
    });
    const doc = await draft(u, { partnerId: city });

    const res = await get(u, `/v1/documents/${doc.id}/finalize-check`);
    expect(res.statusCode, res.body).toBe(200);
    const check = res.json<Check>();
    expect(check.status).toBe('DRAFT');
    expect(check.finalizable).toBe(false);

    const refused = await t.request({
      method: 'PUT',
      url: `/v1/documents/${doc.id}`,
      token: u.token,
      payload: { version: doc.version, status: 'FINAL' },
    });
    expect(refused.statusCode).toBe(422);
    const errors = refused.json<{ errors: Omit<Problem, 'fixAt'>[] }>().errors;
    expect(check.problems.map(({ fixAt: _f, ...e }) => e)).toEqual(errors);

    const fixAt = Object.fromEntries(check.problems.map((p) => [p.path, p.fixAt]));
    expect(fixAt).toMatchObject({
      '/company/phone': 'company',
      '/partner/electronicAddress': 'partner',
      '/body/deliveryDate': 'document',
      '/body/buyerReference': 'document',
    });
    // Nothing was written: the draft keeps its version and has no number.
    const after = await call<Doc>(t, u, 'GET', `/v1/documents/${doc.id}`);
    expect(after.version).toBe(doc.version);
    expect(after.documentNumber).toBeNull();
  });

  it('names the bank account and tax rates as where they are fixed', async () => {
    const u = await createUser(t);
    await putCompany(u, { bankAccounts: [] });
    const p = await partner(u, { addresses: [billingAddress('kunde@example.com')] });
    const doc = await draft(u, { partnerId: p, deliveryDate: '2026-04-30' });
    const check = (await get(u, `/v1/documents/${doc.id}/finalize-check`)).json<Check>();
    expect(check.problems).toEqual([
      {
        path: '/company/bankAccounts',
        message: 'needs an IBAN for payment by transfer',
        code: 'required',
        fixAt: 'bankAccount',
      },
    ]);
  });

  it('is finalizable once complete, and FINAL documents answer status FINAL without problems', async () => {
    const p = await partner(user, { addresses: [billingAddress('kunde@example.com')] });
    const doc = await draft(user, { partnerId: p, deliveryDate: '2026-04-30' });
    expect((await get(user, `/v1/documents/${doc.id}/finalize-check`)).json()).toEqual({
      status: 'DRAFT',
      finalizable: true,
      problems: [],
    });
    const final = await finalInvoice<Doc>(t, user, p, '2026-06-01');
    expect((await get(member, `/v1/documents/${final.id}/finalize-check`)).json()).toEqual({
      status: 'FINAL',
      finalizable: false,
      problems: [],
    });
  });

  it('does not check contract documents (as finalizing does not)', async () => {
    const templateId = await publishedTemplate(t, user, {
      documentType: 'LETTER',
      contentSource: '<p>Vertrag</p>',
    });
    const doc = await call<Doc>(t, user, 'POST', '/v1/documents', {
      documentType: 'CONTRACT',
      name: 'Vertrag',
      creationDate: '2026-05-01',
      templateId,
    });
    const check = (await get(user, `/v1/documents/${doc.id}/finalize-check`)).json<Check>();
    expect(check).toEqual({ status: 'DRAFT', finalizable: true, problems: [] });
  });

  it('answers 404 for another account’s document and 401 without a token', async () => {
    const doc = await draft(user, {});
    expect((await get(other, `/v1/documents/${doc.id}/finalize-check`)).statusCode).toBe(404);
    const anonymous = await t.request({
      method: 'GET',
      url: `/v1/documents/${doc.id}/finalize-check`,
    });
    expect(anonymous.statusCode).toBe(401);
  });
});

interface Readiness {
  ready: boolean;
  items: {
    key: string;
    done: boolean;
    required: boolean;
    fixAt: string;
    problems: Problem[];
    detail: { invoiceFormat: string; creditNoteFormat: string; nextInvoiceNumber: string } | null;
  }[];
}

describe('GET /v1/account/invoice-readiness', () => {
  it('is ready for a complete account; the logo is optional and numbering always set', async () => {
    const res = await get(member, '/v1/account/invoice-readiness');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<Readiness>();
    expect(body.ready).toBe(true);
    expect(body.items.map((i) => [i.key, i.done, i.required, i.fixAt])).toEqual([
      ['company', true, true, 'company'],
      ['bankAccount', true, true, 'bankAccount'],
      ['logo', false, false, 'company'],
      ['taxRates', true, true, 'taxRates'],
      ['invoiceNumbering', true, true, 'numbering'],
    ]);
    const numbering = body.items[4]!.detail!;
    expect(numbering.invoiceFormat).toBe('{YYYY}-{0000}');
    expect(numbering.creditNoteFormat).toBe('GS-{YYYY}-{0000}');
    expect(numbering.nextInvoiceNumber).toMatch(/^\d{4}-\d{4}$/);
  });

  it('lists the seller problems finalizing would name, with the same paths', async () => {
    const u = await createUser(t);
    await putCompany(u, { address: null, vatId: null, taxNumber: null, bankAccounts: [] });
    const body = (await get(u, '/v1/account/invoice-readiness')).json<Readiness>();
    expect(body.ready).toBe(false);
    const company = body.items.find((i) => i.key === 'company')!;
    expect(company.done).toBe(false);
    expect(company.problems.map((p) => [p.path, p.fixAt])).toEqual([
      ['/company/address/street', 'company'],
      ['/company/address/postalCode', 'company'],
      ['/company/address/city', 'company'],
      ['/company/address/country', 'company'],
      ['/company/taxNumber', 'company'],
    ]);
    const bank = body.items.find((i) => i.key === 'bankAccount')!;
    expect(bank.problems.map((p) => [p.path, p.code, p.fixAt])).toEqual([
      ['/company/bankAccounts', 'required', 'bankAccount'],
    ]);

    // The same items are what finalizing an invoice of this account refuses with.
    const p = await partner(u, { addresses: [billingAddress('kunde@example.com')] });
    const doc = await draft(u, { partnerId: p, deliveryDate: '2026-04-30' });
    const check = (await get(u, `/v1/documents/${doc.id}/finalize-check`)).json<Check>();
    expect(check.problems).toEqual([...company.problems, ...bank.problems]);
  });

  it('answers 401 without a token', async () => {
    const res = await t.request({ method: 'GET', url: '/v1/account/invoice-readiness' });
    expect(res.statusCode).toBe(401);
  });
});

interface Preview {
  to: string[];
  cc: string[];
  replyTo: string | null;
  from: string;
  subject: string;
  message: string;
  delivery: string;
  deliveryNote: string;
  finalizesFirst: boolean;
  attachments: { name: string; contentType: string }[];
}

describe('GET /v1/documents/{id}/send-preview', () => {
  it('answers what the send then mails: recipients, Reply-To, subject, text and attachment', async () => {
    const u = await createUser(t);
    const to = `preview-${Date.now()}@example.com`;
    const p = await partner(u, { addresses: [billingAddress(to)] });
    const doc = await draft(u, { partnerId: p, deliveryDate: '2026-04-30' });

    const res = await get(u, `/v1/documents/${doc.id}/send-preview`);
    expect(res.statusCode, res.body).toBe(200);
    const preview = res.json<Preview>();
    expect(preview).toMatchObject({
      to: [to],
      cc: [],
      replyTo: 'rechnung@test-gmbh.example',
      delivery: 'outbox',
      finalizesFirst: true,
      attachments: [{ name: 'Rechnung 2026-0001.pdf', contentType: 'application/pdf' }],
    });
    expect(preview.from).toContain('@');
    expect(preview.subject).toMatch(/^Rechnung 2026-0001 – /);
    expect(preview.message).toContain('im Anhang erhalten Sie Rechnung 2026-0001.');
    expect(preview.deliveryNote).toMatch(/outbox/);
    expect(preview.deliveryNote).toMatch(/will not leave this machine/);
    // Nothing was written.
    expect((await call<Doc>(t, u, 'GET', `/v1/documents/${doc.id}`)).version).toBe(doc.version);

    const sent = await call<Body>(t, u, 'POST', `/v1/documents/${doc.id}/send`, {}, 200);
    expect(sent.sentTo).toEqual(preview.to);
    expect(sent.documentNumber).toBe('2026-0001');
    const [mail] = await mailsTo(t, to);
    expect(mail!.raw).toContain(`Reply-To: ${preview.replyTo}`);
    expect(mail!.raw).toContain('Rechnung 2026-0001.pdf');
    const after = (await get(u, `/v1/documents/${doc.id}/send-preview`)).json<Preview>();
    expect(after.subject).toBe(preview.subject);
    expect(after.finalizesFirst).toBe(false);
    expect(after.attachments).toEqual(preview.attachments);
  });

  it('previews other recipients, checked as the send checks them', async () => {
    const p = await partner(user, { addresses: [billingAddress('kunde@example.com')] });
    const doc = await draft(user, { partnerId: p });
    const base = `/v1/documents/${doc.id}/send-preview`;
    const one = (await get(user, `${base}?to=buchhaltung@example.com`)).json<Preview>();
    expect(one.to).toEqual(['buchhaltung@example.com']);

    const four = ['a', 'b', 'c', 'd'].map((n) => `to=${n}@example.com`).join('&');
    const many = await get(user, `${base}?${four}`);
    expect(many.statusCode).toBe(422);
    expect(many.json()).toMatchObject({
      code: 'business_rule_violated',
      errors: [{ path: '/querystring/to/3', code: 'too_many_recipients' }],
    });
    // The partner's own address does not count as an extra recipient.
    const own = await get(
      user,
      `${base}?${four}&to=kunde@example.com`.replace('to=d@example.com&', ''),
    );
    expect(own.statusCode, own.body).toBe(200);

    const bad = await get(user, `${base}?to=not-an-email`);
    expect(bad.statusCode).toBe(400);
  });

  it('answers 422 at /querystring/to when there is no default recipient', async () => {
    const doc = await draft(user, { partnerName: 'Laufkundschaft' });
    const res = await get(user, `/v1/documents/${doc.id}/send-preview`);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({
      code: 'business_rule_violated',
      errors: [{ path: '/querystring/to', code: 'required' }],
    });
  });

  it('attaches the XRechnung XML for partners that want it', async () => {
    const p = await partner(user, {
      addresses: [billingAddress('amt@example.com')],
      einvoiceFormat: 'XRECHNUNG_UBL',
    });
    const doc = await draft(user, { partnerId: p });
    const preview = (await get(user, `/v1/documents/${doc.id}/send-preview`)).json<Preview>();
    expect(preview.attachments).toHaveLength(1);
    expect(preview.attachments[0]!.contentType).toBe('application/xml');
    expect(preview.attachments[0]!.name).toMatch(/^Rechnung \d{4}-\d{4}\.xml$/);
  });

  it('answers 404 for another account’s document', async () => {
    const doc = await draft(user, {});
    expect((await get(other, `/v1/documents/${doc.id}/send-preview`)).statusCode).toBe(404);
  });
});

describe('GET /v1/documents?paymentStatus=…&cancelled=…', () => {
  it('filters by the derived payment status and by Storno', async () => {
    const u = await createUser(t);
    const p = await partner(u, { addresses: [billingAddress('kunde@example.com')] });
    const unpaid = await finalInvoice<Doc>(t, u, p, '2026-06-01');
    const partial = await finalInvoice<Doc>(t, u, p, '2026-06-01');
    const paid = await finalInvoice<Doc>(t, u, p, '2026-06-01');
    const cancelled = await finalInvoice<Doc>(t, u, p, '2026-06-01');
    const pay = (documentId: string, amount: number) =>
      call(t, u, 'POST', '/v1/payments', {
        direction: 'INCOMING',
        documentId,
        amount,
        currency: 'EUR',
        paymentDate: '2026-05-10',
        status: 'MARKED',
      });
    await pay(partial.id, 100);
    await pay(paid.id, 1190);
    const storno = await call<Doc>(t, u, 'POST', `/v1/documents/${cancelled.id}/cancel`, {});

    const ids = async (query: string) =>
      (await call<{ data: Doc[] }>(t, u, 'GET', `/v1/documents?limit=100&${query}`)).data.map(
        (d) => d.id,
      );
    expect(await ids('paymentStatus=PAID')).toEqual([paid.id]);
    expect(await ids('paymentStatus=PARTIAL')).toEqual([partial.id]);
    // The credit note is an invoice without payments: UNPAID, as its answer says.
    expect(await ids('paymentStatus=UNPAID')).toEqual([storno.id, cancelled.id, unpaid.id]);
    expect(await ids('paymentStatus=UNPAID&paymentStatus=PARTIAL&cancelled=false')).toEqual([
      partial.id,
      unpaid.id,
    ]);
    expect(await ids('cancelled=true')).toEqual([cancelled.id]);
    expect(await ids('cancelled=false')).toEqual([paid.id, partial.id, unpaid.id]);

    // Each listed document answers the status it was selected by.
    const listed = await call<{ data: (Doc & { paymentStatus: string })[] }>(
      t,
      u,
      'GET',
      '/v1/documents?paymentStatus=PARTIAL&paymentStatus=PAID',
    );
    expect(listed.data.map((d) => d.paymentStatus).sort()).toEqual(['PAID', 'PARTIAL']);

    // The CSV export pages with the same (repeated) filter.
    const csv = await t.request({
      method: 'GET',
      url: '/v1/documents?paymentStatus=PARTIAL&paymentStatus=PAID',
      token: u.token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.statusCode, csv.body).toBe(200);
    expect(csv.body.trim().split('\r\n')).toHaveLength(3);

    const bad = await t.request({
      method: 'GET',
      url: '/v1/documents?paymentStatus=OPEN',
      token: u.token,
    });
    expect(bad.statusCode).toBe(400);
  });
});
