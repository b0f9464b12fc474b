import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../shared/clock.js';
import { expectProblem } from '../../../test/contract.js';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { billingAddress, call, type Body } from '../documents/documents.test-support.js';

/**
 * SEPA mandates and partners' bank accounts (docs/sepa.md): the IBAN is checked (mod 97),
 * stored sealed and answered masked; the reference is unique per account; writes are
 * versioned and audited; a revoked mandate stays revoked.
 */

function refused(res: LightMyRequestResponse, status: number, code: string): void {
  expect(res.statusCode, res.body).toBe(status);
  expectProblem(res, code);
}

let t: TestApp;
let user: TestUser;
let other: TestUser;
let partnerId: string;

const IBAN = 'DE89 3704 0044 0532 0130 00';
const mandate = (extra: Body = {}): Body => ({
  reference: 'M-1',
  signedOn: '2026-01-15',
  iban: IBAN,
  debtorName: 'Kunde GmbH',
  ...extra,
});

beforeAll(async () => {
  t = await buildTestApp({ clock: new ManualClock(new Date('2026-06-30T08:00:00Z')) });
  user = await createUser(t);
  other = await createUser(t);
  partnerId = (
    await call<{ id: string }>(t, user, 'POST', '/v1/partners', {
      name: 'Kunde GmbH',
      addresses: [billingAddress('buchhaltung@kunde.example')],
    })
  ).id;
});
afterAll(() => t.close());

describe('mandates', () => {
  it('creates a mandate with the IBAN masked, sealed in the database, audited', async () => {
    const before = await auditCount(t, user.accountId);
    const res = await t.request({
      method: 'POST',
      url: `/v1/partners/${partnerId}/mandates`,
      token: user.token,
      payload: mandate({ reference: 'M-CREATE', bic: 'cobadeffxxx' }),
    });
    expect(res.statusCode, res.body).toBe(201);
    const body = res.json<Body>();
    expect(body).toMatchObject({
      partnerId,
      reference: 'M-CREATE',
      iban: 'DE89 **** **** **** **30 00',
      bic: 'COBADEFFXXX',
      sequenceState: 'FIRST',
      nextSequenceType: 'FRST',
      active: true,
      revokedAt: null,
      version: 1,
    });
    expect(res.headers.etag).toBe('"1"');
    expect(res.headers.location).toBe(`/v1/sepa/mandates/${String(body.id)}`);
    const row = await t.app.ctx.db
      .selectFrom('sepa_mandates')
      .selectAll()
      .where('id', '=', String(body.id))
      .executeTakeFirstOrThrow();
    expect(row.iban_sealed).not.toContain('3704');
    expect(JSON.stringify(row)).not.toContain('DE89370400440532013000');
    expect(await auditCount(t, user.accountId)).toBe(before + 1);
    const audit = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('changes')
      .where('resource_id', '=', String(body.id))
      .executeTakeFirstOrThrow();
    expect(audit.changes).not.toContain('0532013000');
  });

  it('refuses a wrong IBAN, an unknown field and a duplicate reference', async () => {
    const url = `/v1/partners/${partnerId}/mandates`;
    const bad = await t.request({
      method: 'POST',
      url,
      token: user.token,
      payload: mandate({ reference: 'M-BAD', iban: 'DE89370400440532013001' }),
    });
    refused(bad, 400, 'validation_failed');
    expect(bad.json<Body>().errors).toEqual([
      expect.objectContaining({ path: '/body/iban', code: 'invalid_format' }),
    ]);
    const unknown = await t.request({
      method: 'POST',
      url,
      token: user.token,
      payload: mandate({ reference: 'M-UNK', color: 'red' }),
    });
    refused(unknown, 400, 'validation_failed');
    await call(t, user, 'POST', url, mandate({ reference: 'M-DUP' }));
    const dup = await t.request({
      method: 'POST',
      url,
      token: user.token,
      payload: mandate({ reference: 'M-DUP' }),
    });
    refused(dup, 409, 'duplicate');
    const none = await t.request({ method: 'POST', url, payload: mandate({ reference: 'M-X' }) });
    expect(none.statusCode).toBe(401);
  });

  it('lists, reads, updates with a version and revokes once', async () => {
    const created = await call<Body>(
      t,
      user,
      'POST',
      `/v1/partners/${partnerId}/mandates`,
      mandate({ reference: 'M-LIFE' }),
    );
    const id = String(created.id);
    const list = await call<{ data: Body[] }>(t, user, 'GET', `/v1/partners/${partnerId}/mandates`);
    expect(list.data.map((m) => m.id)).toContain(id);
    const updated = await call<Body>(t, user, 'PUT', `/v1/sepa/mandates/${id}`, {
      version: 1,
      iban: 'DE02120300000000202051',
      sequenceState: 'RECURRING',
    });
    expect(updated).toMatchObject({
      iban: 'DE02 **** **** **** **20 51',
      sequenceState: 'RECURRING',
      nextSequenceType: 'RCUR',
      version: 2,
    });
    const stale = await t.request({
      method: 'PUT',
      url: `/v1/sepa/mandates/${id}`,
      token: user.token,
      payload: { version: 1, debtorName: 'X' },
    });
    refused(stale, 409, 'version_conflict');
    const completed = await t.request({
      method: 'PUT',
      url: `/v1/sepa/mandates/${id}`,
      token: user.token,
      payload: { version: 2, sequenceState: 'COMPLETED' },
    });
    refused(completed, 400, 'validation_failed');

    const revoked = await call<Body>(
      t,
      user,
      'POST',
      `/v1/sepa/mandates/${id}/revoke`,
      {
        version: 2,
      },
      200,
    );
    expect(revoked).toMatchObject({ active: false, nextSequenceType: null, version: 3 });
    expect(revoked.revokedAt).toBe('2026-06-30T08:00:00.000Z');
    const again = await t.request({
      method: 'POST',
      url: `/v1/sepa/mandates/${id}/revoke`,
      token: user.token,
      payload: { version: 3 },
    });
    refused(again, 409, 'state_conflict');
    const edit = await t.request({
      method: 'PUT',
      url: `/v1/sepa/mandates/${id}`,
      token: user.token,
      payload: { version: 3, debtorName: 'Y' },
    });
    refused(edit, 409, 'state_conflict');
    const active = await call<{ data: Body[] }>(
      t,
      user,
      'GET',
      `/v1/partners/${partnerId}/mandates?active=false`,
    );
    expect(active.data.map((m) => m.id)).toEqual([id]);
  });

  it('answers 404 for another account’s partner and mandate', async () => {
    const created = await call<Body>(
      t,
      user,
      'POST',
      `/v1/partners/${partnerId}/mandates`,
      mandate({ reference: 'M-OWN' }),
    );
    const read = await t.request({
      method: 'GET',
      url: `/v1/sepa/mandates/${String(created.id)}`,
      token: other.token,
    });
    refused(read, 404, 'not_found');
    const create = await t.request({
      method: 'POST',
      url: `/v1/partners/${partnerId}/mandates`,
      token: other.token,
      payload: mandate({ reference: 'M-OTHER' }),
    });
    refused(create, 404, 'not_found');
  });
});

describe('partner bank account', () => {
  it('is set with version 1 first, answered masked, then versioned', async () => {
    const url = `/v1/partners/${partnerId}/bank-account`;
    const empty = await call<Body>(t, user, 'GET', url);
    expect(empty).toMatchObject({ iban: null, version: 1 });
    const set = await call<Body>(t, user, 'PUT', url, {
      version: 1,
      holderName: 'Lieferant AG',
      iban: 'DE02120300000000202051',
    });
    expect(set).toMatchObject({
      holderName: 'Lieferant AG',
      iban: 'DE02 **** **** **** **20 51',
      bic: null,
      version: 2,
    });
    const stale = await t.request({
      method: 'PUT',
      url,
      token: user.token,
      payload: { version: 1, holderName: 'X', iban: 'DE02120300000000202051' },
    });
    refused(stale, 409, 'version_conflict');
    const bad = await t.request({
      method: 'PUT',
      url,
      token: user.token,
      payload: { version: 2, holderName: 'X', iban: 'DE02120300000000202052' },
    });
    refused(bad, 400, 'validation_failed');
    expect(bad.json<Body>().errors).toEqual([expect.objectContaining({ path: '/body/iban' })]);
  });
});

describe('creditor id in the company data', () => {
  it('is checked by its check digits, normalised, and kept when omitted', async () => {
    const company = await call<Body>(t, user, 'GET', '/v1/account/company');
    const { updatedAt: _u, ...body } = company;
    const wrong = await t.request({
      method: 'PUT',
      url: '/v1/account/company',
      token: user.token,
      payload: { ...body, creditorId: 'DE97ZZZ09999999999' },
    });
    refused(wrong, 400, 'validation_failed');
    expect(wrong.json<Body>().errors).toEqual([
      expect.objectContaining({ path: '/body/creditorId', code: 'invalid_format' }),
    ]);
    const set = await call<Body>(t, user, 'PUT', '/v1/account/company', {
      ...body,
      creditorId: 'de98 zzz0 9999 9999 99',
    });
    expect(set.creditorId).toBe('DE98ZZZ09999999999');
    const { creditorId: _c, updatedAt: _u2, ...without } = set;
    const kept = await call<Body>(t, user, 'PUT', '/v1/account/company', without);
    expect(kept.creditorId).toBe('DE98ZZZ09999999999');
  });
});
