import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount as countAudit,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';

/** The buyer's e-invoicing fields on partners (issue 10): BT-48, BT-10, BT-49, format, language. */

let t: TestApp;
let user: TestUser;
let other: TestUser;

beforeAll(async () => {
  t = await buildTestApp();
  user = await createUser(t, { role: 'user' });
  other = await createUser(t);
});
afterAll(() => t.close());

type Body = Record<string, unknown>;

const create = (payload: Body) =>
  t.request({ method: 'POST', url: '/v1/partners', token: user.token, payload });

const update = (id: string, payload: Body, as = user) =>
  t.request({ method: 'PUT', url: `/v1/partners/${id}`, token: as.token, payload });

const get = (id: string, as = user) =>
  t.request({ method: 'GET', url: `/v1/partners/${id}`, token: as.token });

const row = (id: string) =>
  t.app.ctx.db.selectFrom('partners').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

const CITY = {
  name: 'Stadtverwaltung Musterstadt',
  vatId: 'de 811 907 980',
  buyerReference: '04011000-12345-03',
  electronicAddress: { scheme: '0204', value: '04011000-12345-03' },
  einvoiceFormat: 'XRECHNUNG_UBL',
  language: 'de',
};

describe('partners: buyer e-invoicing fields', () => {
  it('stores and answers every field, the VAT id normalised', async () => {
    const res = await create(CITY);
    expect(res.statusCode).toBe(201);
    const p = res.json();
    expect(p).toMatchObject({
      ...CITY,
      vatId: 'DE811907980',
    });
    expect((await get(p.id)).json()).toEqual(p);
    expect(await row(p.id)).toMatchObject({
      vat_id: 'DE811907980',
      buyer_reference: '04011000-12345-03',
      electronic_address: JSON.stringify(CITY.electronicAddress),
      einvoice_format: 'XRECHNUNG_UBL',
      language: 'de',
    });
    const list = await t.request({ method: 'GET', url: '/v1/partners', token: user.token });
    expect(list.json().data.find((x: { id: string }) => x.id === p.id)).toEqual(p);
  });

  it('answers ZUGFERD and de when nothing was set, and null for the rest', async () => {
    const res = await create({ name: 'Kunde ohne Angaben' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      vatId: null,
      buyerReference: null,
      electronicAddress: null,
      einvoiceFormat: 'ZUGFERD',
      language: 'de',
    });
    expect(await row(res.json().id)).toMatchObject({ einvoice_format: null, language: null });
  });

  it('changes the fields on PUT, null clearing them or resetting to the default, and audits it', async () => {
    const p = (await create(CITY)).json();
    const changed = await update(p.id, {
      version: 1,
      vatId: 'ATU13585627',
      buyerReference: 'PO-4711',
      electronicAddress: { scheme: 'EM', value: 'einkauf@wien.example' },
      einvoiceFormat: 'XRECHNUNG_CII',
      language: 'en',
    });
    expect(changed.statusCode).toBe(200);
    expect(changed.json()).toMatchObject({
      version: 2,
      vatId: 'ATU13585627',
      buyerReference: 'PO-4711',
      electronicAddress: { scheme: 'EM', value: 'einkauf@wien.example' },
      einvoiceFormat: 'XRECHNUNG_CII',
      language: 'en',
    });
    const kept = await update(p.id, { version: 2, name: 'Stadt Wien' });
    expect(kept.json()).toMatchObject({ vatId: 'ATU13585627', language: 'en' });
    const cleared = await update(p.id, {
      version: 3,
      vatId: null,
      buyerReference: null,
      electronicAddress: null,
      einvoiceFormat: null,
      language: null,
    });
    expect(cleared.statusCode).toBe(200);
    expect(cleared.json()).toMatchObject({
      vatId: null,
      buyerReference: null,
      electronicAddress: null,
      einvoiceFormat: 'ZUGFERD',
      language: 'de',
    });

    const event = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('changes')
      .where('resource_id', '=', p.id)
      .where('action', '=', 'partner.updated')
      .orderBy('seq', 'asc')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(event.changes)).toMatchObject({
      vatId: { from: 'DE811907980', to: 'ATU13585627' },
      language: { from: 'de', to: 'en' },
    });
  });

  it('accepts buyer references that do not start like a Leitweg-ID, and valid Leitweg-IDs', async () => {
    for (const buyerReference of ['PO-4711', 'Bestellung 2026/17', '4711', '991-33333TEST-33']) {
      const res = await create({ name: `Ref ${buyerReference}`, buyerReference });
      expect(res.statusCode, buyerReference).toBe(201);
      expect(res.json().buyerReference).toBe(buyerReference);
    }
  });

  it.each([
    [
      'a German VAT id with a wrong check digit',
      { vatId: 'DE123456789' },
      '/body/vatId',
      'check digit',
    ],
    ['a French VAT id too short', { vatId: 'FR4030326504' }, '/body/vatId', 'FR + 2 characters'],
    [
      'a Belgian VAT id starting with 2',
      { vatId: 'BE2123456789' },
      '/body/vatId',
      'BE + 10 digits',
    ],
    [
      'a Leitweg-ID with wrong check digits',
      { buyerReference: '04011000-12345-04' },
      '/body/buyerReference',
      'check digits',
    ],
    [
      'a Leitweg-ID of a bad format',
      { buyerReference: '04011000-12345' },
      '/body/buyerReference',
      'must be a Leitweg-ID',
    ],
    [
      'an unknown EAS scheme',
      { electronicAddress: { scheme: 'ZZ', value: 'x' } },
      '/body/electronicAddress/scheme',
      'EAS',
    ],
    [
      'EM that is not an email',
      { electronicAddress: { scheme: 'EM', value: 'nobody' } },
      '/body/electronicAddress/value',
      'email',
    ],
  ])('400 on %s, naming the field and why', async (_label, change, path, why) => {
    const before = await countAudit(t, user.accountId);
    const res = await create({ name: 'Refused', ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'validation_failed' });
    expect(res.json().errors).toEqual([
      expect.objectContaining({ path, message: expect.stringContaining(why) }),
    ]);
    expect(await countAudit(t, user.accountId)).toBe(before);
  });

  it.each([
    [
      'format not in the list',
      { einvoiceFormat: 'EDIFACT' },
      '/body/einvoiceFormat',
      'not_in_enum',
    ],
    ['language not in the list', { language: 'fr' }, '/body/language', 'not_in_enum'],
    [
      'long buyer reference',
      { buyerReference: 'x'.repeat(201) },
      '/body/buyerReference',
      'too_long',
    ],
    ['empty VAT id', { vatId: '' }, '/body/vatId', 'too_short'],
    [
      'unknown electronic address field',
      { electronicAddress: { scheme: 'EM', value: 'a@b.example', label: 'x' } },
      '/body/electronicAddress/label',
      'unknown_field',
    ],
    [
      'electronic address value too long',
      { electronicAddress: { scheme: '0088', value: '1'.repeat(257) } },
      '/body/electronicAddress/value',
      'too_long',
    ],
  ])('400 on %s (schema)', async (_label, change, path, code) => {
    const res = await create({ name: 'Refused', ...change });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContainEqual(expect.objectContaining({ path, code }));
  });

  it('collects the problems of a PUT into one answer, and changes nothing', async () => {
    const p = (await create(CITY)).json();
    const res = await update(p.id, {
      version: 1,
      vatId: 'XX1',
      buyerReference: '991-33333TEST-34',
      electronicAddress: { scheme: '9958', value: '991-33333TEST-33' },
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { path: string }) => e.path)
        .sort(),
    ).toEqual(['/body/buyerReference', '/body/electronicAddress/scheme', '/body/vatId']);
    expect((await get(p.id)).json()).toEqual(p);
  });

  it('keeps the fields to the partner’s account', async () => {
    const p = (await create(CITY)).json();
    expect((await get(p.id, other)).statusCode).toBe(404);
    expect((await update(p.id, { version: 1, vatId: null }, other)).statusCode).toBe(404);
    expect((await get(p.id)).json()).toMatchObject({ vatId: 'DE811907980', version: 1 });
  });
});
