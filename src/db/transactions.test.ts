import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { newId } from '../shared/ids.js';
import { buildTestApp, dbKind, type TestApp } from '../../test/helpers.js';
import { openDatabase, type Database } from './database.js';
import { afterCommit, deferInsert } from './transactions.js';

let t: TestApp;
let database: Database;
const table = `tx_probe_${Date.now()}`;

beforeAll(async () => {
  t = await buildTestApp();
  database = openDatabase(loadConfig({ DATABASE_URL: databaseUrl(t) }));
  await sql`create table ${sql.table(table)} (id text primary key, n integer not null)`.execute(
    database.db,
  );
});
afterAll(async () => {
  await sql`drop table ${sql.table(table)}`.execute(database.db);
  await database.close();
  await t.close();
});

function databaseUrl(app: TestApp): string {
  const c = app.app.ctx.config.database;
  return c.kind === 'sqlite' ? `sqlite:${c.file}` : c.url;
}

const probe = () => database.db as unknown as Kysely<Record<string, { id: string; n: number }>>;
const count = async (id: string) =>
  (await probe().selectFrom(table).select('id').where('id', 'like', `${id}%`).execute()).length;

describe(`transactions (${dbKind})`, () => {
  it('sends deferred inserts before a later statement reads, and commits them with the rest', async () => {
    const id = newId('partner');
    const seen = await probe()
      .transaction()
      .execute(async (trx) => {
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}a`, n: 1 }));
        await deferInsert(
          trx,
          trx.insertInto(table).values([
            { id: `${id}b`, n: 2 },
            { id: `${id}c`, n: 3 },
          ]),
        );
        const rows = await trx
          .selectFrom(table)
          .select('n')
          .where('id', 'like', `${id}%`)
          .execute();
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}d`, n: 4 }));
        return rows.map((r) => r.n).sort();
      });
    expect(seen).toEqual([1, 2, 3]);
    expect(await count(id)).toBe(4);
  });

  it('commits a transaction of deferred inserts only as one atomic statement: all or nothing', async () => {
    const id = newId('partner');
    await probe()
      .transaction()
      .execute(async (trx) => {
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}a`, n: 1 }));
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}b`, n: 2 }));
      });
    expect(await count(id)).toBe(2);
    // The second insert collides with a committed row: the first must not stay either.
    await expect(
      probe()
        .transaction()
        .execute(async (trx) => {
          await deferInsert(trx, trx.insertInto(table).values({ id: `${id}x`, n: 1 }));
          await deferInsert(trx, trx.insertInto(table).values({ id: `${id}a`, n: 9 }));
        }),
    ).rejects.toThrow();
    expect(await count(`${id}x`)).toBe(0);
  });

  it('drops deferred inserts when the transaction rolls back, and runs after-commit hooks only on commit', async () => {
    const id = newId('partner');
    const hooks: string[] = [];
    await expect(
      probe()
        .transaction()
        .execute(async (trx) => {
          afterCommit(trx, () => Promise.resolve(void hooks.push('rolled back')));
          await deferInsert(trx, trx.insertInto(table).values({ id: `${id}a`, n: 1 }));
          await trx.selectFrom(table).select('id').limit(1).execute();
          await deferInsert(trx, trx.insertInto(table).values({ id: `${id}b`, n: 2 }));
          throw new Error('abort');
        }),
    ).rejects.toThrow('abort');
    expect(await count(id)).toBe(0);
    await probe()
      .transaction()
      .execute(async (trx) => {
        expect(afterCommit(trx, () => Promise.resolve(void hooks.push('committed')))).toBe(true);
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}c`, n: 1 }));
      });
    expect(hooks).toEqual(['committed']);
    expect(await count(id)).toBe(1);
  });

  it('runs a deferred insert at once outside a transaction', async () => {
    const id = newId('partner');
    await deferInsert(database.db, probe().insertInto(table).values({ id, n: 1 }));
    expect(await count(id)).toBe(1);
  });
});
