import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onServer } from '../../../test/fresh-database.js';
import {
  buildTestApp,
  createUser,
  dbKind,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import { verifyAuditChain } from '../../shared/audit.js';

const run = promisify(execFile);
// The restored service reads the same sessions: it needs the same secret.
const APP_SECRET = 'a-secret-both-services-share-0123456789';
const restoredDb = `kontor_restore_${process.pid}`;
const dirs: string[] = [];

/** An invoice of three lines: a backup holds it whole or not at all. */
function createInvoice(t: TestApp, user: TestUser, partnerId: string, n: number) {
  return t.request({
    method: 'POST',
    url: '/v1/documents',
    token: user.token,
    payload: {
      documentType: 'INVOICE',
      name: `Rechnung ${n}`,
      partnerId,
      creationDate: '2026-03-02',
      lineItems: [1, 2, 3].map((q) => ({ description: `Pos ${q}`, quantity: q, unitPrice: 10 })),
    },
  });
}

/** Restores as docs/operations.md says; answers the DATABASE_URL of the restored database. */
async function restore(file: string): Promise<string> {
  if (dbKind === 'sqlite') {
    const target = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-restore-')), 'db');
    dirs.push(path.dirname(target));
    fs.copyFileSync(file, target);
    return `sqlite:${target}`;
  }
  await onServer(`drop database if exists ${restoredDb}`);
  await onServer(`create database ${restoredDb}`);
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${restoredDb}`;
  await run('pg_restore', ['--no-owner', `--dbname=${url.toString()}`, file]);
  return url.toString();
}

describe('a backup taken while writes go on', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kontor-backups-'));
  dirs.push(dir);
  let t: TestApp;
  let restored: TestApp | undefined;

  beforeAll(async () => {
    t = await buildTestApp({ env: { BACKUP_DIR: dir, APP_SECRET } });
  });
  afterAll(async () => {
    await restored?.close();
    await t.close();
    if (dbKind === 'postgres') await onServer(`drop database if exists ${restoredDb}`);
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('restores to a database that passes its checks, every invoice whole', async () => {
    const user = await createUser(t);
    const partner = await t.request({
      method: 'POST',
      url: '/v1/partners',
      token: user.token,
      payload: { name: 'Kunde' },
    });
    const partnerId = partner.json<{ id: string }>().id;
    const first = await createInvoice(t, user, partnerId, 0);
    expect(first.statusCode).toBe(201);
    const { netTotal } = first.json<{ netTotal: number }>();
    expect(netTotal).toBeGreaterThan(0);
    for (let n = 1; n < 20; n++)
      expect((await createInvoice(t, user, partnerId, n)).statusCode).toBe(201);

    // Writers keep going on the service's connection until the copy is done.
    let copying = true;
    let written = 20;
    const writers = [0, 1, 2].map(async () => {
      // Bounded: a slow dump (a loaded machine) must not make the checks below long.
      while (copying && written < 150) {
        expect((await createInvoice(t, user, partnerId, written++)).statusCode).toBe(201);
      }
    });
    const snapshot = await t.app.ctx.backups!.runIfDue();
    copying = false;
    await Promise.all(writers);
    expect(snapshot).toBeDefined();

    if (dbKind === 'sqlite') {
      const copy = new SQLite(snapshot!.file, { readonly: true });
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(copy.pragma('journal_mode', { simple: true })).toBe('delete');
      copy.close();
    }

    restored = await buildTestApp({
      env: { DATABASE_URL: await restore(snapshot!.file), APP_SECRET },
    });
    const db = restored.app.ctx.db;
    // Audit events written in a document's transaction are chained when the service starts.
    expect((await verifyAuditChain(db)).broken).toEqual([]);
    const inCopy = (
      await db
        .selectFrom('documents')
        .select('id')
        .where('account_id', '=', user.accountId)
        .where('document_type', '=', 'INVOICE')
        .execute()
    ).map((r) => r.id);
    const created = (
      await db
        .selectFrom('audit_events')
        .select('resource_id')
        .where('account_id', '=', user.accountId)
        .where('action', '=', 'document.created')
        .execute()
    ).map((r) => r.resource_id);
    expect(inCopy.length).toBeGreaterThanOrEqual(20);
    if (dbKind === 'sqlite') expect(inCopy.length).toBe(snapshot!.documents);
    // A document and its audit event commit together: the copy has both or neither.
    expect(new Set(created)).toEqual(new Set(inCopy));
    for (const id of inCopy) {
      const res = await restored.request({
        method: 'GET',
        url: `/v1/documents/${id}`,
        token: user.token,
      });
      expect(res.statusCode).toBe(200);
      const doc = res.json<{ lineItems: unknown[]; netTotal: number }>();
      expect(doc.lineItems).toHaveLength(3);
      expect(doc.netTotal).toBe(netTotal);
    }
    // A dump and a restore of the shared test database: slow on a loaded machine.
  }, 120_000);
});
