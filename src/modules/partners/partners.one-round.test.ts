import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import * as audit from '../../shared/audit.js';

/**
 * A partner create or update on PostgreSQL goes out as one statement in one round trip when
 * it can (partners.service.ts, `createInOneRound`, `updateInOneRound`): the database writes
 * the audit event (an update's changes diffed from the columns it sets), and the condition
 * that the account has no endpoint for the event stands in for reading them. These tests hold
 * it to what the reading way does (on SQLite they run that way and must pass the same): the
 * same `changes` as `diff` of the presented partners, nothing written on a conflict, and the
 * deliveries when an endpoint wants the event.
 */
let t: TestApp;
let admin: TestUser;

type Json = Record<string, unknown>;

beforeAll(async () => {
  t = await buildTestApp();
  admin = await createUser(t);
});
afterAll(() => t.close());

const request = (as: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json) =>
  t.request({ method, url, token: as.token, ...(payload ? { payload } : {}) });

async function events(as: TestUser, id: string, action: string): Promise<Json[]> {
  const res = await request(as, 'GET', `/v1/audit-events?resourceId=${id}`);
  expect(res.statusCode).toBe(200);
  return (res.json().data as Json[]).filter((e) => e.action === action);
}
const updateEvents = (as: TestUser, id: string) => events(as, id, 'partner.updated');

/** How many partner writes (`action`) among what `run` does went the reading way (`appendAudit`). */
async function readingWay(run: () => Promise<void>, action = 'partner.updated'): Promise<number> {
  const spy = vi.spyOn(audit, 'appendAudit');
  try {
    await run();
    return spy.mock.calls.filter(([, , input]) => input.action === action).length;
  } finally {
    spy.mockRestore();
  }
}
const oneRound = dbKind === 'postgres';

const awkward = 'Quote " back \\ slash\ttab \u2028 line \u{1F600} ü Ω';

describe('partner create in one round (PostgreSQL; the reading way on SQLite)', () => {
  it('writes the partner, its tags and an event holding the partner as answered', async () => {
    let made: Json = {};
    const slow = await readingWay(async () => {
      const res = await request(admin, 'POST', '/v1/partners', {
        name: awkward,
        type: 'VENDOR',
        tags: ['zeta', 'alpha', 'mü'],
        addresses: [{ type: 'BILLING', city: 'Köln', country: 'DE' }],
        consumer: true,
      });
      expect(res.statusCode).toBe(201);
      made = res.json<Json>();
    }, 'partner.created');
    expect(slow).toBe(oneRound ? 0 : 1);
    const id = String(made.id);
    expect((await request(admin, 'GET', `/v1/partners/${id}`)).json()).toEqual(made);
    const [event] = await events(admin, id, 'partner.created');
    expect(event?.changes).toEqual(made);
    for (const tag of ['zeta', 'alpha', 'mü']) {
      const page = await request(admin, 'GET', `/v1/partners?tag=${encodeURIComponent(tag)}`);
      expect((page.json().data as Json[]).map((p) => p.id)).toContain(id);
    }
  });

  it('writes the delivery when an endpoint wants partner.created, and one audit event', async () => {
    const owner = await createUser(t);
    const hook = await request(owner, 'POST', '/v1/webhook-endpoints', {
      url: 'https://8.8.8.8/hooks/created',
      eventTypes: ['partner.created'],
    });
    expect(hook.statusCode).toBe(201);
    const ids: string[] = [];
    for (const name of ['First', 'Second']) {
      const res = await request(owner, 'POST', '/v1/partners', { name, tags: ['x'] });
      expect(res.statusCode).toBe(201);
      ids.push(String(res.json<Json>().id));
    }
    const deliveries = (
      await request(
        owner,
        'GET',
        `/v1/webhook-endpoints/${String(hook.json<Json>().id)}/deliveries`,
      )
    ).json().data as Json[];
    expect(deliveries.map((d) => d.eventType)).toEqual(['partner.created', 'partner.created']);
    for (const id of ids) expect(await events(owner, id, 'partner.created')).toHaveLength(1);
    expect((await audit.verifyAuditChain(t.app.ctx.db)).broken).toEqual([]);
  });
});

describe('partner update in one round (PostgreSQL; the reading way on SQLite)', () => {
  it('records exactly the changes `diff` gives, in the partner’s field order', async () => {
    const made = await request(admin, 'POST', '/v1/partners', {
      name: 'Round GmbH',
      type: 'CUSTOMER',
      description: 'to be cleared',
      website: 'https://round.example',
      addresses: [
        {
          type: 'BILLING',
          street: 'Hauptstr. 1',
          postalCode: '10115',
          city: 'Berlin',
          country: 'DE',
        },
      ],
      tags: ['keep'],
      consumer: false,
      language: 'de',
    });
    expect(made.statusCode).toBe(201);
    const before = made.json<Json>();
    let after: Json = {};
    const slow = await readingWay(async () => {
      const res = await request(admin, 'PUT', `/v1/partners/${String(before.id)}`, {
        version: before.version,
        name: awkward,
        type: 'CUSTOMER', // unchanged: not among the changes
        description: null,
        addresses: [
          {
            type: 'BILLING',
            street: 'Nebenstr. 2',
            postalCode: '80331',
            city: 'München',
            country: 'DE',
          },
        ],
        vatId: 'DE136695976',
        consumer: null,
        dunningBlocked: true,
        einvoiceFormat: 'XRECHNUNG_UBL',
        language: 'en',
        buyerReference: 'PO 4711',
      });
      expect(res.json()).toMatchObject({ name: awkward });
      after = res.json<Json>();
    });
    expect(slow).toBe(oneRound ? 0 : 1);
    expect(after).toMatchObject({ name: awkward, description: null, version: 2 });
    const expected = audit.diff(before, after);
    expect(Object.keys(expected)).toContain('name');
    expect(Object.keys(expected)).not.toContain('type');
    const [event] = await updateEvents(admin, String(before.id));
    expect(event?.changes).toEqual(expected);
    expect(Object.keys(event?.changes as Json)).toEqual(Object.keys(expected));
    // The partner as stored answers what the update answered.
    expect((await request(admin, 'GET', `/v1/partners/${String(before.id)}`)).json()).toEqual(
      after,
    );
  });

  it('writes nothing on a stale version and answers 409 with the current one', async () => {
    const made = (await request(admin, 'POST', '/v1/partners', { name: 'Stale' })).json<Json>();
    const id = String(made.id);
    const ok = await request(admin, 'PUT', `/v1/partners/${id}`, {
      version: 1,
      website: 'https://a.example',
    });
    expect(ok.statusCode).toBe(200);
    const stale = await request(admin, 'PUT', `/v1/partners/${id}`, {
      version: 1,
      description: 'lost',
    });
    expect(stale.statusCode).toBe(409);
    expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: 2 });
    expect((await updateEvents(admin, id)).map((e) => e.changes)).toEqual([
      { website: { from: null, to: 'https://a.example' } },
    ]);
    expect((await request(admin, 'GET', `/v1/partners/${id}`)).json()).toMatchObject({
      version: 2,
      description: null,
    });
    const missing = await request(admin, 'PUT', '/v1/partners/par_01jd8x0000000000000000000', {
      version: 1,
      description: 'x',
    });
    expect(missing.statusCode).toBe(404);
  });

  it('writes the delivery when an endpoint wants partner.updated, and one audit event', async () => {
    const owner = await createUser(t);
    const other = await request(owner, 'POST', '/v1/webhook-endpoints', {
      url: 'https://8.8.8.8/hooks/other',
      eventTypes: ['partner.created'],
    });
    expect(other.statusCode).toBe(201);
    const made = (await request(owner, 'POST', '/v1/partners', { name: 'Hooked' })).json<Json>();
    const id = String(made.id);
    // An endpoint for another event does not keep the update from going in one round.
    expect(
      await readingWay(async () => {
        const res = await request(owner, 'PUT', `/v1/partners/${id}`, {
          version: 1,
          description: 'one',
        });
        expect(res.statusCode).toBe(200);
      }),
    ).toBe(oneRound ? 0 : 1);

    const hook = await request(owner, 'POST', '/v1/webhook-endpoints', {
      url: 'https://8.8.8.8/hooks/updated',
      eventTypes: ['partner.updated'],
    });
    expect(hook.statusCode).toBe(201);
    const hookId = String(hook.json<Json>().id);
    for (const [version, description] of [
      [2, 'two'],
      [3, 'three'],
    ] as const) {
      const res = await request(owner, 'PUT', `/v1/partners/${id}`, { version, description });
      expect(res.statusCode).toBe(200);
    }
    const deliveries = (
      await request(owner, 'GET', `/v1/webhook-endpoints/${hookId}/deliveries`)
    ).json().data as Json[];
    expect(deliveries.map((d) => d.eventType)).toEqual(['partner.updated', 'partner.updated']);
    // The one-round update that met the endpoint wrote nothing: each update has one event.
    expect((await updateEvents(owner, id)).map((e) => e.changes)).toEqual([
      { description: { from: 'two', to: 'three' } },
      { description: { from: 'one', to: 'two' } },
      { description: { from: null, to: 'one' } },
    ]);
    expect((await audit.verifyAuditChain(t.app.ctx.db)).broken).toEqual([]);
  });
});
