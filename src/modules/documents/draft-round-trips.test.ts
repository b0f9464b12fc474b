/**
 * A draft's create and update read the records they name ahead (`readAhead`, `deferFirst`): on
 * PostgreSQL the create's reads of its account, template, partner and tax rates go out together
 * in one round trip, its row with its event in a second; the update's draft and its new lines'
 * tax rates together, then its template, its update and its event. These tests count those
 * round trips on PostgreSQL, and hold on both databases what the answers were before: the order
 * of a refusal, a layout that must first be brought up, links and rates only known from another
 * record, the 422s of unknown references.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { systemSourceHash } from '../../db/migrations/0034_system_template_sources.js';
import { settleAudit } from '../../shared/audit.js';
import {
  currentSystemSourceHash,
  SYSTEM_TEMPLATES,
} from '../document-templates/system-templates.js';
import { billingAddress } from './documents.test-support.js';
import { roundsOf } from '../../../test/pg-rounds.js';

let t: TestApp;
let user: TestUser;
let partnerId: string;

type Answer = Record<string, unknown> & { id: string; version: number };
const send = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
  t.request({ method, url, token: user.token, ...(payload ? { payload } : {}) });
const created = async (url: string, payload: object): Promise<Answer> => {
  const res = await send('POST', url, payload);
  expect(res.statusCode, res.body).toBe(201);
  return res.json<Answer>();
};
const lines = [
  { description: 'Beratung', quantity: 3, unitPrice: 120 },
  { description: 'Anfahrt', quantity: 1, unitPrice: 45 },
];
const draft = (extra: object = {}) => ({
  documentType: 'INVOICE',
  name: 'Entwurf',
  partnerId,
  creationDate: '2026-11-20',
  lineItems: lines,
  ...extra,
});

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t);
  partnerId = (
    await created('/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('rechnung@kunde.example')],
    })
  ).id;
});
afterAll(() => t.close());

/** A request's own round trips: not the audit chain's seal, which follows every write. */
const own = (rounds: string[][]) =>
  rounds.filter((r) => !r.some((s) => s.includes('pg_advisory_xact_lock')));

const names = (round: string[]) => round.map((s) => s.trim().split(/\s+/).slice(0, 4).join(' '));

describe.runIf(dbKind === 'postgres')('a draft on PostgreSQL', () => {
  it('is created in two round trips: its reads together, then its row and event', async () => {
    await created('/v1/documents', draft());
    let doc: Answer | undefined;
    const rounds = own(
      await roundsOf(async () => {
        doc = await created('/v1/documents', draft({ name: 'Gezählt' }));
      }),
    );
    expect(rounds, JSON.stringify(rounds.map(names))).toHaveLength(2);
    const [reads, write] = [rounds[0]!, rounds[1]!];
    // Outside a transaction: one implicit transaction, one snapshot.
    expect(reads).not.toContain('begin');
    for (const table of ['accounts', 'document_templates', 'partners', 'tax_rates'])
      expect(
        reads.some((s) => s.includes(`from "${table}"`)),
        table,
      ).toBe(true);
    // The row and its event as one statement (one round trip, its own transaction).
    expect(write).toHaveLength(1);
    expect(write[0]).toMatch(/insert into "documents"/);
    expect(doc).toMatchObject({ name: 'Gezählt', status: 'DRAFT', grossTotal: 481.95 });
  });

  it('is updated in four round trips: the draft and its lines’ reads together, the template, the update, the event', async () => {
    let doc = await created('/v1/documents', draft());
    doc = (
      await send('PUT', `/v1/documents/${doc.id}`, { version: doc.version, name: 'A' })
    ).json();
    const rounds = own(
      await roundsOf(async () => {
        const res = await send('PUT', `/v1/documents/${doc.id}`, {
          version: doc.version,
          name: 'B',
          lineItems: lines,
        });
        expect(res.statusCode, res.body).toBe(200);
      }),
    );
    expect(rounds, JSON.stringify(rounds.map(names))).toHaveLength(4);
    expect(rounds[0]!.some((s) => s.includes('from "documents"'))).toBe(true);
    expect(rounds[0]!.some((s) => s.includes('from "tax_rates"'))).toBe(true);
    expect(rounds[1]!.some((s) => s.includes('from "document_templates"'))).toBe(true);
    expect(rounds[2]![0]).toBe('begin');
    expect(rounds[2]!.at(-1)).toMatch(/^update "documents"/);
    expect(rounds[3]!.at(-1)).toBe('commit');
  });
});

describe('a draft written with its reads sent ahead answers as the reading way', () => {
  it('refuses a stale update its template cannot render with 422 first, and writes nothing', async () => {
    const tpl = await created('/v1/document-templates', {
      name: 'Mit Bestellnummer',
      documentType: 'INVOICE',
      contentSource: '<p>{{ document.name }}: {{ bestellung }}</p>',
      fields: [{ key: 'bestellung', label: 'Bestellung', type: 'text', required: true }],
      status: 'PUBLISHED',
    });
    const doc = await created(
      '/v1/documents',
      draft({ templateId: tpl.id, fields: { bestellung: 'B-1' } }),
    );
    const moved = await send('PUT', `/v1/documents/${doc.id}`, { version: doc.version, name: 'X' });
    expect(moved.statusCode, moved.body).toBe(200);
    const current = moved.json<Answer>();
    // Stale and unrenderable: the template's refusal comes first, as the reading way checks
    // the template before its update.
    const res = await send('PUT', `/v1/documents/${doc.id}`, { version: doc.version, fields: {} });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toMatchObject({ code: 'template_invalid' });
    // Current and unrenderable: 422.
    const again = await send('PUT', `/v1/documents/${doc.id}`, {
      version: current.version,
      fields: {},
    });
    expect(again.statusCode, again.body).toBe(422);
    // Stale and renderable: 409 with the current version.
    const stale = await send('PUT', `/v1/documents/${doc.id}`, {
      version: doc.version,
      fields: { bestellung: 'B-2' },
    });
    expect(stale.statusCode, stale.body).toBe(409);
    expect(stale.json()).toMatchObject({ currentVersion: current.version });
    const after = (await send('GET', `/v1/documents/${doc.id}`)).json<Answer>();
    expect(after).toMatchObject({ version: current.version, name: 'X' });
    expect(after.fields).toEqual({ bestellung: 'B-1' });
  });

  it('brings the account’s invoice layout up first when it stems from an earlier layout', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    const row = await db
      .selectFrom('document_templates')
      .selectAll()
      .where('account_id', '=', owner.accountId)
      .where('system_key', '=', 'INVOICE')
      .executeTakeFirstOrThrow();
    // As an earlier release seeded it: an older layout, with that layout's hash.
    const old = { ...row, content_source: '<p>{{ document.name }}</p>', compiled_content_html: '' };
    await db
      .updateTable('document_templates')
      .set({
        content_source: old.content_source,
        compiled_content_html: old.compiled_content_html,
        system_source_hash: systemSourceHash(old),
      })
      .where('id', '=', row.id)
      .execute();
    const customer = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: owner.token,
      payload: { name: 'Kundin', addresses: [billingAddress('k@kunde.example')] },
    });
    const res = await t.request({
      method: 'POST',
      url: '/v1/documents',
      token: owner.token,
      payload: draft({ partnerId: customer.json<Answer>().id }),
    });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({ templateId: row.id, status: 'DRAFT' });
    const upgraded = await db
      .selectFrom('document_templates')
      .select(['system_source_hash', 'version'])
      .where('id', '=', row.id)
      .executeTakeFirstOrThrow();
    const invoice = SYSTEM_TEMPLATES.find((s) => s.systemKey === 'INVOICE')!;
    expect(upgraded.system_source_hash).toBe(currentSystemSourceHash(invoice));
    expect(upgraded.version).toBe(row.version + 1);
    await settleAudit(db);
    const events = await db
      .selectFrom('audit_events')
      .select('action')
      .where('account_id', '=', owner.accountId)
      .where('resource_id', '=', res.json<Answer>().id)
      .execute();
    expect(events.map((e) => e.action)).toEqual(['document.created']);
  });

  it('takes the partner a contract names and the tax rate a product names', async () => {
    const contract = await created('/v1/contracts', {
      name: 'Wartung',
      partnerId,
      partnerName: 'filled by the server',
      startDate: '2026-01-01',
      totalValue: 1200,
      currency: 'EUR',
    });
    const rates = (await send('GET', '/v1/tax-rates')).json<{
      data: (Answer & { rate: number; isDefault: boolean })[];
    }>().data;
    const reduced = rates.find((r) => !r.isDefault)!;
    const product = await created('/v1/products', {
      name: 'Buch',
      unitPrice: 20,
      currency: 'EUR',
      taxRateId: reduced.id,
    });
    const doc = await created('/v1/documents', {
      documentType: 'INVOICE',
      name: 'Aus dem Vertrag',
      contractId: contract.id,
      creationDate: '2026-11-20',
      lineItems: [{ productId: product.id, quantity: 2 }, ...lines],
    });
    expect(doc).toMatchObject({ contractId: contract.id, partnerId, partnerName: 'Kunde GmbH' });
    const items = doc.lineItems as { taxRateId: string; description: string }[];
    expect(items[0]).toMatchObject({ description: 'Buch', taxRateId: reduced.id });
    const fallback = rates.find((r) => r.isDefault)!;
    expect(items[1]).toMatchObject({ taxRateId: fallback.id });
    // The same through an update of the lines.
    const updated = await send('PUT', `/v1/documents/${doc.id}`, {
      version: doc.version,
      lineItems: [...lines, { productId: product.id, quantity: 1 }],
    });
    expect(updated.statusCode, updated.body).toBe(200);
    const after = updated.json<Answer>().lineItems as { taxRateId: string }[];
    expect(after.map((l) => l.taxRateId)).toEqual([fallback.id, fallback.id, reduced.id]);
  });

  it('answers 422 for a product, tax rate or template of no one, and writes nothing', async () => {
    const before = (await send('GET', '/v1/documents?limit=100')).json<{ data: Answer[] }>().data
      .length;
    for (const [extra, path] of [
      [{ lineItems: [{ productId: 'prd_missing', quantity: 1 }] }, 'lineItems/0/productId'],
      [
        { lineItems: [{ description: 'X', quantity: 1, unitPrice: 1, taxRateId: 'txr_missing' }] },
        'lineItems/0/taxRateId',
      ],
      [{ templateId: 'tpl_missing' }, 'templateId'],
    ] as const) {
      const res = await send('POST', '/v1/documents', draft(extra));
      expect(res.statusCode, res.body).toBe(422);
      expect(JSON.stringify(res.json())).toContain(path);
    }
    const after = (await send('GET', '/v1/documents?limit=100')).json<{ data: Answer[] }>().data
      .length;
    expect(after).toBe(before);
  });
});
