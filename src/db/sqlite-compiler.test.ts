import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Database } from './database.js';
import { PARTIAL_INDEX_COLUMNS } from './partial-index-constants.js';

// How SQLite statements are written so that each is compiled once, not before every run
// (src/db/sqlite-driver.ts, KontorSqliteQueryCompiler).
let dir: string;
let database: Database;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-compiler-'));
  database = openDatabase({ database: { kind: 'sqlite', file: path.join(dir, 'db.sqlite') } });
  await migrate(database.db);
});
afterAll(async () => {
  await database.db.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The plan SQLite chose for a compiled statement, its steps' details in one line. */
const plan = async (query: CompiledQuery) =>
  (
    await database.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    )
  ).rows
    .map((r) => r.detail)
    .join(' | ');

describe('SQLite statements compiled once', () => {
  it('names every column that a partial index compares with a constant', async () => {
    const { rows } = await sql<{ sql: string }>`
      select sql from sqlite_master where type = 'index' and sql like '% where %'`.execute(
      database.db,
    );
    const compared = new Set(
      rows.flatMap((r) =>
        [...r.sql.slice(r.sql.toLowerCase().indexOf(' where ')).matchAll(/"(\w+)" = ('|\d)/g)].map(
          (m) => m[1]!,
        ),
      ),
    );
    expect(compared.size).toBeGreaterThan(0);
    expect([...compared].sort()).toEqual([...PARTIAL_INDEX_COLUMNS].sort());
  });

  it('writes parameters as +?, a page size as a number, and enum words a partial index names', () => {
    const query = database.db
      .selectFrom('documents')
      .selectAll()
      .where('account_id', '=', 'acc_1')
      .where('document_type', '=', 'INVOICE')
      .where('status', '=', 'FINAL')
      .where('name', '=', 'FINAL')
      .where('status', '!=', 'DRAFT')
      .orderBy('id', 'desc')
      .limit(26)
      .offset(5)
      .compile();
    expect(query.sql).toBe(
      'select * from "documents" where "account_id" = +? and "document_type" = \'INVOICE\' and "status" = \'FINAL\' and "name" = +? and "status" != +? order by "id" desc limit 26 offset 5',
    );
    expect(query.parameters).toEqual(['acc_1', 'FINAL', 'DRAFT']);
  });

  it('keeps anything that is not an enum word a parameter, quotes included', () => {
    const query = database.db
      .selectFrom('payments')
      .select('id')
      .where('status', '=', "MARKED' or 1=1 --")
      .where('status', '=', 'marked')
      .compile();
    expect(query.sql).toBe('select "id" from "payments" where "status" = +? and "status" = +?');
    expect(query.parameters).toEqual(["MARKED' or 1=1 --", 'marked']);
  });

  it('answers the same rows as before: unary plus changes no value', async () => {
    const { rows } = await sql<{
      text: string;
      int: number;
      real: number;
      nul: null;
      same: number;
    }>`select ${'x'} as text, ${7} as int, ${1.5} as real, ${null} as nul, ${'5'} = 5 as same`.execute(
      database.db,
    );
    // A parameter compared with a number literal stays text, as a bare parameter did.
    expect(rows).toEqual([{ text: 'x', int: 7, real: 1.5, nul: null, same: 0 }]);
  });

  it('lets the open-invoice list and the dunning scan use their partial indexes', async () => {
    const open = database.db
      .selectFrom('documents')
      .selectAll()
      .where('account_id', '=', 'acc_1')
      .where('document_type', '=', 'INVOICE')
      .where('invoice_type', '=', 'INVOICE')
      .where('status', '=', 'FINAL')
      .where('paid_at', 'is', null)
      .where('cancelled_by_document_id', 'is', null)
      .orderBy('id', 'desc')
      .limit(26)
      .compile();
    expect(await plan(open)).toContain('documents_open_idx');
    const dunning = database.db
      .selectFrom('documents')
      .select('id')
      .where('account_id', '=', 'acc_1')
      .where('document_type', '=', 'INVOICE')
      .where('status', '=', 'FINAL')
      .where('invoice_type', '=', 'INVOICE')
      .where('cancelled_by_document_id', 'is', null)
      .where('due_date', '<', '2026-11-01')
      .compile();
    expect(await plan(dunning)).toMatch(/documents_(dunning|overdue|open)/);
  });
});
