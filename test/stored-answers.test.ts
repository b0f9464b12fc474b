import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DB } from '../src/db/schema.js';
import * as audit from '../src/shared/audit.js';
import { findPartner, presentPartner } from '../src/modules/partners/index.js';
import { buildTestApp, createUser, dbKind, type TestApp, type TestUser } from './helpers.js';

/**
 * Every resource whose answer is its own row, kept by the database (`storeJsonAnswer`,
 * src/db/json-object.ts) and written in one round trip on PostgreSQL (src/shared/one-round.ts),
 * held to what the reading way does, one row of `RESOURCES` each:
 *
 * - reads (by id and listed) hand out exactly what the presenter makes of the same row, after
 *   inserts and after updates (through the API and straight in the database), for nulls,
 *   defaults, flags, stored JSON and awkward text;
 * - a create's event holds the record as answered; an update's event holds exactly `diff` of
 *   the records as presented, in the record's field order, whichever way it went;
 * - the cases that fall back to the reading way (an endpoint for the event, a stale version, an
 *   If-Match that contradicts the body, what the one statement cannot do) write once: one event
 *   per write, the deliveries, nothing on a conflict.
 *
 * On SQLite every write goes the reading way, and the same tests must pass.
 *
 * Contracts, payments and invoices are not here: their answers hold fields their rows do not
 * (docs/scaling.md, "Lists as JSON from the database").
 */

type Json = Record<string, unknown>;

interface AnswerResource {
  /** The collection's path, e.g. `/v1/partners`. */
  path: string;
  /** Audit actions (and webhook events) of a create and an update. */
  created: string;
  updated: string;
  /** The row as the presenter answers it, read straight from the database. */
  presented: (db: Kysely<DB>, accountId: string, id: string) => Promise<unknown>;
  /** POST bodies: nulls, defaults, flags, JSON, escapes. */
  creates: Json[];
  /** Values no request sets, written straight in the database (a maintenance script's way). */
  rawUpdate: (db: Kysely<DB>, id: string) => Promise<void>;
  /** PUT bodies (without the version) that go in one round on PostgreSQL. */
  plainUpdates: Json[];
  /** PUT bodies the one statement cannot do: they go the reading way on both databases. */
  readingUpdates: Json[];
}

const tricky = 'Quote " backslash \\ tab \t line\nbreak \u0001 ctrl, </script> \u2028 Ä ß 😀 €';

const RESOURCES: Record<string, AnswerResource> = {
  partners: {
    path: '/v1/partners',
    created: 'partner.created',
    updated: 'partner.updated',
    presented: async (db, accountId, id) => presentPartner((await findPartner(db, accountId, id))!),
    creates: [
      { name: 'Minimal GmbH' },
      {
        name: tricky,
        type: 'VENDOR',
        description: tricky,
        website: 'https://example.com/?q="x"',
        tags: ['zeta', 'alpha', 'mü'],
        addresses: [{ type: 'BILLING', street: tricky, city: 'Köln', country: 'DE' }],
        vatId: 'DE136695976',
        buyerReference: 'PO 4711',
        einvoiceFormat: 'XRECHNUNG_CII',
        language: 'en',
        dunningBlocked: true,
        consumer: false,
      },
      { name: 'Verbraucher', consumer: true, tags: [] },
    ],
    rawUpdate: async (db, id) => {
      await sql`update partners set einvoice_format = null, language = null, consumer = null, dunning_blocked = 1 where id = ${id}`.execute(
        db,
      );
    },
    plainUpdates: [
      {
        name: `${tricky} (renamed)`,
        type: 'CUSTOMER',
        description: null,
        website: null,
        addresses: [{ type: 'BILLING', city: 'München', country: 'DE' }],
        vatId: null,
        consumer: null,
        dunningBlocked: false,
        einvoiceFormat: 'XRECHNUNG_UBL',
        language: 'de',
      },
      { description: 'only this' },
      { consumer: true, electronicAddress: { scheme: 'EM', value: 'buyer@example.invalid' } },
    ],
    readingUpdates: [{ tags: ['neu', 'Ä-ß "quoted" \\ tag'], description: 'with tags' }],
  },
};

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const oneRound = dbKind === 'postgres';

const request = (as: TestUser, method: 'GET' | 'POST' | 'PUT', url: string, payload?: Json) =>
  t.request({ method, url, token: as.token, ...(payload ? { payload } : {}) });

async function events(as: TestUser, id: string, action: string): Promise<Json[]> {
  await audit.settleAudit(t.app.ctx.db);
  const res = await request(as, 'GET', `/v1/audit-events?resourceId=${id}`);
  expect(res.statusCode).toBe(200);
  return (res.json().data as Json[]).filter((e) => e.action === action);
}

/** How many writes (`action`) among what `run` does went the reading way (`appendAudit`). */
async function readingWay(action: string, run: () => Promise<void>): Promise<number> {
  const spy = vi.spyOn(audit, 'appendAudit');
  try {
    await run();
    return spy.mock.calls.filter(([, , input]) => input.action === action).length;
  } finally {
    spy.mockRestore();
  }
}

/** The tables with a stored answer (`answer_json`), as the migrated database has them. */
async function tablesWithAnswers(db: Kysely<DB>): Promise<string[]> {
  const { rows } = await (
    dbKind === 'postgres'
      ? sql<{ name: string }>`select table_name as name from information_schema.columns
        where column_name = 'answer_json' and table_schema = current_schema()`
      : sql<{ name: string }>`select m.name from sqlite_master m, pragma_table_info(m.name) p
        where m.type = 'table' and p.name = 'answer_json'`
  ).execute(db);
  return rows.map((r) => r.name).sort();
}

it('covers every table with a stored answer', async () => {
  expect(await tablesWithAnswers(t.app.ctx.db)).toEqual(Object.keys(RESOURCES).sort());
});

describe.each(Object.entries(RESOURCES))(
  '%s: stored answers and one-round writes',
  (_, r) => {
    let user: TestUser;
    const ids: string[] = [];
    beforeAll(async () => {
      user = await createUser(t);
    });

    /** GET by id and the list both answer what the presenter makes of each row. */
    async function answersArePresented(): Promise<void> {
      const list = await request(user, 'GET', `${r.path}?limit=100`);
      expect(list.statusCode).toBe(200);
      const listed = new Map((list.json().data as Json[]).map((a) => [String(a.id), a]));
      for (const id of ids) {
        const presented = await r.presented(t.app.ctx.db, user.accountId, id);
        const one = await request(user, 'GET', `${r.path}/${id}`);
        expect(one.statusCode).toBe(200);
        expect(one.json()).toStrictEqual(presented);
        expect(listed.get(id)).toStrictEqual(presented);
      }
    }

    it('creates: the event holds the record as answered, and reads answer it', async () => {
      for (const body of r.creates) {
        let made: Json = {};
        const slow = await readingWay(r.created, async () => {
          const res = await request(user, 'POST', r.path, body);
          expect(res.statusCode, res.body).toBe(201);
          made = res.json<Json>();
        });
        expect(slow).toBe(oneRound ? 0 : 1);
        const id = String(made.id);
        ids.push(id);
        expect(await r.presented(t.app.ctx.db, user.accountId, id)).toStrictEqual(made);
        const [event] = await events(user, id, r.created);
        expect(event?.changes).toEqual(made);
        // The tags went into the tag table with the row: the tag filter finds the record.
        for (const tag of (body.tags as string[] | undefined) ?? []) {
          const page = await request(user, 'GET', `${r.path}?tag=${encodeURIComponent(tag)}`);
          expect((page.json().data as Json[]).map((a) => a.id)).toContain(id);
        }
      }
      await answersArePresented();
    });

    it('updates: the event holds `diff` of the presented records, and reads answer the row', async () => {
      await r.rawUpdate(t.app.ctx.db, ids[0]!);
      await answersArePresented();
      const puts = [
        ...r.plainUpdates.map((body) => ({ body, reading: !oneRound })),
        ...r.readingUpdates.map((body) => ({ body, reading: true })),
      ];
      for (const id of ids)
        for (const { body, reading } of puts) {
          const before = (await request(user, 'GET', `${r.path}/${id}`)).json<Json>();
          let after: Json = {};
          const slow = await readingWay(r.updated, async () => {
            const res = await request(user, 'PUT', `${r.path}/${id}`, {
              ...body,
              version: before.version,
            });
            expect(res.statusCode, res.body).toBe(200);
            after = res.json<Json>();
          });
          expect(slow).toBe(reading ? 1 : 0);
          const expected = audit.diff(before, after);
          const [event] = await events(user, id, r.updated);
          expect(event?.changes).toEqual(expected);
          expect(Object.keys(event?.changes as Json)).toEqual(Object.keys(expected));
          expect(await r.presented(t.app.ctx.db, user.accountId, id)).toStrictEqual(after);
        }
      await answersArePresented();
    });

    it('falls back on a stale version or a contradicting If-Match, writing nothing', async () => {
      const id = ids[0]!;
      const current = (await request(user, 'GET', `${r.path}/${id}`)).json<Json>();
      const version = Number(current.version);
      const count = (await events(user, id, r.updated)).length;
      const stale = await request(user, 'PUT', `${r.path}/${id}`, {
        ...r.plainUpdates[1],
        version: version - 1,
      });
      expect(stale.statusCode).toBe(409);
      expect(stale.json()).toMatchObject({ code: 'version_conflict', currentVersion: version });
      const contradicted = await t.request({
        method: 'PUT',
        url: `${r.path}/${id}`,
        token: user.token,
        headers: { 'if-match': `"${version - 1}"` },
        payload: { ...r.plainUpdates[1], version },
      });
      expect(contradicted.statusCode).toBe(412);
      const missing = await request(user, 'PUT', `${r.path}/${id.slice(0, -4)}0000`, {
        ...r.plainUpdates[1],
        version: 1,
      });
      expect(missing.statusCode).toBe(404);
      expect(await events(user, id, r.updated)).toHaveLength(count);
      expect((await request(user, 'GET', `${r.path}/${id}`)).json()).toStrictEqual(current);
    });

    it('falls back when an endpoint wants the event: its deliveries, one event per write', async () => {
      const owner = await createUser(t);
      const other = await request(owner, 'POST', '/v1/webhook-endpoints', {
        url: 'https://8.8.8.8/hooks/other',
        eventTypes: [r.created],
      });
      expect(other.statusCode).toBe(201);
      const made = await request(owner, 'POST', r.path, r.creates[0]);
      expect(made.statusCode).toBe(201);
      const id = String(made.json<Json>().id);
      // An endpoint for another event does not keep the update from going in one round.
      const slow = await readingWay(r.updated, async () => {
        const res = await request(owner, 'PUT', `${r.path}/${id}`, {
          ...r.plainUpdates[1],
          version: 1,
        });
        expect(res.statusCode).toBe(200);
      });
      expect(slow).toBe(oneRound ? 0 : 1);

      const hook = await request(owner, 'POST', '/v1/webhook-endpoints', {
        url: 'https://8.8.8.8/hooks/updated',
        eventTypes: [r.updated],
      });
      expect(hook.statusCode).toBe(201);
      for (const version of [2, 3]) {
        const res = await request(owner, 'PUT', `${r.path}/${id}`, {
          ...r.plainUpdates[version - 2],
          version,
        });
        expect(res.statusCode).toBe(200);
      }
      const deliveries = (
        await request(
          owner,
          'GET',
          `/v1/webhook-endpoints/${String(hook.json<Json>().id)}/deliveries`,
        )
      ).json().data as Json[];
      expect(deliveries.map((d) => d.eventType)).toEqual([r.updated, r.updated]);
      const createdHook = (
        await request(
          owner,
          'GET',
          `/v1/webhook-endpoints/${String(other.json<Json>().id)}/deliveries`,
        )
      ).json().data as Json[];
      expect(createdHook.map((d) => d.eventType)).toEqual([r.created]);
      expect(await events(owner, id, r.created)).toHaveLength(1);
      expect(await events(owner, id, r.updated)).toHaveLength(3);
      expect((await audit.verifyAuditChain(t.app.ctx.db)).broken).toEqual([]);
    });
  },
  120_000,
);
