import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestUser } from '../../../test/helpers.js';
import {
  canValidate,
  describeProblems,
  validateAll,
} from '../../shared/sepa/validator.test-support.js';
import { uploadStatement } from '../bank-imports/bank-imports.test-support.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';
import { dunnableInvoices } from '../documents/index.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import { camt053, cents, collectionRun, creditorApp, type Run } from './round-trip.test-support.js';

/**
 * The SEPA round trip (docs/sepa-domain.md, "Round trip"): a collection booked by a camt.053
 * settles its invoices by EndToEndId; a camt.054 return (MD06) or an MT940 return GVC reverses
 * the payment, reopens the invoice, moves the mandate back and lets dunning and a new
 * collection (FRST again) take the invoice; the same statement imported twice books nothing twice.
 * The statements are written here from the run's own items, after the structure of real
 * camt.053/camt.054 and German MT940 files.
 */

let t: TestApp;
let user: TestUser;
let kunde: string;
let mandateId: string;
const files: { name: string; xml: string }[] = [];

/** A camt.05x entry for one run item (credit = the collection booked, debit + RtrInf = a return). */
function entry(e: {
  e2e: string;
  amountMinor: number;
  credit: boolean;
  date: string;
  reason?: string;
  ref: string;
}): string {
  return `<Ntry><NtryRef>${e.ref}</NtryRef><Amt Ccy="EUR">${cents(e.amountMinor)}</Amt><CdtDbtInd>${e.credit ? 'CRDT' : 'DBIT'}</CdtDbtInd><Sts>BOOK</Sts><BookgDt><Dt>${e.date}</Dt></BookgDt><ValDt><Dt>${e.date}</Dt></ValDt><AcctSvcrRef>${e.ref}</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RDDT</Cd><SubFmlyCd>${e.reason ? 'UPDD' : 'ESDD'}</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs><EndToEndId>${e.e2e}</EndToEndId><MndtId>M-RT</MndtId></Refs><AmtDtls><TxAmt><Amt Ccy="EUR">${cents(e.amountMinor)}</Amt></TxAmt></AmtDtls><RltdPties><Dbtr><Nm>Kunde GmbH</Nm></Dbtr><DbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></DbtrAcct></RltdPties><RmtInf><Ustrd>Rechnung</Ustrd></RmtInf>${e.reason ? `<RtrInf><Rsn><Cd>${e.reason}</Cd></Rsn></RtrInf>` : ''}</TxDtls></NtryDtls></Ntry>`;
}

function camt054(entries: string[], date: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.02"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>NTFC-${date}</MsgId><CreDtTm>${date}T20:00:00</CreDtTm></GrpHdr><Ntfctn><Id>NTFC-${date}</Id><CreDtTm>${date}T20:00:00</CreDtTm><Acct><Id><IBAN>DE02120300000000202051</IBAN></Id><Ccy>EUR</Ccy></Acct>${entries.join('')}</Ntfctn></BkToCstmrDbtCdtNtfctn></Document>`;
}

/** A German MT940 with one return line: GVC 109 (SEPA core direct-debit return) and the EndToEndId. */
function mt940Return(e2e: string, amountMinor: number, date: string): string {
  const d = date.slice(2).replace(/-/g, '');
  const amt = cents(amountMinor).replace('.', ',');
  // ?20–?29 hold 27 characters each (DFÜ-Abkommen); each SEPA key starts a subfield.
  const pieces = [`EREF+${e2e}`, 'SVWZ+Rueckgabe AC04 Konto erloschen'].flatMap(
    (key) => key.match(/.{1,27}/g) ?? [],
  );
  const details = pieces.map((chunk, i) => `?${20 + i}${chunk}`).join('');
  return (
    [
      ':20:STARTUMSE',
      ':25:12030000/202051',
      ':28C:00001/001',
      `:60F:C${d}EUR1000,00`,
      `:61:${d}${d.slice(2)}D${amt}NRTINONREF//RT1`,
      `:86:109?00RUECKLASTSCHRIFT${details}?30COBADEFFXXX?31DE89370400440532013000?32Kunde GmbH`,
      `:62F:C${d}EUR${cents(100_000 - amountMinor).replace('.', ',')}`,
      '-',
    ].join('\r\n') + '\r\n'
  );
}

/** Imports a statement with every line accepted and finalizes it; the import's answer. */
async function book(text: string, contentType: string, from: string, to: string): Promise<Body> {
  const file = await uploadStatement(t, user, text, contentType);
  const imp = await call<Body>(
    t,
    user,
    'POST',
    '/v1/bank-statement-imports',
    {
      ...file,
      periodFrom: from,
      periodTo: to,
      autoApprove: true,
    },
    201,
  );
  return call<Body>(
    t,
    user,
    'POST',
    `/v1/bank-statement-imports/${String(imp.id)}/finalize`,
    {
      version: imp.version,
    },
    200,
  );
}

const payment = (id: string) => call<Body>(t, user, 'GET', `/v1/payments/${id}`);
const document = (id: string) => call<Body>(t, user, 'GET', `/v1/documents/${id}`);
const mandate = () => call<Body>(t, user, 'GET', `/v1/sepa/mandates/${mandateId}`);

async function collect(invoiceIds: string[], name: string): Promise<Run> {
  const { run, xml } = await collectionRun(t, user, invoiceIds);
  files.push({ name, xml });
  return run;
}

beforeAll(async () => {
  ({ t, user } = await creditorApp());
  kunde = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      type: 'CUSTOMER',
      addresses: [billingAddress('buchhaltung@kunde.example')],
    })
  ).id;
  mandateId = (
    await call<{ id: string }>(t, user, 'POST', `/v1/partners/${kunde}/mandates`, {
      reference: 'M-RT',
      signedOn: '2026-01-15',
      iban: 'DE89370400440532013000',
      debtorName: 'Kunde GmbH',
    })
  ).id;
});
afterAll(() => t.close());

describe('SEPA round trip', () => {
  let run: Run;
  let booked: string;

  it('a camt.053 booking the collection settles its invoices by EndToEndId (payments MARKED, not booked twice)', async () => {
    const a = (await finalInvoice<{ id: string }>(t, user, kunde, '2026-07-10')).id;
    const b = (await finalInvoice<{ id: string }>(t, user, kunde, '2026-07-10')).id;
    run = await collect([a, b], 'collection-frst.xml');
    expect(run.items.map((i) => i.sequenceType)).toEqual(['FRST', 'RCUR']);
    booked = camt053(
      run.items.map((i, n) =>
        entry({
          e2e: i.endToEndId,
          amountMinor: Math.round(i.amount * 100),
          credit: true,
          date: '2026-07-14',
          ref: `B${n}`,
        }),
      ),
      '2026-07-14',
    );
    const imp = await book(booked, 'application/xml', '2026-07-01', '2026-07-31');
    expect(imp.result).toMatchObject({ paymentsCreated: 0, paymentsMarked: 2 });
    const lines = imp.transactions as Body[];
    expect((lines[0]!.suggestions as Body[])[0]).toMatchObject({
      type: 'PAYMENT',
      id: run.items[0]!.paymentId,
      score: 100,
      code: 'end_to_end_id',
      reasons: [
        expect.stringContaining(run.items[0]!.endToEndId),
        'amount equals the item of the run',
      ],
    });
    for (const item of run.items) {
      expect(await payment(item.paymentId)).toMatchObject({ status: 'MARKED' });
      expect(await document(item.invoiceId)).toMatchObject({ paymentStatus: 'PAID' });
    }
  });

  it('the same statement imported twice is a duplicate and books nothing twice', async () => {
    const file = await uploadStatement(t, user, booked, 'application/xml');
    const imp = await call<Body>(
      t,
      user,
      'POST',
      '/v1/bank-statement-imports',
      {
        ...file,
        periodFrom: '2026-07-01',
        periodTo: '2026-07-31',
      },
      201,
    );
    const lines = imp.transactions as Body[];
    // Booked already: the same statement again is a duplicate, and its payments are settled.
    expect(lines.every((l) => l.duplicateOf !== null)).toBe(true);
    await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${String(imp.id)}`,
      token: user.token,
    });
    const rows = await t.app.ctx.db
      .selectFrom('payments')
      .select('id')
      .where('account_id', '=', user.accountId)
      .execute();
    expect(rows).toHaveLength(2);
  });

  it('a camt.054 return (MD06) reverses the payment, reopens the invoice, moves the mandate back to FIRST, dunning sees it', async () => {
    const first = run.items[0]!;
    const second = run.items[1]!;
    const returns = camt054(
      [
        entry({
          e2e: first.endToEndId,
          amountMinor: Math.round(first.amount * 100),
          credit: false,
          date: '2026-07-20',
          reason: 'MD06',
          ref: 'R1',
        }),
      ],
      '2026-07-20',
    );
    // The RCUR item stands: the mandate only moves back once nothing later stands on it.
    const ret2 = camt054(
      [
        entry({
          e2e: second.endToEndId,
          amountMinor: Math.round(second.amount * 100),
          credit: false,
          date: '2026-07-21',
          reason: 'MD06',
          ref: 'R2',
        }),
      ],
      '2026-07-21',
    );
    const file = await uploadStatement(t, user, returns, 'application/xml');
    const staged = await call<Body>(
      t,
      user,
      'POST',
      '/v1/bank-statement-imports',
      {
        ...file,
        periodFrom: '2026-07-01',
        periodTo: '2026-07-31',
      },
      201,
    );
    const line = (staged.transactions as Body[])[0]!;
    expect(line).toMatchObject({ returned: true, returnReason: 'MD06' });
    expect((line.suggestions as Body[])[0]).toMatchObject({
      type: 'SEPA_RETURN',
      id: first.paymentId,
      score: 100,
      code: 'sepa_return',
    });
    await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${String(staged.id)}`,
      token: user.token,
    });

    await book(returns, 'application/xml', '2026-07-01', '2026-07-31');
    expect(await payment(first.paymentId)).toMatchObject({ status: 'RETURNED' });
    expect(String((await payment(first.paymentId)).failureReason)).toContain('MD06');
    expect(await document(first.invoiceId)).toMatchObject({
      paymentStatus: 'UNPAID',
      paidAt: null,
    });
    expect(await mandate()).toMatchObject({ sequenceState: 'RECURRING' });
    await book(ret2, 'application/xml', '2026-07-01', '2026-07-31');
    expect(await mandate()).toMatchObject({ sequenceState: 'FIRST', nextSequenceType: 'FRST' });
    const due = await dunnableInvoices(t.app.ctx.db, user.accountId, {
      asOf: '2026-12-31',
      maxLevel: 4,
      limit: 100,
    });
    expect(due.map((r) => r.id)).toEqual(
      expect.arrayContaining([first.invoiceId, second.invoiceId]),
    );
    const events = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('action')
      .where('resource_id', '=', run.id)
      .execute();
    expect(events.map((e) => e.action)).toContain('sepa_collection.returned');

    // The same return again changes nothing.
    const again = await uploadStatement(t, user, returns, 'application/xml');
    const dup = await call<Body>(
      t,
      user,
      'POST',
      '/v1/bank-statement-imports',
      { ...again, periodFrom: '2026-07-01', periodTo: '2026-07-31' },
      201,
    );
    expect((dup.transactions as Body[])[0]!.duplicateOf).not.toBeNull();
    await t.request({
      method: 'DELETE',
      url: `/v1/bank-statement-imports/${String(dup.id)}`,
      token: user.token,
    });
  });

  it('collects a returned invoice again, FRST once more', async () => {
    const again = await collect([run.items[0]!.invoiceId], 'collection-again.xml');
    expect(again.items[0]).toMatchObject({ sequenceType: 'FRST' });
    expect(files[1]!.xml).toContain('<SeqTp>FRST</SeqTp>');
    run = again;
  });

  it('an MT940 return (GVC 109, AC04) returns the payment and revokes the mandate', async () => {
    const item = run.items[0]!;
    await book(
      mt940Return(item.endToEndId, Math.round(item.amount * 100), '2026-08-20'),
      'text/plain',
      '2026-08-01',
      '2026-08-31',
    );
    expect(await payment(item.paymentId)).toMatchObject({ status: 'RETURNED' });
    const m = await mandate();
    expect(m.revokedAt).not.toBeNull();
    expect(m.active).toBe(false);
  });

  it('a transfer booked by a camt.053 settles the supplier invoice; its return reopens it and allows a new transfer', async () => {
    const vendor = (
      await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
        name: 'Lieferant AG',
        type: 'VENDOR',
      })
    ).id;
    await call(t, user, 'PUT', `/v1/partners/${vendor}/bank-account`, {
      version: 1,
      holderName: 'Lieferant AG',
      iban: 'DE02120300000000202051',
    });
    const fileId = (await upload(t, user, 'application/pdf', SAMPLES.pdf, 'rechnung.pdf')).ticket
      .fileId;
    const bill = (
      await call<{ id: string }>(t, user, 'POST', '/v1/documents', {
        documentType: 'INVOICE',
        source: 'UPLOADED',
        fileId,
        name: 'Eingangsrechnung',
        partnerId: vendor,
        creationDate: '2026-08-01',
        dueDate: '2026-09-01',
        status: 'FINAL',
        documentNumber: 'ER-RT-1',
        lineItems: [{ description: 'Material', quantity: 1, unitPrice: 100 }],
      })
    ).id;
    const transfer = async () => {
      const res = await t.request({
        method: 'POST',
        url: '/v1/sepa/transfers',
        token: user.token,
        payload: { invoiceIds: [bill], executionDate: '2026-09-01' },
      });
      expect(res.statusCode, res.body).toBe(201);
      return res.json<Run>().items[0]!;
    };
    const item = await transfer();
    const amountMinor = Math.round(item.amount * 100);
    await book(
      camt053(
        [
          entry({
            e2e: item.endToEndId,
            amountMinor,
            credit: false,
            date: '2026-09-01',
            ref: 'T1',
          }),
        ],
        '2026-09-01',
      ),
      'application/xml',
      '2026-09-01',
      '2026-09-30',
    );
    expect(await payment(item.paymentId)).toMatchObject({
      status: 'MARKED',
      direction: 'OUTGOING',
    });
    expect(await document(bill)).toMatchObject({ paymentStatus: 'PAID' });
    await book(
      camt053(
        [
          entry({
            e2e: item.endToEndId,
            amountMinor,
            credit: true,
            date: '2026-09-03',
            reason: 'AC01',
            ref: 'T2',
          }),
        ],
        '2026-09-03',
      ),
      'application/xml',
      '2026-09-01',
      '2026-09-30',
    );
    expect(await payment(item.paymentId)).toMatchObject({ status: 'RETURNED' });
    expect(await document(bill)).toMatchObject({ paymentStatus: 'UNPAID' });
    const payments = await t.app.ctx.db
      .selectFrom('payments')
      .select('id')
      .where('account_id', '=', user.accountId)
      .where('document_id', '=', bill)
      .execute();
    expect(payments).toHaveLength(1);
    expect((await transfer()).endToEndId).not.toBe(item.endToEndId);
  });

  it.runIf(canValidate())(
    'writes pain.008 files the offline validator accepts, the second FRST as well',
    () => {
      for (const result of validateAll(files))
        expect(result.valid, describeProblems(result)).toBe(true);
    },
  );
});
