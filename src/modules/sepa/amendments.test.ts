import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../../test/contract.js';
import { buildTestApp, createUser, type TestApp, type TestUser } from '../../../test/helpers.js';
import { ManualClock } from '../../shared/clock.js';
import {
  canValidate,
  describeProblems,
  validateAll,
} from '../../shared/sepa/validator.test-support.js';
import { contractBody, postContract } from '../contracts/contracts.test-support.js';
import {
  billingAddress,
  call,
  finalInvoice,
  type Body,
} from '../documents/documents.test-support.js';
import { autoCollect } from './auto-collect.job.js';
import { settleAudit } from '../../shared/audit.js';

/**
 * Mandate amendments, B2B mandates and the automatic collection (docs/sepa-domain.md): a new
 * reference or IBAN of a mandate collected on is carried by its next collection (AmdmntInd with
 * the original reference, the original IBAN or SMNDA) and then cleared; a revoked or completed
 * mandate cannot be changed; a B2B mandate is collected in a B2B file of its own; the daily
 * schedule collects direct-debit contract invoices once. Every file goes through the offline
 * SEPA validator.
 */

type Run = {
  id: string | null;
  scheme: string | null;
  items: Body[];
  refused: { invoiceId: string; reason: string }[];
};
type Mandate = { id: string; version: number; amendmentPending: boolean; scheme: string };

const CREDITOR_ID = 'DE98ZZZ09999999999';
const IBAN = 'DE89370400440532013000';
/** The same bank (Bankleitzahl 37040044), another account. */
const SAME_BANK = 'DE62370400440532013001';
/** Another bank (Bankleitzahl 50010517). */
const OTHER_BANK = 'DE44500105175407324931';

const files: { name: string; xml: string }[] = [];
let clock: ManualClock;
let t: TestApp;
let user: TestUser;

function refused(res: LightMyRequestResponse, status: number, code: string): Body {
  expect(res.statusCode, res.body).toBe(status);
  return expectProblem(res, code);
}

const partner = async (name: string) =>
  (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name,
      addresses: [billingAddress('buchhaltung@kunde.example')],
    })
  ).id;

const newMandate = (partnerId: string, reference: string, extra: Body = {}) =>
  call<Mandate>(t, user, 'POST', `/v1/partners/${partnerId}/mandates`, {
    reference,
    signedOn: '2026-01-15',
    iban: IBAN,
    debtorName: 'Kunde GmbH',
    ...extra,
  });

const edit = (id: string, payload: Body) =>
  t.request({ method: 'PUT', url: `/v1/sepa/mandates/${id}`, token: user.token, payload });

const invoice = async (partnerId: string, extra: Body = {}) =>
  (await finalInvoice<{ id: string }>(t, user, partnerId, '2026-07-10', extra)).id;

async function collect(payload: Body): Promise<Run> {
  const res = await t.request({
    method: 'POST',
    url: '/v1/sepa/collections',
    token: user.token,
    payload,
  });
  expect(res.statusCode, res.body).toBe(payload.dryRun ? 200 : 201);
  return res.json<Run>();
}

async function fileOf(id: string): Promise<string> {
  const res = await t.request({
    method: 'GET',
    url: `/v1/sepa/collections/${id}/file`,
    token: user.token,
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

/** The XML without the whitespace between elements. */
const flat = (xml: string) => xml.replace(/>\s+</g, '><');

/** The `MndtRltdInf` of the debit with this mandate id in a file. */
function mandateInfo(xml: string, mandateId: string): string {
  const at = xml.indexOf(`<MndtId>${mandateId}</MndtId>`);
  expect(at, `no debit on ${mandateId}`).toBeGreaterThan(0);
  return xml.slice(at, xml.indexOf('</MndtRltdInf>', at));
}

async function outbox(type: string): Promise<Body[]> {
  const rows = await t.app.ctx.db
    .selectFrom('webhook_deliveries')
    .select(['payload'])
    .where('account_id', '=', user.accountId)
    .where('event_type', '=', type)
    .orderBy('id')
    .execute();
  return rows.map((r) => (JSON.parse(r.payload) as { data: Body }).data);
}

beforeAll(async () => {
  // Tuesday 30 June 2026.
  clock = new ManualClock(new Date('2026-06-30T08:00:00Z'));
  t = await buildTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
  user = await createUser(t);
  const company = await call<Body>(t, user, 'GET', '/v1/account/company');
  const { updatedAt: _u, ...body } = company;
  await call(t, user, 'PUT', '/v1/account/company', { ...body, creditorId: CREDITOR_ID });
  await call(t, user, 'POST', '/v1/webhook-endpoints', {
    url: 'http://127.0.0.1:9/hook',
    eventTypes: ['mandate.updated', 'collection.created'],
  });
});
afterAll(() => t.close());

describe('mandate amendments', () => {
  it('records a change of a mandate never collected on, with no amendment to carry', async () => {
    const kunde = await partner('Neu GmbH');
    const m = await newMandate(kunde, 'A-NEU');
    const res = await edit(m.id, { version: 1, reference: 'A-NEU-2', iban: SAME_BANK });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<Mandate>()).toMatchObject({ amendmentPending: false, version: 2 });
    const rows = await t.app.ctx.db
      .selectFrom('sepa_mandate_amendments')
      .selectAll()
      .where('mandate_id', '=', m.id)
      .execute();
    expect(rows).toEqual([
      expect.objectContaining({
        original_reference: 'A-NEU',
        original_iban_masked: 'DE89 **** **** **** **30 00',
        reference: 'A-NEU-2',
        iban_masked: 'DE62 **** **** **** **30 01',
        pending: 0,
      }),
    ]);
    expect(rows[0]!.original_iban_sealed).not.toContain('370400440532013000');
    const run = await collect({ invoiceIds: [await invoice(kunde)] });
    expect(mandateInfo(await fileOf(run.id!), 'A-NEU-2')).toContain('<AmdmntInd>false</AmdmntInd>');
  });

  it('carries a new reference and an IBAN at the same bank in the next collection, then clears it', async () => {
    const kunde = await partner('Kunde GmbH');
    const m = await newMandate(kunde, 'A-1');
    const first = await collect({ invoiceIds: [await invoice(kunde)] });
    expect(mandateInfo(await fileOf(first.id!), 'A-1')).toContain('<AmdmntInd>false</AmdmntInd>');

    const res = await edit(m.id, {
      version: 2,
      reference: 'A-1-NEU',
      iban: SAME_BANK,
      debtorName: 'Kunde Neu GmbH',
    });
    expect(res.statusCode, res.body).toBe(200);
    const changed = res.json<Mandate>();
    expect(changed).toMatchObject({
      reference: 'A-1-NEU',
      iban: 'DE62 **** **** **** **30 01',
      amendmentPending: true,
      version: 3,
    });
    expect(res.headers.etag).toBe('"3"');
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'changes'])
      .where('resource_id', '=', m.id)
      .where('action', '=', 'sepa_mandate.updated')
      .executeTakeFirstOrThrow();
    expect(audit.changes).toContain('A-1');
    expect(audit.changes).not.toContain('0532013000');
    expect((await outbox('mandate.updated')).map((d) => d.id)).toContain(m.id);

    // The dry run writes nothing and clears nothing.
    await collect({ invoiceIds: [await invoice(kunde)], dryRun: true });
    expect(
      (await call<Mandate>(t, user, 'GET', `/v1/sepa/mandates/${m.id}`)).amendmentPending,
    ).toBe(true);

    const second = await invoice(kunde);
    const third = await invoice(kunde, { dueDate: '2026-08-10' });
    const run = await collect({ invoiceIds: [third, second] });
    const xml = await fileOf(run.id!);
    files.push({ name: 'amendment-same-bank', xml });
    // The earlier of the two collections carries the amendment, the later one does not.
    const [early, late] = xml.split('<MndtId>A-1-NEU</MndtId>').slice(1);
    expect(xml.indexOf('2026-07-14')).toBeLessThan(xml.indexOf('2026-08-10'));
    expect(early).toContain('<AmdmntInd>true</AmdmntInd>');
    expect(early).toContain('<OrgnlMndtId>A-1</OrgnlMndtId>');
    expect(flat(early!)).toContain(
      '<OrgnlDbtrAcct><Id><IBAN>DE89370400440532013000</IBAN></Id></OrgnlDbtrAcct>',
    );
    expect(early).not.toContain('SMNDA');
    expect(late!.slice(0, late!.indexOf('</MndtRltdInf>'))).toContain(
      '<AmdmntInd>false</AmdmntInd>',
    );
    expect(xml).toContain('<Nm>Kunde Neu GmbH</Nm>');
    expect(
      (await call<Mandate>(t, user, 'GET', `/v1/sepa/mandates/${m.id}`)).amendmentPending,
    ).toBe(false);

    const next = await collect({ invoiceIds: [await invoice(kunde)] });
    expect(mandateInfo(await fileOf(next.id!), 'A-1-NEU')).toContain(
      '<AmdmntInd>false</AmdmntInd>',
    );
  });

  it('writes SMNDA when the debtor moved to another bank, and no IBAN of the old account', async () => {
    const kunde = await partner('Umzug KG');
    const m = await newMandate(kunde, 'A-2');
    await collect({ invoiceIds: [await invoice(kunde)] });
    const res = await edit(m.id, { version: 2, iban: OTHER_BANK });
    expect(res.statusCode, res.body).toBe(200);
    const run = await collect({ invoiceIds: [await invoice(kunde)] });
    const xml = await fileOf(run.id!);
    files.push({ name: 'amendment-smnda', xml });
    const info = mandateInfo(xml, 'A-2');
    expect(info).toContain('<AmdmntInd>true</AmdmntInd>');
    expect(flat(info)).toContain(
      '<OrgnlDbtrAcct><Id><Othr><Id>SMNDA</Id></Othr></Id></OrgnlDbtrAcct>',
    );
    expect(info).not.toContain('<OrgnlMndtId>');
    expect(info).not.toContain(IBAN);
  });

  it('refuses a bad IBAN at its field, and changes of revoked or completed mandates', async () => {
    const kunde = await partner('Fehler AG');
    const m = await newMandate(kunde, 'A-3');
    const bad = refused(
      await edit(m.id, { version: 1, iban: 'DE00370400440532013000' }),
      400,
      'validation_failed',
    );
    expect(bad.errors).toEqual([expect.objectContaining({ path: '/body/iban' })]);
    expect((await call<Mandate>(t, user, 'GET', `/v1/sepa/mandates/${m.id}`)).version).toBe(1);

    const once = await newMandate(kunde, 'A-OOFF', { sequenceState: 'ONE_OFF' });
    await collect({ invoiceIds: [await invoice(kunde)] });
    const completed = await call<Body>(t, user, 'GET', `/v1/sepa/mandates/${once.id}`);
    expect(completed.sequenceState).toBe('COMPLETED');
    refused(
      await edit(once.id, { version: completed.version, debtorName: 'Nachher' }),
      409,
      'state_conflict',
    );

    await call(t, user, 'POST', `/v1/sepa/mandates/${m.id}/revoke`, { version: 1 }, 200);
    refused(await edit(m.id, { version: 2, reference: 'A-3-NEU' }), 409, 'state_conflict');
  });

  it('keeps the scheme of a mandate collected on', async () => {
    const kunde = await partner('Schema GmbH');
    const m = await newMandate(kunde, 'A-4');
    await collect({ invoiceIds: [await invoice(kunde)] });
    const problem = refused(await edit(m.id, { version: 2, scheme: 'B2B' }), 409, 'state_conflict');
    expect(problem.errors).toEqual([expect.objectContaining({ path: '/body/scheme' })]);
  });
});

describe('B2B mandates', () => {
  it('collects a B2B mandate only in a B2B file, D-1, and a CORE run refuses it', async () => {
    const firma = await partner('Firma B2B AG');
    const m = await newMandate(firma, 'B2B-1', { scheme: 'B2B', bic: 'COBADEFFXXX' });
    expect(m.scheme).toBe('B2B');
    const settings = await call<{ version: number }>(t, user, 'GET', '/v1/sepa/settings');
    await call(t, user, 'PUT', '/v1/sepa/settings', {
      version: settings.version,
      preNotificationDays: 1,
    });
    // Due a month ago: the lead time alone sets the date.
    const doc = await invoice(firma, { dueDate: '2026-06-01' });
    const core = await collect({ invoiceIds: [doc], dryRun: true });
    expect(core.items).toEqual([]);
    expect(core.refused).toEqual([
      expect.objectContaining({ invoiceId: doc, reason: 'other_scheme' }),
    ]);

    const run = await collect({ invoiceIds: [doc], scheme: 'B2B' });
    expect(run.scheme).toBe('B2B');
    // Tuesday 30 June: D-1 is Wednesday 1 July.
    expect(run.items).toEqual([
      expect.objectContaining({
        invoiceId: doc,
        sequenceType: 'FRST',
        executionDate: '2026-07-01',
      }),
    ]);
    const xml = await fileOf(run.id!);
    expect(flat(xml)).toContain('<LclInstrm><Cd>B2B</Cd></LclInstrm>');
    expect(xml).not.toContain('<Cd>CORE</Cd>');
    expect(xml.match(/<Cd>B2B<\/Cd>/g)).toHaveLength(1);
    files.push({ name: 'b2b-frst', xml });
    expect((await call<Run>(t, user, 'GET', `/v1/sepa/collections/${run.id!}`)).scheme).toBe('B2B');
    const again = await call<{ version: number }>(t, user, 'GET', '/v1/sepa/settings');
    await call(t, user, 'PUT', '/v1/sepa/settings', {
      version: again.version,
      preNotificationDays: 14,
    });
  });
});

describe('automatic collection', () => {
  it('collects due direct-debit contract invoices once a day when the settings enable it', async () => {
    const kunde = await partner('Vertrag GmbH');
    const firma = await partner('Vertrag B2B AG');
    await newMandate(kunde, 'AUTO-CORE');
    await newMandate(firma, 'AUTO-B2B', { scheme: 'B2B' });
    const contract = async (partnerId: string) => {
      const res = await postContract(
        t,
        user,
        contractBody(partnerId, {
          status: 'ACTIVE',
          billing: {
            interval: 'MONTHLY',
            nextInvoiceDate: '2026-12-01',
            lineItems: [{ description: 'Wartung', quantity: 1, unitPrice: 100 }],
            paymentMethod: 'DIRECT_DEBIT',
          },
        }),
      );
      expect(res.statusCode, res.body).toBe(201);
      return res.json<{ id: string }>().id;
    };
    const coreDoc = await invoice(kunde, { contractId: await contract(kunde) });
    const b2bDoc = await invoice(firma, { contractId: await contract(firma) });

    // Off by default: nothing is collected.
    const settings = await call<{ version: number; autoCollect: boolean }>(
      t,
      user,
      'GET',
      '/v1/sepa/settings',
    );
    expect(settings.autoCollect).toBe(false);
    expect((await autoCollect(t.app.ctx)).runs).toBe(0);

    const on = await call<{ autoCollect: boolean }>(t, user, 'PUT', '/v1/sepa/settings', {
      version: settings.version,
      preNotificationDays: 14,
      autoCollect: true,
    });
    expect(on.autoCollect).toBe(true);
    const before = (await outbox('collection.created')).length;
    const done = await autoCollect(t.app.ctx);
    expect(done).toMatchObject({ accounts: 1, runs: 2, invoices: 2, problems: 0 });
    // The two schemes' runs are made in one pass; CORE first here, whatever order they came in.
    const runs = ((await outbox('collection.created')).slice(before) as unknown as Run[]).sort(
      (a, b) => (a.scheme === b.scheme ? 0 : a.scheme === 'CORE' ? -1 : 1),
    );
    expect(runs.map((r) => [r.scheme, r.items.map((i) => i.invoiceId)])).toEqual([
      ['CORE', [coreDoc]],
      ['B2B', [b2bDoc]],
    ]);
    await settleAudit(t.app.ctx.db); // the job wrote it, not a request: chained after commit
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('resource_id', '=', runs[0]!.id!)
      .executeTakeFirstOrThrow();
    expect(audit).toMatchObject({ action: 'sepa_collection.created', actor_type: 'system' });
    for (const run of runs) files.push({ name: `auto-${run.scheme}`, xml: await fileOf(run.id!) });

    // Claimed for today: a second pass does nothing; tomorrow nothing is collected twice.
    expect((await autoCollect(t.app.ctx)).accounts).toBe(0);
    clock.advance(24 * 3600 * 1000);
    expect(await autoCollect(t.app.ctx)).toMatchObject({ accounts: 1, runs: 0, problems: 0 });
    expect((await outbox('collection.created')).length).toBe(before + 2);
  });
});

describe('the files', () => {
  it.runIf(canValidate())('are valid pain.008.001.08 (offline SEPA validator)', () => {
    expect(files.map((f) => f.name)).toEqual([
      'amendment-same-bank',
      'amendment-smnda',
      'b2b-frst',
      'auto-CORE',
      'auto-B2B',
    ]);
    for (const result of validateAll(files))
      expect(result.valid, describeProblems(result)).toBe(true);
  });
});
