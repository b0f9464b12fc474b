import { CompiledQuery, sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { newId } from '../shared/ids.js';
import { dbKind } from '../../test/helpers.js';
import { roundsOf } from '../../test/pg-rounds.js';
import { openDatabase, type Database } from './database.js';
import { deferFirst, deferInsert, deferRead, plannedEachRun, readAhead } from './transactions.js';
import type { DB } from './schema.js';

/**
 * The PostgreSQL driver's rounds (src/db/pg-driver.ts): statements with parameters go out
 * over the extended protocol, several per round trip, each prepared on its connection the
 * second time it is seen. One connection here (pool of 1), so what one statement prepares is
 * what the next one finds.
 */
const table = `pg_round_${Date.now()}`;
let database: Database;

interface Row {
  id: string;
  n: number;
  doc: unknown;
  flag: boolean | null;
  at: Date | null;
  bytes: Buffer | null;
}
const probe = () => database.db as unknown as Kysely<Record<string, Row>>;

/** The statements prepared on the pool's one connection: their texts. */
async function prepared(): Promise<string[]> {
  const { rows } = await sql<{
    statement: string;
  }>`select statement from pg_prepared_statements`.execute(database.db);
  return rows.map((r) => r.statement);
}

describe.skipIf(dbKind !== 'postgres')('PostgreSQL rounds (pg-driver)', () => {
  beforeAll(async () => {
    database = openDatabase(
      loadConfig({ DATABASE_URL: process.env.DATABASE_URL, DATABASE_POOL_SIZE: '1' }),
    );
    await sql`create table ${sql.table(table)} (id text primary key, n integer not null,
      doc jsonb, flag boolean, at timestamptz, bytes bytea)`.execute(database.db);
  });
  afterAll(async () => {
    await sql`drop table ${sql.table(table)}`.execute(database.db);
    await database.close();
  });

  const byId = (id: string) => probe().selectFrom(table).select(['id', 'n']).where('id', '=', id);

  it('prepares a statement the second time its connection sees it, and once only', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 1 }).execute();
    const text = byId(id).compile().sql;
    await byId(id).execute();
    expect(await prepared()).not.toContain(text);
    for (let i = 0; i < 3; i++) expect(await byId(id).execute()).toEqual([{ id, n: 1 }]);
    expect((await prepared()).filter((s) => s === text)).toHaveLength(1);
  });

  it('never prepares a statement run through plannedEachRun, however often it runs', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 2 }).execute();
    // A text no other test runs.
    const read = () => probe().selectFrom(table).select(['n', 'id']).where('id', '=', id);
    const text = read().compile().sql;
    for (let i = 0; i < 8; i++)
      expect(await plannedEachRun(database.db, read())).toEqual([{ id, n: 2 }]);
    expect(await prepared()).not.toContain(text);
    // The same text run the ordinary way afterwards is prepared as usual.
    for (let i = 0; i < 2; i++) await read().execute();
    expect(await prepared()).toContain(text);
  });

  it('after a failed round, keeps what it prepared before the failure and forgets the rest', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 1 }).execute();
    const before = (key: string) =>
      probe().insertInto(table).values({ id: key, n: 2, bytes: null });
    const after = (key: string) => probe().insertInto(table).values({ id: key, n: 3, flag: true });
    // Seen once each: the failing round prepares both.
    await before(`${id}a`).execute();
    await after(`${id}b`).execute();
    await expect(
      probe()
        .transaction()
        .execute(async (trx) => {
          await deferInsert(trx, before(`${id}c`));
          // Collides: the round fails here, and the server skips the rest of it.
          await deferInsert(trx, trx.insertInto(table).values({ id, n: 2 }));
          await deferInsert(trx, after(`${id}d`));
        }),
    ).rejects.toThrow(/duplicate key/);
    // One transaction: nothing of it stays.
    expect(
      await probe()
        .selectFrom(table)
        .select('id')
        .where('id', 'in', [`${id}c`, `${id}d`])
        .execute(),
    ).toEqual([]);
    // The first is prepared and found again; the last was never prepared and is prepared now.
    for (const key of ['e', 'f']) {
      await before(`${id}${key}`).execute();
      await after(`${id}${key}x`).execute();
    }
    const texts = await prepared();
    expect(texts.filter((s) => s === before('x').compile().sql)).toHaveLength(1);
    expect(texts.filter((s) => s === after('x').compile().sql)).toHaveLength(1);
  });

  it('answers prepared statements with the same rows and types once it no longer describes them', async () => {
    const id = newId('partner');
    const at = new Date('2026-11-26T08:00:00.000Z');
    await probe()
      .insertInto(table)
      .values({
        id,
        n: 1,
        doc: JSON.stringify({ a: [1] }),
        flag: true,
        at,
        bytes: Buffer.from([7]),
      })
      .execute();
    const answers = [];
    // Rounds of a read, an update answering nothing and a read again: the first describes,
    // the later ones give each result the fields learnt (rows for the reads, none between).
    for (let i = 0; i < 4; i++)
      answers.push(
        await probe()
          .transaction()
          .execute(async (trx) => {
            const early = await deferRead(
              trx,
              trx.selectFrom(table).selectAll().where('id', '=', id),
            );
            await trx.updateTable(table).set({ n: 1 }).where('id', '=', id).execute();
            const late = await trx
              .selectFrom(table)
              .select(['n', 'at'])
              .where('id', '=', id)
              .execute();
            return { early: await early(), late };
          }),
      );
    for (const answer of answers)
      expect(answer).toEqual({
        early: [{ id, n: 1, doc: { a: [1] }, flag: true, at, bytes: Buffer.from([7]) }],
        late: [{ n: 1, at }],
      });
  });

  it('answers a statement that cannot be prepared with its own error, every time', async () => {
    const broken = () =>
      sql`select n from ${sql.table(`${table}_missing`)} where id = ${'x'}`.execute(database.db);
    for (let i = 0; i < 3; i++)
      await expect(broken()).rejects.toThrow(/relation ".*" does not exist/);
    expect(await byId('none').execute()).toEqual([]);
  });

  it('sends any value a parameter can carry in a deferred statement: JSON, booleans, dates, bytes', async () => {
    const id = newId('partner');
    const at = new Date('2026-11-26T12:34:56.789Z');
    const doc = { name: "O'Brien \\ $1", lines: [1, 2.5, null], nested: { ok: true } };
    const bytes = Buffer.from([0, 1, 2, 255]);
    const read = await probe()
      .transaction()
      .execute(async (trx) => {
        await deferInsert(
          trx,
          trx
            .insertInto(table)
            .values({ id, n: 1, doc: JSON.stringify(doc), flag: false, at, bytes }),
        );
        return trx
          .selectFrom(table)
          .select(['doc', 'flag', 'at', 'bytes'])
          .where('id', '=', id)
          .execute();
      });
    expect(read).toEqual([{ doc, flag: false, at, bytes }]);
  });

  it('fails a round whose value cannot be sent, with its deferred reads, and sends none of it', async () => {
    const id = newId('partner');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const read = probe()
      .transaction()
      .execute(async (trx) => {
        const early = await deferRead(trx, trx.selectFrom(table).select('id').where('id', '=', id));
        await deferInsert(trx, trx.insertInto(table).values({ id, n: 1 }));
        await trx
          .insertInto(table)
          .values({ id: `${id}x`, n: 2, doc: circular })
          .execute();
        return early();
      });
    await expect(read).rejects.toThrow(/circular/i);
    expect(
      await probe().selectFrom(table).select('id').where('id', 'like', `${id}%`).execute(),
    ).toEqual([]);
    expect(await byId('none').execute()).toEqual([]);
  });

  it('runs a text of several statements without parameters, also amid a transaction', async () => {
    const id = newId('partner');
    await probe()
      .transaction()
      .execute(async (trx) => {
        await deferInsert(trx, trx.insertInto(table).values({ id, n: 1 }));
        await trx.executeQuery(
          CompiledQuery.raw(
            `update ${table} set n = n + 1 where id = '${id}'; update ${table} set n = n + 1 where id = '${id}'`,
          ),
        );
      });
    expect(await byId(id).execute()).toEqual([{ id, n: 3 }]);
  });

  it('reads ahead: the reads go out together without BEGIN, answered once they are back', async () => {
    const [a, b] = [newId('partner'), newId('partner')];
    await probe()
      .insertInto(table)
      .values([
        { id: a, n: 1 },
        { id: b, n: 2 },
      ])
      .execute();
    let started!: {
      first: () => Promise<unknown>;
      second: () => Promise<unknown>;
      none: () => Promise<unknown>;
    };
    const rounds = await roundsOf(async () => {
      started = await readAhead(database.db, async (ahead) => {
        const first = await deferFirst(ahead, byId(a));
        const second = await deferFirst(ahead, byId(b));
        const none = await deferFirst(ahead, byId('none'));
        await sql`select ${'plain'}::text as plain`.execute(ahead);
        return { first, second, none };
      });
    });
    // The three reads went out with the plain statement, in one round trip without BEGIN.
    expect(rounds).toHaveLength(1);
    expect(rounds[0]).toHaveLength(4);
    expect(rounds[0]).not.toContain('begin');
    expect(await started.first()).toEqual({ id: a, n: 1 });
    expect(await started.second()).toEqual({ id: b, n: 2 });
    expect(await started.none()).toBeUndefined();
    // What nothing asked for is sent when `start` is done.
    const later = await readAhead(database.db, (ahead) => deferFirst(ahead, byId(a)));
    expect(await later()).toEqual({ id: a, n: 1 });
  });

  it('reads ahead: a failure of start drops the held reads, and the connection goes on as before', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 5 }).execute();
    let held: (() => Promise<unknown>) | undefined;
    await expect(
      readAhead(database.db, async (ahead) => {
        held = await deferFirst(ahead, byId(id));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await expect(held!()).rejects.toThrow(/not needed/);
    // The pool's one connection reads as usual afterwards, in and out of transactions.
    expect(await byId(id).execute()).toEqual([{ id, n: 5 }]);
    expect(
      await database.db.transaction().execute(async (trx) => {
        const early = await deferRead(trx, byId(id));
        await trx.executeQuery(CompiledQuery.raw('select 1'));
        return early();
      }),
    ).toEqual([{ id, n: 5 }]);
  });

  it('reads ahead: when the last round fails, the connection goes back to the pool as it came', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 6 }).execute();
    const missing = CompiledQuery.raw(`select * from ${table}_missing where id = $1`, [id]);
    let held: (() => Promise<unknown>) | undefined;
    await expect(
      readAhead(database.db, async (ahead) => {
        held = await deferFirst(ahead, missing);
      }),
    ).rejects.toThrow(/does not exist/);
    await expect(held!()).rejects.toThrow(/does not exist/);
    // Not reading ahead any more: a deferred read outside a transaction goes out at once, not
    // when it is asked for (by then, on a pool of many, from another connection).
    let read!: () => Promise<unknown>;
    const rounds = await roundsOf(async () => {
      read = await deferFirst(database.db, byId(id));
    });
    expect(rounds).toHaveLength(1);
    expect(await read()).toEqual({ id, n: 6 });
  });

  it('reads ahead: a read prepared before a migration changed its columns is prepared anew', async () => {
    const other = `${table}_ahead`;
    await sql`create table ${sql.table(other)} (id text primary key)`.execute(database.db);
    const read = (db: Kysely<DB>) =>
      sql<Record<string, unknown>>`select * from ${sql.table(other)} where id = ${'a'}`.compile(db);
    const ahead = () =>
      readAhead(database.db, async (db) => {
        const row = await deferFirst(db, read(db));
        const none = await deferFirst(db, byId('none'));
        return { row, none };
      });
    try {
      await sql`insert into ${sql.table(other)} (id) values ('a')`.execute(database.db);
      for (let i = 0; i < 3; i++) await (await ahead()).row();
      expect((await prepared()).some((text) => text.includes(other))).toBe(true);
      await sql`alter table ${sql.table(other)} add column b integer default 7`.execute(
        database.db,
      );
      const again = await ahead();
      expect(await again.row()).toEqual({ id: 'a', b: 7 });
      expect(await again.none()).toBeUndefined();
    } finally {
      await sql`drop table ${sql.table(other)}`.execute(database.db);
    }
  });

  it('prepares statements anew when a migration changed the columns they answer', async () => {
    const other = `${table}_grows`;
    await sql`create table ${sql.table(other)} (id text primary key)`.execute(database.db);
    const grows = (db: Kysely<DB> = database.db) =>
      sql<Record<string, unknown>>`select * from ${sql.table(other)} where id = ${'a'}`.execute(db);
    const widen = (column: string) =>
      sql`alter table ${sql.table(other)} add column ${sql.ref(column)} integer default 7`.execute(
        database.db,
      );
    try {
      await sql`insert into ${sql.table(other)} (id) values ('a')`.execute(database.db);
      for (let i = 0; i < 3; i++) await grows();
      expect((await prepared()).some((text) => text.includes(other))).toBe(true);
      // Outside a transaction the refused statement is prepared anew and runs at once.
      await widen('b');
      expect((await grows()).rows).toEqual([{ id: 'a', b: 7 }]);
      for (let i = 0; i < 3; i++) await grows();
      // In a transaction it fails that transaction only; the next one finds it prepared anew.
      await widen('c');
      await expect(database.db.transaction().execute((trx) => grows(trx))).rejects.toThrow(
        /cached plan must not change result type/,
      );
      expect((await database.db.transaction().execute((trx) => grows(trx))).rows).toEqual([
        { id: 'a', b: 7, c: 7 },
      ]);
    } finally {
      await sql`drop table ${sql.table(other)}`.execute(database.db);
    }
  });
});
