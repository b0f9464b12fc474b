import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../../test/contract.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import { buildEnInvoice, SELLER } from '../../shared/einvoice/fixtures.test-support.js';
import { toCii } from '../../shared/einvoice/index.js';
import { pageTexts } from '../../shared/pdf/pdf.test-support.js';
import {
  canValidate,
  describeProblems,
  validateAll,
} from '../../shared/sepa/validator.test-support.js';
import { contractBody, postContract } from '../contracts/contracts.test-support.js';
import {
  billingAddress,
  call,
  download,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';
import { dunnableInvoices } from '../documents/index.js';
import { SAMPLES, upload } from '../files/files.test-support.js';

/**
 * SEPA collections and transfers (docs/sepa.md): dry runs and real runs with their refusals,
 * FRST then RCUR on a mandate, collection dates from the pre-notification period, PENDING
 * payments, the pain.008 / pain.001 files (validated by the offline SEPA validator), Skonto
 * on transfers, and the pre-notification printed on a direct-debit contract's invoice.
 */

type Run = {
  id: string | null;
  items: Body[];
  refused: { invoiceId: string; reason: string }[];
  total: number;
};

const CREDITOR_ID = 'DE98ZZZ09999999999';
const files: { name: string; xml: string }[] = [];

let t: TestApp;
let user: TestUser;
let kunde: string;
let ohne: string;
let widerrufen: string;
let mandateId: string;

function refused(res: LightMyRequestResponse, status: number, code: string): Body {
  expect(res.statusCode, res.body).toBe(status);
  return expectProblem(res, code);
}

const partner = async (name: string, type = 'CUSTOMER') =>
  (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name,
      type,
      addresses: [billingAddress('buchhaltung@kunde.example')],
    })
  ).id;

const newMandate = (partnerId: string, reference: string) =>
  call<{ id: string; version: number }>(t, user, 'POST', `/v1/partners/${partnerId}/mandates`, {
    reference,
    signedOn: '2026-01-15',
    iban: 'DE89370400440532013000',
    debtorName: 'Kunde GmbH',
  });

const invoice = async (partnerId: string, extra: Body = {}) =>
  (await finalInvoice<{ id: string }>(t, user, partnerId, '2026-07-10', extra)).id;

const collect = (payload: Body) =>
  t.request({ method: 'POST', url: '/v1/sepa/collections', token: user.token, payload });

async function fileOf(kind: 'collections' | 'transfers', id: string): Promise<string> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/sepa/${kind}/${id}/file`,
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/xml/);
  return res.body;
}

beforeAll(async () => {
  // Tuesday 30 June 2026.
  t = await buildTestApp({ clock: new ManualClock(new Date('2026-06-30T08:00:00Z')) });
  user = await createUser(t);
  const company = await call<Body>(t, user, 'GET', '/v1/account/company');
  const { updatedAt: _u, ...body } = company;
  await call(t, user, 'PUT', '/v1/account/company', { ...body, creditorId: CREDITOR_ID });
  kunde = await partner('Kunde GmbH');
  ohne = await partner('Ohne Mandat KG');
  widerrufen = await partner('Widerrufen AG');
  mandateId = (await newMandate(kunde, 'M-1')).id;
  const revoked = await newMandate(widerrufen, 'M-REV');
  await call(t, user, 'POST', `/v1/sepa/mandates/${revoked.id}/revoke`, { version: 1 }, 200);
});
afterAll(() => t.close());

describe('collections', () => {
  let first: string;

  it('answers a dry run: what would be collected and what is refused, writing nothing', async () => {
    first = await invoice(kunde);
    const noMandate = await invoice(ohne);
    const revoked = await invoice(widerrufen);
    const draft = await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      name: 'Entwurf',
      creationDate: '2026-06-30',
      partnerId: kunde,
      lineItems: [{ description: 'X', quantity: 1, unitPrice: 10 }],
    });
    const unknown = 'doc_00000000000000000000000000';
    const res = await collect({
      invoiceIds: [first, noMandate, revoked, draft.id, unknown],
      dryRun: true,
    });
    expect(res.statusCode, res.body).toBe(200);
    const run = res.json<Run>();
    expect(run).toMatchObject({ id: null, dryRun: true, total: 1190 });
    expect(run.items).toEqual([
      expect.objectContaining({
        invoiceId: first,
        mandateId,
        mandateReference: 'M-1',
        sequenceType: 'FRST',
        amount: 1190,
        // 14 days of pre-notification from today (the due date 10 July is earlier).
        executionDate: '2026-07-14',
        iban: 'DE89 **** **** **** **30 00',
        paymentId: null,
      }),
    ]);
    expect(run.refused.map((r) => [r.invoiceId, r.reason])).toEqual([
      [noMandate, 'no_mandate'],
      [revoked, 'mandate_revoked'],
      [draft.id, 'not_final'],
      [unknown, 'not_found'],
    ]);
    const mandate = await call<Body>(t, user, 'GET', `/v1/sepa/mandates/${mandateId}`);
    expect(mandate.sequenceState).toBe('FIRST');
    const runs = await t.app.ctx.db
      .selectFrom('sepa_runs')
      .selectAll()
      .where('account_id', '=', user.accountId)
      .execute();
    expect(runs).toEqual([]);
  });

  it('collects FRST first: a PENDING payment, the mandate moves to RECURRING, the pain.008 file', async () => {
    const res = await collect({ invoiceIds: [first] });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json<Run>();
    expect(run.id).toMatch(/^sep_/);
    const item = run.items[0]!;
    expect(item).toMatchObject({ sequenceType: 'FRST', executionDate: '2026-07-14' });
    expect(String(item.endToEndId)).toMatch(/^KTR[0-9A-Z]{20}$/);
    const payment = await call<Body>(t, user, 'GET', `/v1/payments/${String(item.paymentId)}`);
    expect(payment).toMatchObject({
      status: 'PENDING',
      direction: 'INCOMING',
      paymentMethod: 'DIRECT_DEBIT',
      amount: 1190,
      paymentDate: '2026-07-14',
      documentId: first,
    });
    const mandate = await call<Body>(t, user, 'GET', `/v1/sepa/mandates/${mandateId}`);
    expect(mandate).toMatchObject({
      sequenceState: 'RECURRING',
      nextSequenceType: 'RCUR',
      lastCollectionDate: '2026-07-14',
    });
    const xml = await fileOf('collections', run.id!);
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.008.001.08');
    expect(xml).toContain('<SeqTp>FRST</SeqTp>');
    expect(xml).toContain('<MndtId>M-1</MndtId>');
    expect(xml).toContain(CREDITOR_ID);
    expect(xml).toContain(`<EndToEndId>${String(item.endToEndId)}</EndToEndId>`);
    expect(xml).toContain('<ReqdColltnDt>2026-07-14</ReqdColltnDt>');
    files.push({ name: 'collection-frst.xml', xml });
    const read = await call<Run>(t, user, 'GET', `/v1/sepa/collections/${run.id!}`);
    expect(read.items).toEqual(run.items);
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', '=', run.id!)
      .execute();
    expect(audit.map((a) => a.action)).toEqual(['sepa_collection.created']);
  });

  it('collects RCUR next, on a requested date; an invoice already collected is refused', async () => {
    const second = await invoice(kunde);
    const res = await collect({ invoiceIds: [first, second], collectionDate: '2026-08-03' });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json<Run>();
    expect(run.items).toEqual([
      expect.objectContaining({
        invoiceId: second,
        sequenceType: 'RCUR',
        executionDate: '2026-08-03',
      }),
    ]);
    expect(run.refused).toEqual([
      expect.objectContaining({ invoiceId: first, reason: 'already_in_run' }),
    ]);
    const xml = await fileOf('collections', run.id!);
    expect(xml).toContain('<SeqTp>RCUR</SeqTp>');
    files.push({ name: 'collection-rcur.xml', xml });
  });

  it('refuses a date before the earliest allowed, a non-business day, and a run with nothing to collect', async () => {
    const third = await invoice(kunde);
    const early = await collect({
      invoiceIds: [third],
      collectionDate: '2026-07-01',
      dryRun: true,
    });
    expect(early.json<Run>().refused).toEqual([
      expect.objectContaining({ invoiceId: third, reason: 'date_too_early' }),
    ]);
    const saturday = await collect({ invoiceIds: [third], collectionDate: '2026-07-18' });
    const problem = refused(saturday, 400, 'validation_failed');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/body/collectionDate' })]);
    const nothing = await collect({ invoiceIds: [third], collectionDate: '2026-07-01' });
    const none = refused(nothing, 422, 'business_rule_violated');
    expect(none.errors).toEqual([
      expect.objectContaining({ path: '/body/invoiceIds/0', code: 'date_too_early' }),
    ]);
    const runs = await t.app.ctx.db
      .selectFrom('sepa_runs')
      .select('id')
      .where('account_id', '=', user.accountId)
      .execute();
    expect(runs).toHaveLength(2);
  });

  it('keeps invoices with a collection under way out of dunning', async () => {
    const open = await invoice(kunde);
    const rows = await dunnableInvoices(t.app.ctx.db, user.accountId, {
      asOf: '2026-12-31',
      maxLevel: 4,
      limit: 100,
    });
    const ids = rows.map((r) => r.id);
    expect(ids).toContain(open);
    expect(ids).not.toContain(first);
  });

  it('needs the creditor id', async () => {
    const bare = await createUser(t);
    const res = await t.request({
      method: 'POST',
      url: '/v1/sepa/collections',
      token: bare.token,
      payload: { invoiceIds: ['doc_00000000000000000000000000'], dryRun: true },
    });
    const problem = refused(res, 422, 'business_rule_violated');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/company/creditorId' })]);
  });
});

describe('transfers', () => {
  let vendor: string;
  let fileId: string;

  const supplierInvoice = async (partnerId: string, extra: Body = {}) =>
    (
      await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
        documentType: 'INVOICE',
        source: 'UPLOADED',
        fileId,
        name: 'Eingangsrechnung',
        partnerId,
        creationDate: '2026-06-25',
        dueDate: '2026-07-25',
        status: 'FINAL',
        documentNumber: `ER-${Math.random().toString(36).slice(2, 8)}`,
        lineItems: [{ description: 'Material', quantity: 10, unitPrice: 100 }],
        ...extra,
      })
    ).id;

  beforeAll(async () => {
    vendor = await partner('Lieferant AG', 'VENDOR');
    await call(t, user, 'PUT', `/v1/partners/${vendor}/bank-account`, {
      version: 1,
      holderName: 'Lieferant AG',
      iban: 'DE02120300000000202051',
      bic: 'BYLADEM1001',
    });
    fileId = (await upload(t, user, 'application/pdf', SAMPLES.pdf, 'rechnung.pdf')).ticket.fileId;
  });

  it('pays the Skonto amount on or before the Skonto deadline, and lists refusals', async () => {
    const withSkonto = await supplierInvoice(vendor, { skontoPercent: 2, skontoDays: 10 });
    const plain = await supplierInvoice(vendor);
    const noAccount = await supplierInvoice(ohne);
    const own = await invoice(kunde);
    const res = await t.request({
      method: 'POST',
      url: '/v1/sepa/transfers',
      token: user.token,
      payload: {
        invoiceIds: [withSkonto, plain, noAccount, own],
        useSkonto: true,
        executionDate: '2026-07-10',
      },
    });
    expect(res.statusCode, res.body).toBe(201);
    const run = res.json<Run>();
    expect(run.items).toEqual([
      // Deadline 5 July (a Sunday): executed on the business day before it.
      expect.objectContaining({
        invoiceId: withSkonto,
        amount: 1166.2,
        skonto: true,
        executionDate: '2026-07-03',
        iban: 'DE02 **** **** **** **20 51',
      }),
      expect.objectContaining({
        invoiceId: plain,
        amount: 1190,
        skonto: false,
        executionDate: '2026-07-10',
      }),
    ]);
    expect(run.refused.map((r) => [r.invoiceId, r.reason])).toEqual([
      [noAccount, 'no_bank_account'],
      [own, 'not_a_supplier_invoice'],
    ]);
    const payment = await call<Body>(
      t,
      user,
      'GET',
      `/v1/payments/${String(run.items[0]!.paymentId)}`,
    );
    expect(payment).toMatchObject({ status: 'PENDING', direction: 'OUTGOING', amount: 1166.2 });
    const xml = await fileOf('transfers', run.id!);
    expect(xml).toContain('urn:iso:std:iso:20022:tech:xsd:pain.001.001.09');
    expect(xml).toContain('<InstdAmt Ccy="EUR">1166.20</InstdAmt>');
    files.push({ name: 'transfer-skonto.xml', xml });
  });
});

describe('transfers to the e-invoice’s payee IBAN', () => {
  it('pays an uploaded e-invoice whose partner has no bank account to its BT-84 IBAN', async () => {
    const vatId = 'DE811907980';
    const supplier = await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Muster Software GmbH',
      type: 'VENDOR',
      vatId,
    });
    const xml = toCii(buildEnInvoice({ number: 'ER-BT84', seller: { ...SELLER, vatId } }));
    const { ticket } = await upload(t, user, 'application/xml', Buffer.from(xml), 'er.xml');
    const queued = await t.request({
      method: 'POST',
      url: '/v1/documents/processing',
      token: user.token,
      payload: {
        documentType: 'INVOICE',
        name: 'Eingangsrechnung',
        creationDate: '2026-06-01',
        fileId: ticket.fileId,
      },
    });
    expect(queued.statusCode, queued.body).toBe(202);
    await t.app.ctx.jobs.drain();
    const id = queued.json<{ id: string }>().id;
    const doc = await call<Body & { version: number; eInvoice: Body }>(
      t,
      user,
      'GET',
      `/v1/documents/${id}`,
    );
    expect(doc.partnerId).toBe(supplier.id);
    expect(doc.eInvoice.payeeIban).toBe('DE02120300000000202051');
    await call(t, user, 'PUT', `/v1/documents/${id}`, { version: doc.version, status: 'FINAL' });
    const res = await t.request({
      method: 'POST',
      url: '/v1/sepa/transfers',
      token: user.token,
      payload: { invoiceIds: [id], dryRun: true },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Run>().items).toEqual([
      expect.objectContaining({
        invoiceId: id,
        iban: 'DE02 **** **** **** **20 51',
        amount: doc.grossTotal,
        executionDate: '2026-06-30',
      }),
    ]);
  });
});

describe('pre-notification on a direct-debit contract invoice', () => {
  it('prints mandate, creditor id, amount and date, and a contract collection uses that date', async () => {
    const contract = await postContract(
      t,
      user,
      contractBody(kunde, {
        status: 'ACTIVE',
        billing: {
          interval: 'MONTHLY',
          nextInvoiceDate: '2026-12-01',
          lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 100 }],
          paymentMethod: 'DIRECT_DEBIT',
        },
      }),
    );
    expect(contract.statusCode, contract.body).toBe(201);
    const contractId = contract.json<{ id: string; billing: Body }>().id;
    expect(contract.json<{ billing: Body }>().billing.paymentMethod).toBe('DIRECT_DEBIT');
    const templates = await call<{ data: { id: string }[] }>(
      t,
      user,
      'GET',
      '/v1/document-templates?systemKey=INVOICE',
    );
    const doc = await call<{ id: string; fileId: string }>(t, user, 'POST', '/v1/documents', {
      documentType: 'INVOICE',
      source: 'GENERATED',
      templateId: templates.data[0]!.id,
      name: 'Wartung Juni',
      partnerId: kunde,
      contractId,
      creationDate: '2026-06-30',
      deliveryDate: '2026-06-30',
      dueDate: '2026-07-07',
      status: 'FINAL',
      lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 100 }],
    });
    const text = (await pageTexts(await download(t, user, doc.fileId)))
      .join('\n')
      .replace(/\s+/g, ' ');
    expect(text).toContain(
      'Der Betrag von 119,00 € wird am 14.07.2026 mit der SEPA-Lastschrift zum Mandat M-1 (Gläubiger-ID DE98ZZZ09999999999) eingezogen.',
    );
    const res = await collect({ contractInvoices: true, dryRun: true });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Run>().items).toEqual([
      expect.objectContaining({
        invoiceId: doc.id,
        sequenceType: 'RCUR',
        executionDate: '2026-07-14',
        amount: 119,
      }),
    ]);
  });
});

describe('the files', () => {
  it.runIf(canValidate())(
    'are valid pain.008.001.08 and pain.001.001.09 (offline SEPA validator)',
    () => {
      expect(files.map((f) => f.name)).toEqual([
        'collection-frst.xml',
        'collection-rcur.xml',
        'transfer-skonto.xml',
      ]);
      for (const result of validateAll(files))
        expect(result.valid, describeProblems(result)).toBe(true);
    },
  );
});
