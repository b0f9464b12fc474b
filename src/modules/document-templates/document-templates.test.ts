import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import * as audit from '../../shared/audit.js';
import { describeResourceContract } from '../../../test/contract.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  other = await createUser(t);
});
afterAll(() => t.close());

const URL = '/v1/document-templates';
type Body = Record<string, unknown>;

const create = (user: TestUser, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'POST', url: URL, token: user.token, payload, headers });
const get = (user: TestUser, id: string) =>
  t.request({ method: 'GET', url: `${URL}/${id}`, token: user.token });
const put = (user: TestUser, id: string, payload: Body, headers: Record<string, string> = {}) =>
  t.request({ method: 'PUT', url: `${URL}/${id}`, token: user.token, payload, headers });
const del = (user: TestUser, id: string, headers: Record<string, string> = {}) =>
  t.request({ method: 'DELETE', url: `${URL}/${id}`, token: user.token, headers });
const list = async (user: TestUser, qs = '') =>
  (await t.request({ method: 'GET', url: `${URL}?${qs}`, token: user.token })).json<{
    data: { id: string; name: string; systemKey: string | null }[];
    nextCursor: string | null;
  }>();

const minimal = (name = 'Angebot') => ({ name, contentSource: '<p>Hallo {{ partner.name }}</p>' });

let contractNames = 0;
describeResourceContract(() => t, {
  name: 'document template',
  path: URL,
  create: () => minimal(`Vertrag ${++contractNames}`),
  update: { method: 'PUT', body: { name: 'Umbenannt' } },
  changedField: 'name',
});

describe('document templates: happy paths', () => {
  it('creates, reads, updates and deletes a template with every field', async () => {
    const res = await create(member, {
      name: 'Angebot Wartung',
      documentType: 'OFFER',
      contentSource:
        '<p>Sehr geehrte Damen und Herren,</p><p>für {{ fields.leistung }} bieten wir {{ fields.preis | money }} bis {{ fields.gueltig | date }} an.</p>',
      fields: [
        { key: 'leistung', label: 'Leistung', type: 'text', required: true },
        { key: 'preis', label: 'Preis', type: 'money', required: false, default: 1499.5 },
        { key: 'gueltig', label: 'Gültig bis', type: 'date', default: '2026-12-31' },
        { key: 'menge', label: 'Menge', type: 'number', default: 3 },
      ],
      headerSource: '<div>{{ account.name }}</div>',
      headerVisibility: 'FIRST_PAGE_ONLY',
      footerSource: '<small>Seite {{ document.documentNumber }}</small>',
      footerVisibility: 'ALL_PAGES',
      showLogo: true,
      logoPosition: 'TOP_LEFT',
      status: 'PUBLISHED',
      compiledContentHtml: '<p>client value, ignored</p>',
      compiledHeaderHtml: null,
    });
    expect(res.statusCode).toBe(201);
    const tpl = res.json();
    expect(tpl.id).toMatch(/^tpl_[0-9a-z]{26}$/);
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`${URL}/${tpl.id}`);
    expect(tpl).toMatchObject({
      version: 1,
      name: 'Angebot Wartung',
      documentType: 'OFFER',
      headerVisibility: 'FIRST_PAGE_ONLY',
      footerVisibility: 'ALL_PAGES',
      showLogo: true,
      logoPosition: 'TOP_LEFT',
      status: 'PUBLISHED',
      systemKey: null,
      compiledHeaderHtml: '<div>Test GmbH</div>',
      compiledFooterHtml: `<small>Seite ${new Date().getUTCFullYear()}-0001</small>`,
    });
    expect(tpl.fields).toEqual([
      { key: 'leistung', label: 'Leistung', type: 'text', required: true, default: null },
      { key: 'preis', label: 'Preis', type: 'money', required: false, default: 1499.5 },
      { key: 'gueltig', label: 'Gültig bis', type: 'date', required: false, default: '2026-12-31' },
      { key: 'menge', label: 'Menge', type: 'number', required: false, default: 3 },
    ]);
    // The server computes the HTML from the sources (sample values for fields without a value).
    expect(tpl.compiledContentHtml).toBe(
      '<p>Sehr geehrte Damen und Herren,</p><p>für [Leistung] bieten wir 1.499,50 € bis 31.12.2026 an.</p>',
    );
    expect(Object.keys(tpl)).not.toContain('problems');

    const got = await get(member, tpl.id);
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(tpl);
    expect(got.headers.etag).toBe('"1"');

    const updated = await put(member, tpl.id, {
      version: 1,
      name: 'Angebot Wartung 2027',
      headerSource: null,
      fields: null,
      contentSource: '<p>Neu für {{ partner.name }}</p>',
      status: 'DRAFT',
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.headers.etag).toBe('"2"');
    expect(updated.json()).toMatchObject({
      version: 2,
      name: 'Angebot Wartung 2027',
      headerSource: null,
      compiledHeaderHtml: null,
      fields: [],
      status: 'DRAFT',
      documentType: 'OFFER',
      showLogo: true,
      footerSource: '<small>Seite {{ document.documentNumber }}</small>',
      compiledContentHtml: '<p>Neu für Muster &amp; Partner GmbH</p>',
    });

    expect((await del(member, tpl.id)).statusCode).toBe(204);
    const gone = await get(member, tpl.id);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('not_found');
  });

  it('fills the defaults', async () => {
    const res = await create(member, minimal('Defaults'));
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      documentType: 'LETTER',
      fields: [],
      headerSource: null,
      headerVisibility: 'ALL_PAGES',
      footerSource: null,
      footerVisibility: 'ALL_PAGES',
      showLogo: false,
      logoPosition: 'TOP_RIGHT',
      status: 'DRAFT',
      systemKey: null,
      compiledHeaderHtml: null,
      compiledContentHtml: '<p>Hallo Muster &amp; Partner GmbH</p>',
      compiledFooterHtml: null,
    });
  });

  it('lets a DRAFT keep warnings: unknown placeholders and removed markup', async () => {
    const res = await create(member, {
      name: 'Entwurf',
      contentSource: '<p onclick="x()">{{ contract.nme }}</p><script>alert(1)</script>',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().compiledContentHtml).toBe('<p></p>');
  });

  it('filters by documentType, status, systemKey and accent-insensitive name, newest first', async () => {
    const owner = await createUser(t);
    const seeded = await list(owner);
    expect(seeded.data.map((x) => x.systemKey)).toEqual([
      'DUNNING',
      'PAYMENT_REMINDER',
      'ORDER_CONFIRMATION',
      'QUOTE',
      'CREDIT_NOTE',
      'INVOICE',
      'NOTICE',
      'TERMINATION',
    ]);
    for (const [name, documentType, status] of [
      ['Angebot Büro', 'OFFER', 'DRAFT'],
      ['Brief Café', 'LETTER', 'PUBLISHED'],
      ['Angebot 100% Rabatt', 'OFFER', 'PUBLISHED'],
    ])
      expect((await create(owner, { ...minimal(name), documentType, status })).statusCode).toBe(
        201,
      );
    const names = async (qs: string) => (await list(owner, qs)).data.map((x) => x.name);
    expect(await names('')).toEqual([
      'Angebot 100% Rabatt',
      'Brief Café',
      'Angebot Büro',
      'Mahnung',
      'Zahlungserinnerung',
      'Auftragsbestätigung',
      'Angebot',
      'Rechnungskorrektur / Stornorechnung',
      'Rechnung',
      'Mitteilung',
      'Kündigung',
    ]);
    expect(await names('documentType=INVOICE')).toEqual([
      'Rechnungskorrektur / Stornorechnung',
      'Rechnung',
    ]);
    expect(await names('documentType=OFFER')).toEqual([
      'Angebot 100% Rabatt',
      'Angebot Büro',
      'Auftragsbestätigung',
      'Angebot',
    ]);
    expect(await names('status=DRAFT')).toEqual(['Angebot Büro']);
    expect(await names('status=PUBLISHED&documentType=LETTER')).toEqual([
      'Brief Café',
      'Mahnung',
      'Zahlungserinnerung',
      'Mitteilung',
      'Kündigung',
    ]);
    expect(await names('systemKey=TERMINATION')).toEqual(['Kündigung']);
    expect(await names('q=BURO')).toEqual(['Angebot Büro']);
    expect(await names('q=kundigung')).toEqual(['Kündigung']);
    expect(await names('q=100%25')).toEqual(['Angebot 100% Rabatt']);
    expect(await names('q=_')).toEqual([]);
  });

  it('pages with a stable cursor while templates are added', async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 3; i++) await create(owner, minimal(`T${i}`));
    const page1 = await list(owner, 'limit=2');
    expect(page1.data.map((x) => x.name)).toEqual(['T2', 'T1']);
    await create(owner, minimal('inserted meanwhile'));
    const page2 = await list(owner, `limit=2&cursor=${page1.nextCursor}`);
    expect(page2.data.map((x) => x.name)).toEqual(['T0', 'Mahnung']);
    const page3 = await list(owner, `limit=2&cursor=${page2.nextCursor}`);
    expect(page3.data.map((x) => x.name)).toEqual(['Zahlungserinnerung', 'Auftragsbestätigung']);
    const page4 = await list(owner, `limit=2&cursor=${page3.nextCursor}`);
    expect(page4.data.map((x) => x.name)).toEqual([
      'Angebot',
      'Rechnungskorrektur / Stornorechnung',
    ]);
    const page5 = await list(owner, `limit=2&cursor=${page4.nextCursor}`);
    expect(page5.data.map((x) => x.name)).toEqual(['Rechnung', 'Mitteilung']);
    const page6 = await list(owner, `limit=2&cursor=${page5.nextCursor}`);
    expect(page6.data.map((x) => x.name)).toEqual(['Kündigung']);
    expect(page6.nextCursor).toBeNull();
  });
});

describe('document templates: bad input', () => {
  const field = (extra: Body) => ({
    ...minimal(),
    fields: [{ key: 'k', label: 'K', type: 'text', ...extra }],
  });
  it.each([
    ['wrong type', { ...minimal(), name: 42 }, '/body/name', 'wrong_type'],
    ['missing name', { contentSource: 'x' }, '/body/name', 'required'],
    ['missing contentSource', { name: 'X' }, '/body/contentSource', 'required'],
    ['empty contentSource', { name: 'X', contentSource: '' }, '/body/contentSource', 'too_short'],
    ['name too long', { ...minimal(), name: 'x'.repeat(201) }, '/body/name', 'too_long'],
    ['unknown field', { ...minimal(), colour: 'red' }, '/body/colour', 'unknown_field'],
    ['documentType', { ...minimal(), documentType: 'MEMO' }, '/body/documentType', 'not_in_enum'],
    [
      'headerVisibility',
      { ...minimal(), headerVisibility: 'SOMETIMES' },
      '/body/headerVisibility',
      'not_in_enum',
    ],
    [
      'footerVisibility',
      { ...minimal(), footerVisibility: 'LAST_PAGE' },
      '/body/footerVisibility',
      'not_in_enum',
    ],
    ['logoPosition', { ...minimal(), logoPosition: 'CENTER' }, '/body/logoPosition', 'not_in_enum'],
    ['status', { ...minimal(), status: 'ARCHIVED' }, '/body/status', 'not_in_enum'],
    ['systemKey', { ...minimal(), systemKey: 'OFFER' }, '/body/systemKey', 'not_in_enum'],
    ['showLogo', { ...minimal(), showLogo: 'yes' }, '/body/showLogo', 'wrong_type'],
    ['headerSource type', { ...minimal(), headerSource: 7 }, '/body/headerSource', 'wrong_type'],
    ['field type', field({ type: 'boolean' }), '/body/fields/0/type', 'not_in_enum'],
    ['field key', field({ key: '1abc' }), '/body/fields/0/key', 'invalid_format'],
    ['field key with a dot', field({ key: 'a.b' }), '/body/fields/0/key', 'invalid_format'],
    [
      'field label missing',
      { ...minimal(), fields: [{ key: 'k', type: 'text' }] },
      '/body/fields/0/label',
      'required',
    ],
    ['unknown field member', field({ hint: 'x' }), '/body/fields/0/hint', 'unknown_field'],
    ['field required type', field({ required: 'yes' }), '/body/fields/0/required', 'wrong_type'],
    [
      'duplicate field keys',
      {
        ...minimal(),
        fields: [
          { key: 'k', label: 'A', type: 'text' },
          { key: 'k', label: 'B', type: 'number' },
        ],
      },
      '/body/fields/1/key',
      'duplicate',
    ],
    ['reserved field key', field({ key: 'partner' }), '/body/fields/0/key', 'reserved'],
    ['text default not a string', field({ default: 5 }), '/body/fields/0/default', 'invalid_value'],
    [
      'number default not a number',
      field({ type: 'number', default: 'viel' }),
      '/body/fields/0/default',
      'invalid_value',
    ],
    [
      'date default not a date',
      field({ type: 'date', default: '31.12.2026' }),
      '/body/fields/0/default',
      'invalid_value',
    ],
    [
      'money default with 3 decimals',
      field({ type: 'money', default: 1.234 }),
      '/body/fields/0/default',
      'invalid_value',
    ],
    [
      'content over 200 KiB of UTF-8',
      { name: 'X', contentSource: 'ä'.repeat(110_000) },
      '/body/contentSource',
      'too_large',
    ],
    [
      'footer over 200 KiB',
      { ...minimal(), footerSource: 'x'.repeat(204_801) },
      '/body/footerSource',
      'too_long',
    ],
    [
      'systemKey on create',
      { ...minimal(), systemKey: 'TERMINATION' },
      '/body/systemKey',
      'read_only',
    ],
  ])('400 on %s, naming the field, and nothing written', async (_label, payload, path, code) => {
    const before = await countAudit(t, admin.accountId);
    const res = await create(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json()).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await countAudit(t, admin.accountId)).toBe(before);
  });

  it('400 on a PUT without version, with a bad value, and on a foreign cursor', async () => {
    const tpl = (await create(admin, minimal('V'))).json();
    const noVersion = await put(admin, tpl.id, { name: 'W' });
    expect(noVersion.statusCode).toBe(400);
    expect(noVersion.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/version', code: 'required' }),
    );
    const badStatus = await put(admin, tpl.id, { version: 1, status: null });
    expect(badStatus.statusCode).toBe(400);
    const cursor = await t.request({
      method: 'GET',
      url: `${URL}?cursor=garbage`,
      token: admin.token,
    });
    expect(cursor.statusCode).toBe(400);
    const filter = await t.request({
      method: 'GET',
      url: `${URL}?status=OPEN`,
      token: admin.token,
    });
    expect(filter.statusCode).toBe(400);
  });
});

describe('document templates: authentication and tenancy', () => {
  it('lets a user (not only an admin) write templates', async () => {
    const res = await create(member, minimal('Von Mitarbeiter'));
    expect(res.statusCode).toBe(201);
    expect((await put(member, res.json().id, { version: 1, name: 'Geändert' })).statusCode).toBe(
      200,
    );
    expect((await del(member, res.json().id)).statusCode).toBe(204);
  });

  // Another account's own templates are in the matrix (test/contract.ts); its system ones here.
  it('answers 404 for another account’s system template', async () => {
    const otherSystem = (await list(other, 'systemKey=NOTICE')).data[0]!;
    expect((await get(admin, otherSystem.id)).statusCode).toBe(404);
    expect((await get(other, otherSystem.id)).statusCode).toBe(200);
  });
});

describe('document templates: optimistic locking', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const tpl = (await create(admin, minimal('Locked'))).json();
    expect((await put(admin, tpl.id, { version: 1, name: 'First' })).statusCode).toBe(200);
    const events = await countAudit(t, admin.accountId, tpl.id);
    const stale = await put(admin, tpl.id, {
      version: 1,
      name: 'Second',
      contentSource: '{% if %}',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect((await get(admin, tpl.id)).json()).toMatchObject({ name: 'First', version: 2 });
    expect(await countAudit(t, admin.accountId, tpl.id)).toBe(events);
  });

  it('412 when If-Match does not match, on PUT and DELETE', async () => {
    const tpl = (await create(admin, minimal('Etag'))).json();
    const mismatch = await put(admin, tpl.id, { version: 1, name: 'Nope' }, { 'if-match': '"7"' });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    expect(
      (await put(admin, tpl.id, { version: 1, name: 'Yes' }, { 'if-match': '"1"' })).statusCode,
    ).toBe(200);
    expect((await del(admin, tpl.id, { 'if-match': '"1"' })).statusCode).toBe(412);
    expect((await del(admin, tpl.id, { 'if-match': '"2"' })).statusCode).toBe(204);
  });

  it('lets exactly one of two concurrent updates of the same version win', async () => {
    const tpl = (await create(admin, minimal('Race'))).json();
    const results = await Promise.all(
      ['A', 'B'].map((name) => put(admin, tpl.id, { version: 1, name })),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});

describe('document templates: idempotency and audit', () => {
  it('replays the first response of a create for the same key and body', async () => {
    const headers = { 'idempotency-key': `tpl-${Date.now()}` };
    const first = await create(admin, minimal('Einmal'), headers);
    const again = await create(admin, minimal('Einmal'), headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect((await list(admin, 'q=einmal')).data).toHaveLength(1);
    const reused = await create(admin, minimal('Anders'), headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
  });

  it('writes document_template.created, .updated (the diff) and .deleted events', async () => {
    const tpl = (await create(member, minimal('Audited'))).json();
    await put(member, tpl.id, { version: 1, showLogo: true, contentSource: '<p>neu</p>' });
    await del(member, tpl.id);
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${tpl.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'document_template.deleted',
      'document_template.updated',
      'document_template.created',
    ]);
    expect(events[1].changes).toEqual({
      showLogo: { from: false, to: true },
      contentSource: { from: '<p>Hallo {{ partner.name }}</p>', to: '<p>neu</p>' },
    });
    expect(events[2].changes).toMatchObject({
      name: 'Audited',
      contentSource: '<p>Hallo {{ partner.name }}</p>',
    });
    expect(Object.keys(events[2].changes)).not.toContain('compiledContentHtml');
    expect(events[2].actor).toMatchObject({
      type: 'user',
      userId: member.userId,
      tokenId: member.tokenId,
    });
  });

  it('rolls the write back when its audit event cannot be written', async () => {
    const spy = vi.spyOn(audit, 'appendAudit').mockRejectedValueOnce(new Error('audit store down'));
    const res = await create(admin, minimal('Nie gespeichert'));
    spy.mockRestore();
    expect(res.statusCode).toBe(500);
    expect((await list(admin, 'q=nie gespeichert')).data).toHaveLength(0);
  });
});
