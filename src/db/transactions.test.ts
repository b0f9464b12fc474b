import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { newId } from '../shared/ids.js';
import { buildTestApp, dbKind, type TestApp } from '../../test/helpers.js';
import { openDatabase, type Database } from './database.js';
import { afterCommit, deferInsert, deferRead } from './transactions.js';

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

  it('keeps values exact in deferred statements: quotes, backslashes, placeholders, numbers', async () => {
    const id = newId('partner');
    const nasty = [`it's`, 'back\\slash\\', '$1 and $2', "'); drop table x; --", 'Grüße 🧾', ''];
    const read = await probe()
      .transaction()
      .execute(async (trx) => {
        for (const [i, text] of nasty.entries())
          await deferInsert(trx, trx.insertInto(table).values({ id: `${id}${i}${text}`, n: i }));
        // The first statement that needs an answer goes out with BEGIN and the inserts.
        return trx
          .selectFrom(table)
          .select(['id', 'n'])
          .where('id', 'like', `${id}%`)
          .where('n', '<', 100)
          .orderBy('n')
          .limit(10)
          .execute();
      });
    expect(read).toEqual(nasty.map((text, i) => ({ id: `${id}${i}${text}`, n: i })));
  });

  it('rolls back a transaction whose first statement fails, and leaves the connection clean', async () => {
    const id = newId('partner');
    await probe().insertInto(table).values({ id, n: 1 }).execute();
    for (let i = 0; i < 3; i++)
      await expect(
        probe()
          .transaction()
          .execute(async (trx) => {
            await deferInsert(trx, trx.insertInto(table).values({ id: `${id}x${i}`, n: 2 }));
            // Collides: BEGIN and the deferred insert went out with it and must be undone.
            await trx.insertInto(table).values({ id, n: 3 }).execute();
          }),
      ).rejects.toThrow();
    expect(await count(`${id}x`)).toBe(0);
    // Every pooled connection still works (none was returned inside an aborted transaction).
    const reads = await Promise.all(
      Array.from({ length: 30 }, () =>
        probe()
          .transaction()
          .execute((trx) => trx.selectFrom(table).select('id').where('id', '=', id).execute()),
      ),
    );
    expect(reads.every((r) => r.length === 1)).toBe(true);
  });

  it('sends a deferred read with the next statement: it sees the writes before it, not those after', async () => {
    const id = newId('partner');
    const seen = await probe()
      .transaction()
      .execute(async (trx) => {
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}a`, n: 1 }));
        const early = await deferRead(
          trx,
          trx.selectFrom(table).select('n').where('id', 'like', `${id}%`),
        );
        // The update carries the read (PostgreSQL: one round trip), so the read does not see it.
        await trx.updateTable(table).set({ n: 9 }).where('id', '=', `${id}a`).execute();
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}b`, n: 2 }));
        return (await early()).map((r) => r.n);
      });
    expect(seen).toEqual([1]);
    expect(await count(id)).toBe(2);
  });

  it('sends a deferred read on its own when it is asked for before any other statement', async () => {
    const id = newId('partner');
    await probe()
      .insertInto(table)
      .values({ id: `${id}a`, n: 5 })
      .execute();
    const seen = await probe()
      .transaction()
      .execute(async (trx) => {
        const early = await deferRead(
          trx,
          trx.selectFrom(table).select('n').where('id', 'like', `${id}%`),
        );
        const rows = await early();
        await deferInsert(trx, trx.insertInto(table).values({ id: `${id}b`, n: 6 }));
        return rows.map((r) => r.n);
      });
    expect(seen).toEqual([5]);
    expect(await count(id)).toBe(2);
  });

  it('runs a deferred insert at once outside a transaction', async () => {
    const id = newId('partner');
    await deferInsert(database.db, probe().insertInto(table).values({ id, n: 1 }));
    expect(await count(id)).toBe(1);
  });
});
