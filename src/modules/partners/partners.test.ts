import { sql } from 'kysely';
import { Migrator } from 'kysely/migration';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { SAMPLES, upload } from '../files/files.test-support.js';
import * as audit from '../../shared/audit.js';
import { registerReference } from '../../shared/references.js';
import { describeResourceContract } from '../../../test/contract.js';
import { freshDatabase } from '../../../test/fresh-database.js';
import { migrations } from '../../db/migrations/index.js';
import { findPartner, findPartnerJson } from './partners.repository.js';
import { presentPartner } from './partners.presenter.js';

let t: TestApp;
let admin: TestUser;
let member: TestUser;
let other: TestUser;

let image: string;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
  member = await createUser(t, { role: 'user', accountId: admin.accountId });
  image = (await upload(t, admin, 'image/png', SAMPLES.png, 'logo.png')).ticket.fileId;
  other = await createUser(t);
});
afterAll(() => t.close());

describeResourceContract(() => t, {
  name: 'partner',
  path: '/v1/partners',
  create: () => ({ name: 'Contract Partner', type: 'VENDOR' }),
  update: { method: 'PUT', body: { name: 'Renamed Partner' } },
  changedField: 'name',
});

const create = (
  user: TestUser,
  payload: Record<string, unknown>,
  headers: Record<string, string> = {},
) => t.request({ method: 'POST', url: '/v1/partners', token: user.token, payload, headers });

const auditCount = (accountId: string, resourceId?: string) => countAudit(t, accountId, resourceId);

describe('partners: happy paths', () => {
  it('creates, reads, updates and deletes a partner with every field', async () => {
    const res = await create(member, {
      name: 'Müller & Söhne GmbH',
      type: 'VENDOR',
      description: 'Büromaterial',
      website: 'https://mueller.example',
      logoFileId: image,
      addresses: [
        {
          type: 'BILLING',
          name: 'Buchhaltung',
          street: 'Hauptstraße 1',
          postalCode: '10115',
          city: 'Berlin',
          country: 'DE',
          email: 'rechnung@mueller.example',
          phone: '+49 30 1234567',
        },
      ],
      tags: ['supplier', 'office'],
    });
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p.id).toMatch(/^ptr_[0-9a-z]{26}$/);
    expect(p).toMatchObject({ version: 1, type: 'VENDOR', tags: ['supplier', 'office'] });
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/partners/${p.id}`);

    const got = await t.request({
      method: 'GET',
      url: `/v1/partners/${p.id}`,
      token: member.token,
    });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toEqual(p);
    expect(got.headers.etag).toBe('"1"');

    const put = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: member.token,
      payload: { version: 1, name: 'Müller AG', description: null, tags: ['supplier'] },
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      version: 2,
      name: 'Müller AG',
      description: null,
      website: 'https://mueller.example',
      tags: ['supplier'],
      type: 'VENDOR',
    });
    expect(put.headers.etag).toBe('"2"');

    const del = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: member.token,
    });
    expect(del.statusCode).toBe(204);
    const gone = await t.request({
      method: 'GET',
      url: `/v1/partners/${p.id}`,
      token: member.token,
    });
    expect(gone.statusCode).toBe(404);
    expect(gone.json().code).toBe('not_found');
  });

  it('defaults type to CUSTOMER and empty collections', async () => {
    const res = await create(member, { name: 'Minimal' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      type: 'CUSTOMER',
      addresses: [],
      tags: [],
      description: null,
    });
  });

  it('filters by type, tag and accent-insensitive text, and pages newest first', async () => {
    const owner = await createUser(t);
    const names = ['Alpha Bau', 'Beta Café', 'Gamma Bäckerei', 'Delta 100% Rabatt', 'Epsilon'];
    for (const [i, name] of names.entries())
      expect(
        (
          await create(owner, {
            name,
            type: i % 2 ? 'VENDOR' : 'CUSTOMER',
            tags: i < 2 ? ['vip'] : [],
          })
        ).statusCode,
      ).toBe(201);
    const list = async (qs: string) =>
      (await t.request({ method: 'GET', url: `/v1/partners?${qs}`, token: owner.token })).json();

    expect((await list('')).data.map((p: { name: string }) => p.name)).toEqual(
      [...names].reverse(),
    );
    expect((await list('type=VENDOR')).data.map((p: { name: string }) => p.name)).toEqual([
      'Delta 100% Rabatt',
      'Beta Café',
    ]);
    expect((await list('tag=vip')).data.map((p: { name: string }) => p.name)).toEqual([
      'Beta Café',
      'Alpha Bau',
    ]);
    expect((await list('q=CAFE')).data.map((p: { name: string }) => p.name)).toEqual(['Beta Café']);
    expect((await list('q=backerei')).data).toHaveLength(1);
    // LIKE wildcards in the search text are taken literally.
    expect((await list('q=100%25')).data.map((p: { name: string }) => p.name)).toEqual([
      'Delta 100% Rabatt',
    ]);
    expect((await list('q=_')).data).toHaveLength(0);
  });

  it('keeps pages stable while records are inserted', async () => {
    const owner = await createUser(t);
    for (let i = 0; i < 5; i++) await create(owner, { name: `P${i}` });
    const page1 = (
      await t.request({ method: 'GET', url: '/v1/partners?limit=2', token: owner.token })
    ).json();
    expect(page1.data.map((p: { name: string }) => p.name)).toEqual(['P4', 'P3']);
    await create(owner, { name: 'inserted meanwhile' });
    const page2 = (
      await t.request({
        method: 'GET',
        url: `/v1/partners?limit=2&cursor=${page1.nextCursor}`,
        token: owner.token,
      })
    ).json();
    expect(page2.data.map((p: { name: string }) => p.name)).toEqual(['P2', 'P1']);
    const page3 = (
      await t.request({
        method: 'GET',
        url: `/v1/partners?limit=2&cursor=${page2.nextCursor}`,
        token: owner.token,
      })
    ).json();
    expect(page3.data.map((p: { name: string }) => p.name)).toEqual(['P0']);
    expect(page3.nextCursor).toBeNull();
  });
});

describe('partners: bad input', () => {
  it.each([
    ['wrong type', { name: 42 }, '/body/name', 'wrong_type'],
    ['missing required field', { type: 'VENDOR' }, '/body/name', 'required'],
    ['value outside the enum', { name: 'X', type: 'SUPPLIER' }, '/body/type', 'not_in_enum'],
    ['unknown field', { name: 'X', colour: 'red' }, '/body/colour', 'unknown_field'],
    ['too long', { name: 'x'.repeat(201) }, '/body/name', 'too_long'],
    [
      'bad country',
      { name: 'X', addresses: [{ type: 'BILLING', country: 'XX' }] },
      '/body/addresses/0/country',
      'not_in_enum',
    ],
    [
      'bad email',
      { name: 'X', addresses: [{ type: 'BILLING', email: 'nope' }] },
      '/body/addresses/0/email',
      'invalid_format',
    ],
    [
      'unknown address field',
      { name: 'X', addresses: [{ type: 'BILLING', zip: '1' }] },
      '/body/addresses/0/zip',
      'unknown_field',
    ],
    ['duplicate tags', { name: 'X', tags: ['a', 'a'] }, '/body/tags', 'duplicate_items'],
    [
      'bad website',
      { name: 'X', website: 'javascript:alert(1)' },
      '/body/website',
      'invalid_format',
    ],
  ])('400 on %s, naming the field, and nothing written', async (_label, payload, path, code) => {
    const before = await auditCount(admin.accountId);
    const res = await create(admin, payload);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const body = res.json();
    expect(body).toMatchObject({ status: 400, code: 'validation_failed' });
    expect(body.errors).toContainEqual(expect.objectContaining({ path, code }));
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('400 malformed_json on broken JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: admin.token,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('malformed_json');
  });

  it('400 on a PUT without version and on a foreign cursor', async () => {
    const p = (await create(admin, { name: 'V' })).json();
    const put = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      payload: { name: 'W' },
    });
    expect(put.statusCode).toBe(400);
    expect(put.json().errors).toContainEqual(
      expect.objectContaining({ path: '/body/version', code: 'required' }),
    );
    const list = await t.request({
      method: 'GET',
      url: '/v1/partners?cursor=garbage',
      token: admin.token,
    });
    expect(list.statusCode).toBe(400);
    const limit = await t.request({
      method: 'GET',
      url: '/v1/partners?limit=101',
      token: admin.token,
    });
    expect(limit.statusCode).toBe(400);
  });
});

describe('partners: optimistic locking', () => {
  it('409 version_conflict on a stale version, and nothing changes', async () => {
    const p = (await create(admin, { name: 'Locked' })).json();
    expect(
      (
        await t.request({
          method: 'PUT',
          url: `/v1/partners/${p.id}`,
          token: admin.token,
          payload: { version: 1, name: 'First' },
        })
      ).statusCode,
    ).toBe(200);
    const events = await auditCount(admin.accountId, p.id);
    const stale = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      payload: { version: 1, name: 'Second' },
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    const now = (
      await t.request({ method: 'GET', url: `/v1/partners/${p.id}`, token: admin.token })
    ).json();
    expect(now).toMatchObject({ name: 'First', version: 2 });
    expect(await auditCount(admin.accountId, p.id)).toBe(events);
  });

  it('412 when If-Match does not match; If-Match guards DELETE too', async () => {
    const p = (await create(admin, { name: 'Etag' })).json();
    const mismatch = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"7"' },
      payload: { version: 1, name: 'Nope' },
    });
    expect(mismatch.statusCode).toBe(412);
    expect(mismatch.json()).toMatchObject({ code: 'precondition_failed', currentVersion: 1 });
    const ok = await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"1"' },
      payload: { version: 1, name: 'Yes' },
    });
    expect(ok.statusCode).toBe(200);
    const del = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"1"' },
    });
    expect(del.statusCode).toBe(412);
    const del2 = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
      headers: { 'if-match': '"2"' },
    });
    expect(del2.statusCode).toBe(204);
  });

  it('lets exactly one of two concurrent updates of the same version win', async () => {
    const p = (await create(admin, { name: 'Race' })).json();
    const results = await Promise.all(
      ['A', 'B'].map((name) =>
        t.request({
          method: 'PUT',
          url: `/v1/partners/${p.id}`,
          token: admin.token,
          payload: { version: 1, name },
        }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([200, 409]);
  });
});

describe('partners: idempotency', () => {
  it('replays the first response for the same key and body', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-1` };
    const first = await create(admin, { name: 'Once' }, headers);
    const again = await create(admin, { name: 'Once' }, headers);
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.etag).toBe(first.headers.etag);
    const list = (
      await t.request({ method: 'GET', url: '/v1/partners?q=once', token: admin.token })
    ).json();
    expect(list.data).toHaveLength(1);
  });

  it('422 for the same key with another body; keys are per caller', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-2` };
    expect((await create(admin, { name: 'Body A' }, headers)).statusCode).toBe(201);
    const reused = await create(admin, { name: 'Body B' }, headers);
    expect(reused.statusCode).toBe(422);
    expect(reused.json().code).toBe('idempotency_key_reused');
    // Another user may use the same key string for their own request.
    expect((await create(other, { name: 'Body B' }, headers)).statusCode).toBe(201);
  });

  it('does not store validation failures, so a corrected retry with the key works', async () => {
    const headers = { 'idempotency-key': `k-${Date.now()}-3` };
    expect((await create(admin, { name: 7 }, headers)).statusCode).toBe(400);
    expect((await create(admin, { name: 'Fixed' }, headers)).statusCode).toBe(201);
  });
});

describe('partners: audit and references', () => {
  it('writes one audit event per write, with the changed fields', async () => {
    const p = (await create(member, { name: 'Audited' })).json();
    await t.request({
      method: 'PUT',
      url: `/v1/partners/${p.id}`,
      token: member.token,
      payload: { version: 1, website: 'https://a.example' },
    });
    await t.request({ method: 'DELETE', url: `/v1/partners/${p.id}`, token: member.token });
    const events = (
      await t.request({
        method: 'GET',
        url: `/v1/audit-events?resourceId=${p.id}`,
        token: admin.token,
      })
    ).json().data;
    expect(events.map((e: { action: string }) => e.action)).toEqual([
      'partner.deleted',
      'partner.updated',
      'partner.created',
    ]);
    expect(events[1].changes).toEqual({ website: { from: null, to: 'https://a.example' } });
    expect(events[2].actor).toMatchObject({
      type: 'user',
      userId: member.userId,
      tokenId: member.tokenId,
    });
  });

  it('rolls the write back when its audit event cannot be written (same transaction)', async () => {
    // The reading way: the event's insert fails in the service. In one round (PostgreSQL): the
    // database refuses the event (a NULL id) inside the create's own statement.
    const reading = vi.spyOn(audit, 'appendAudit').mockRejectedValue(new Error('audit store down'));
    const original = audit.auditChange;
    const oneRound = vi.spyOn(audit, 'auditChange').mockImplementation((...args) => {
      const change = original(...args);
      return (
        change && {
          ...change,
          key: 'null-id',
          sql: (cte, changes, first) =>
            change.sql(cte, changes, first).replace(`$${first},`, `$${first}::text || null,`),
        }
      );
    });
    const before = await auditCount(admin.accountId);
    const res = await create(admin, { name: 'Never stored' });
    reading.mockRestore();
    oneRound.mockRestore();
    expect(res.statusCode).toBe(500);
    expect(Object.keys(res.json()).sort()).toEqual([
      'code',
      'requestId',
      'status',
      'title',
      'type',
    ]);
    const list = (
      await t.request({ method: 'GET', url: '/v1/partners?q=never', token: admin.token })
    ).json();
    expect(list.data).toHaveLength(0);
    expect(await auditCount(admin.accountId)).toBe(before);
  });

  it('refuses to delete a referenced partner with 409 in_use', async () => {
    await sql`create table if not exists test_partner_refs (id text primary key, account_id text not null, partner_id text not null references partners(id))`.execute(
      t.app.ctx.db,
    );
    const unregister = registerReference('partner', {
      table: 'test_partner_refs',
      column: 'partner_id',
      label: 'test references',
    });
    // Other test files may share this worker's module registry: take the reference back.
    onTestFinished(unregister);
    const p = (await create(admin, { name: 'Referenced' })).json();
    await sql`insert into test_partner_refs (id, account_id, partner_id) values (${`ref_${p.id}`}, ${admin.accountId}, ${p.id})`.execute(
      t.app.ctx.db,
    );
    const res = await t.request({
      method: 'DELETE',
      url: `/v1/partners/${p.id}`,
      token: admin.token,
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'in_use' });
    expect(res.json().detail).toContain('1 test references');
    expect(
      (await t.request({ method: 'GET', url: `/v1/partners/${p.id}`, token: admin.token }))
        .statusCode,
    ).toBe(200);
  });
});

const tricky = 'Quote " backslash \\ tab \t line\nbreak \u0001 ctrl, </script> \u2028 Ä ß 😀 €';

const bodies: Record<string, unknown>[] = [
  { name: 'Minimal GmbH' },
  {
    name: tricky,
    type: 'VENDOR',
    description: tricky,
    website: 'https://example.com/?a=1&b="2"',
    addresses: [
      {
        type: 'BILLING',
        name: tricky,
        street: 'Hauptstraße 1',
        postalCode: '10115',
        city: 'Berlin',
        country: 'DE',
      },
      {
        type: 'SHIPPING',
        street: 'Nebenweg 2',
        postalCode: '80331',
        city: 'München',
        country: 'DE',
      },
    ],
    tags: ['vip', 'b2b', 'ü-tag'],
    vatId: 'DE811907980',
    buyerReference: '04011000-12345-03',
    electronicAddress: { scheme: 'EM', value: 'rechnung@example.com' },
    einvoiceFormat: 'XRECHNUNG_CII',
    language: 'en',
    dunningBlocked: true,
    consumer: false,
  },
  { name: 'Verbraucher', type: 'CUSTOMER', consumer: true, dunningBlocked: false, tags: [] },
];

describe('partners: reads as JSON from the database', () => {
  // Reads answer the JSON texts the database keeps (answer_json, migration 0021); creates and
  // updates answer what presentPartner makes of the row. Both must say the same for every kind
  // of value, after inserts and after updates, however the row was written.
  let user: TestUser;
  beforeAll(async () => {
    user = await createUser(t);
  });

  it('answers exactly what presentPartner gives for the same rows', async () => {
    const ids: string[] = [];
    for (const payload of bodies) {
      const res = await t.request({
        method: 'POST',
        url: '/v1/partners',
        token: user.token,
        payload,
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    // Values no request sets: NULL format and language (the defaults), consumer unknown.
    await sql`update partners set einvoice_format = null, language = null, consumer = null where id = ${ids[0]}`.execute(
      t.app.ctx.db,
    );

    const res = await t.request({ method: 'GET', url: '/v1/partners?limit=10', token: user.token });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const page = res.json<{ data: { id: string }[]; nextCursor: string | null }>();
    expect(page.nextCursor).toBeNull();
    expect(page.data.map((p) => p.id)).toEqual([...ids].reverse());

    for (const listed of page.data) {
      const row = await findPartner(t.app.ctx.db, user.accountId, listed.id);
      expect(listed).toStrictEqual(presentPartner(row!));
      const one = await t.request({
        method: 'GET',
        url: `/v1/partners/${listed.id}`,
        token: user.token,
      });
      expect(one.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(one.headers.etag).toBe(`"${row!.version}"`);
      expect(one.json()).toStrictEqual(listed);
    }
    const [minimal, full, consumer] = [...page.data].reverse() as Record<string, unknown>[];
    expect(minimal).toMatchObject({ einvoiceFormat: 'ZUGFERD', language: 'de', consumer: null });
    expect(minimal!.electronicAddress).toBeNull();
    expect(full).toMatchObject({ name: tricky, dunningBlocked: true, consumer: false });
    expect(consumer).toMatchObject({ consumer: true, dunningBlocked: false, tags: [] });
  });

  it('keeps the stored answer up to date through every kind of update', async () => {
    const { data } = (
      await t.request({ method: 'GET', url: '/v1/partners?limit=10', token: user.token })
    ).json<{ data: { id: string; version: number }[] }>();
    const [consumer, full, minimal] = data;
    // Through the API: every field the PUT can change, with tricky text and cleared values.
    const put = await t.request({
      method: 'PUT',
      url: `/v1/partners/${full!.id}`,
      token: user.token,
      payload: {
        version: full!.version,
        name: `${tricky} (renamed)`,
        description: null,
        website: null,
        tags: ['neu', 'Ä-ß "quoted" \\ tag'],
        addresses: [],
        vatId: null,
        electronicAddress: null,
        einvoiceFormat: 'XRECHNUNG_UBL',
        language: 'de',
        dunningBlocked: false,
        consumer: true,
      },
    });
    expect(put.statusCode, put.body).toBe(200);
    // Straight in the database, as a migration or a maintenance script would write.
    await sql`update partners set dunning_blocked = 1, consumer = 0, description = ${tricky} where id = ${consumer!.id}`.execute(
      t.app.ctx.db,
    );
    await sql`update partners set search_name = 'untouched answer' where id = ${minimal!.id}`.execute(
      t.app.ctx.db,
    );

    for (const { id } of data) {
      const row = await findPartner(t.app.ctx.db, user.accountId, id);
      const one = await t.request({ method: 'GET', url: `/v1/partners/${id}`, token: user.token });
      expect(one.json()).toStrictEqual(presentPartner(row!));
    }
    const updated = await t.request({
      method: 'GET',
      url: `/v1/partners/${full!.id}`,
      token: user.token,
    });
    expect(updated.json()).toStrictEqual(put.json());
    expect(updated.json()).toMatchObject({ name: `${tricky} (renamed)`, consumer: true });
  });

  it('pages with the same cursors as before, and exports the same records as CSV', async () => {
    const first = await t.request({
      method: 'GET',
      url: '/v1/partners?limit=2',
      token: user.token,
    });
    const page1 = first.json<{ data: { id: string }[]; nextCursor: string }>();
    expect(page1.data).toHaveLength(2);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const second = await t.request({
      method: 'GET',
      url: `/v1/partners?limit=2&cursor=${page1.nextCursor}`,
      token: user.token,
    });
    const page2 = second.json<{ data: { id: string }[]; nextCursor: string | null }>();
    expect(page2.data).toHaveLength(1);
    expect(page2.nextCursor).toBeNull();

    const csv = await t.request({
      method: 'GET',
      url: '/v1/partners',
      token: user.token,
      headers: { accept: 'text/csv' },
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    const lines = csv.body.trim().split('\r\n');
    expect(lines).toHaveLength(4); // head + three partners
    expect(csv.body).toContain('Verbraucher');
  });
});

describe('partners: stored answers after the upgrade (migration 0021)', () => {
  it('fills in the partners that exist, then keeps them up to date', async () => {
    const database = await freshDatabase('kontor_upgrade');
    try {
      const migrator = new Migrator({
        db: database.db,
        provider: { getMigrations: () => Promise.resolve(migrations) },
      });
      expect((await migrator.migrateTo('0020_invoice_events')).error).toBeUndefined();
      const now = '2026-01-02T03:04:05.000Z';
      await sql`insert into accounts (id, name, plan_id, currency, date_format, number_format,
        incoming_payment_term, budgets_suppressed, allow_contract_reminder_override,
        dashboard_widgets, addresses, version, created_at, updated_at)
        values ('acc_u', 'Alt GmbH', 'free', 'EUR', 'DD.MM.YYYY', '1.234,56', 'HABEN', 0, 0,
        '[]', '[]', 1, ${now}, ${now})`.execute(database.db);
      await sql`insert into partners (id, account_id, name, search_name, type, description,
        addresses, tags, version, created_at, updated_at, dunning_blocked, consumer)
        values ('ptr_old', 'acc_u', ${tricky}, 'x', 'CUSTOMER', ${tricky},
        '[{"type":"BILLING","city":"Köln"}]', '["alt"]', 3, ${now}, ${now}, 1, null)`.execute(
        database.db,
      );
      expect((await migrator.migrateToLatest()).error).toBeUndefined();

      const read = async () => {
        const row = await findPartner(database.db, 'acc_u', 'ptr_old');
        const stored = await findPartnerJson(database.db, 'acc_u', 'ptr_old');
        return { row: row!, answer: JSON.parse(stored!.json) as unknown };
      };
      const before = await read();
      expect(before.answer).toStrictEqual(presentPartner(before.row));
      expect(before.answer).toMatchObject({ name: tricky, tags: ['alt'], consumer: null });

      await sql`update partners set name = 'Neu', consumer = 1, version = 4 where id = 'ptr_old'`.execute(
        database.db,
      );
      const after = await read();
      expect(after.answer).toStrictEqual(presentPartner(after.row));
      expect(after.answer).toMatchObject({ name: 'Neu', consumer: true, version: 4 });
    } finally {
      await database.close();
    }
  });
});
