import { sql, type Kysely, type KyselyPlugin, type RootOperationNode } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditCount,
  buildTestApp,
  createUser,
  type TestApp,
  type TestUser,
} from '../../../test/helpers.js';
import {
  backfillSystemSourceHashes,
  systemSourceHash,
} from '../../db/migrations/0034_system_template_sources.js';
import { isPostgres } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';
import { settleAudit } from '../../shared/audit.js';
import type { TemplateRow } from './document-templates.repository.js';
import {
  currentSystemSourceHash,
  ensureSystemTemplate,
  ensureSystemTemplates,
  SYSTEM_TEMPLATES,
} from './system-templates.js';

let t: TestApp;

beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

const URL = '/v1/document-templates';
const system = (key: string) => SYSTEM_TEMPLATES.find((s) => s.systemKey === key)!;

const rowOf = (who: TestUser, key: string): Promise<TemplateRow> =>
  t.app.ctx.db
    .selectFrom('document_templates')
    .selectAll()
    .where('account_id', '=', who.accountId)
    .where('system_key', '=', key)
    .executeTakeFirstOrThrow();

/** An account seeded by an earlier release: its row holds an older layout and that layout's hash. */
const OLD_CONTENT = '<div class="invoice"><h1>{{ document.number }}</h1><p>Alte Vorlage</p></div>';
async function seededWithOlderLayout(who: TestUser, key: string): Promise<TemplateRow> {
  const row = await rowOf(who, key);
  const old = { ...row, content_source: OLD_CONTENT, compiled_content_html: '<p>Alte Vorlage</p>' };
  await t.app.ctx.db
    .updateTable('document_templates')
    .set({
      content_source: old.content_source,
      compiled_content_html: old.compiled_content_html,
      system_source_hash: systemSourceHash(old),
    })
    .where('id', '=', row.id)
    .execute();
  return rowOf(who, key);
}

const put = (who: TestUser, id: string, payload: Record<string, unknown>) =>
  t.request({ method: 'PUT', url: `${URL}/${id}`, token: who.token, payload });

describe('system template upgrades', () => {
  it('leave a brand-new account as seeded: current hashes, version 1, nothing written', async () => {
    const owner = await createUser(t);
    const before = await auditCount(t, owner.accountId);
    expect(await ensureSystemTemplates(t.app.ctx.db, owner.accountId)).toEqual([]);
    for (const s of SYSTEM_TEMPLATES) {
      const row = await rowOf(owner, s.systemKey);
      expect(row).toMatchObject({ version: 1, system_source_hash: currentSystemSourceHash(s) });
      expect(systemSourceHash(row)).toBe(row.system_source_hash);
    }
    await settleAudit(t.app.ctx.db);
    expect(await auditCount(t, owner.accountId)).toBe(before);
  });

  it('give an unedited template the newest layout on the next use, once, audited as the system', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    const old = await seededWithOlderLayout(owner, 'INVOICE');
    await settleAudit(db);
    const before = await auditCount(t, owner.accountId);

    // Ten renders at once, starting a little apart (so some read after others have written):
    // one upgrade wins. The interleavings that matter are pinned down one by one below.
    const written = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        new Promise((resolve) => setTimeout(resolve, i * 3)).then(() =>
          ensureSystemTemplates(db, owner.accountId, new Date('2026-11-28T10:00:00Z')),
        ),
      ),
    );
    expect(written.flat().map((r) => r.id)).toEqual([old.id]);

    const row = await ensureSystemTemplate(db, owner.accountId, 'INVOICE');
    expect(row).toMatchObject({
      id: old.id,
      version: old.version + 1,
      content_source: system('INVOICE').contentSource,
      footer_source: system('INVOICE').footerSource,
      system_source_hash: currentSystemSourceHash(system('INVOICE')),
      updated_at: '2026-11-28T10:00:00.000Z',
    });
    expect(row.compiled_content_html).not.toContain('Alte Vorlage');
    expect(row.compiled_content_html.length).toBeGreaterThan(1000);

    await settleAudit(db);
    expect(await auditCount(t, owner.accountId)).toBe(before + 1);
    const events = await db
      .selectFrom('audit_events')
      .select(['actor_type', 'action', 'changes'])
      .where('resource_id', '=', old.id)
      .where('action', '=', 'document_template.updated')
      .execute();
    expect(events).toHaveLength(1);
    expect(events[0]!.actor_type).toBe('system');
    expect(JSON.parse(events[0]!.changes)).toMatchObject({
      contentSource: { from: OLD_CONTENT, to: system('INVOICE').contentSource },
    });

    // Upgraded once: the next use writes nothing.
    expect(await ensureSystemTemplates(db, owner.accountId)).toEqual([]);
    // The API shows the new layout.
    const listed = await t.request({
      method: 'GET',
      url: `${URL}?systemKey=INVOICE`,
      token: owner.token,
    });
    expect(listed.json<{ data: { contentSource: string }[] }>().data[0]!.contentSource).toBe(
      system('INVOICE').contentSource,
    );
  });

  it('leave a template the account edited as the account made it', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    const old = await seededWithOlderLayout(owner, 'INVOICE');
    const mine = `${system('INVOICE').contentSource}<p>Unsere eigene Zeile</p>`;
    const edited = await put(owner, old.id, { version: old.version, contentSource: mine });
    expect(edited.statusCode).toBe(200);
    const afterEdit = await rowOf(owner, 'INVOICE');
    // The edit keeps the hash the row was seeded from: its sources no longer match it.
    expect(afterEdit.system_source_hash).toBe(old.system_source_hash);
    await settleAudit(db);
    const before = await auditCount(t, owner.accountId);

    expect(await ensureSystemTemplates(db, owner.accountId)).toEqual([]);
    expect(await ensureSystemTemplates(db, owner.accountId)).toEqual([]);
    expect(await rowOf(owner, 'INVOICE')).toEqual(afterEdit);
    await settleAudit(db);
    expect(await auditCount(t, owner.accountId)).toBe(before);
  });

  it('never replace a system template whose edit state is unknown (no hash)', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    const old = await seededWithOlderLayout(owner, 'TERMINATION');
    await db
      .updateTable('document_templates')
      .set({ system_source_hash: null })
      .where('id', '=', old.id)
      .execute();
    expect(await ensureSystemTemplates(db, owner.accountId)).toEqual([]);
    expect(await rowOf(owner, 'TERMINATION')).toMatchObject({
      content_source: OLD_CONTENT,
      version: old.version,
    });
  });
});

/**
 * `db` for a call that pauses right after the first statement `where` picks has answered,
 * until `resume()`: another call runs in between, an interleaving of two processes pinned
 * down instead of left to timing. `paused` settles once the call is there.
 */
function pausingAfter(db: Kysely<DB>, where: (node: RootOperationNode, index: number) => boolean) {
  let statements = 0;
  let picked: string | undefined;
  let reached!: () => void;
  let resume!: () => void;
  const paused = new Promise<void>((r) => (reached = r));
  const resumed = new Promise<void>((r) => (resume = r));
  const plugin: KyselyPlugin = {
    transformQuery({ node, queryId }) {
      if (picked === undefined && where(node, statements)) picked = queryId.queryId;
      statements += 1;
      return node;
    },
    async transformResult({ result, queryId }) {
      if (queryId.queryId === picked) {
        reached();
        await resumed;
      }
      return result;
    },
  };
  const pausing = db.withPlugin(plugin);
  // `withPlugin` answers a plain Kysely: keep the class of `db` (its after-commit hooks).
  Object.setPrototypeOf(pausing, Object.getPrototypeOf(db) as object);
  return { db: pausing, paused, resume };
}

/** Runs `call` until it pauses; fails if it finishes first. */
async function untilPaused<T>(call: Promise<T>, paused: Promise<void>): Promise<void> {
  await Promise.race([
    paused,
    call.then(() => {
      throw new Error('the call finished without reaching its pause');
    }),
  ]);
}

/** PostgreSQL: waits until a session waits on a row lock for its upgrade of a template. */
async function untilUpgradeWaitsOnLock(db: Kysely<DB>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { rows } = await sql<{ n: string }>`
      select count(*) as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock'
        and query like 'update "document_templates"%' and query like '%system_source_hash%'`.execute(
      db,
    );
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('no upgrade waited on the row lock');
}

describe('system template upgrades, two processes interleaved', () => {
  const at = new Date('2026-11-28T10:00:00Z');

  /** The row's upgrade events, once the seals of `db` and of the pausing `others` are done. */
  async function upgradeEvents(id: string, ...others: Kysely<DB>[]): Promise<number> {
    for (const db of [t.app.ctx.db, ...others]) await settleAudit(db);
    const rows = await t.app.ctx.db
      .selectFrom('audit_events')
      .select('id')
      .where('resource_id', '=', id)
      .where('action', '=', 'document_template.updated')
      .execute();
    return rows.length;
  }

  /**
   * An account whose INVOICE holds an older layout, and a call B of `ensureSystemTemplates`
   * started on it and paused after the statement `where` picks.
   */
  async function pausedCall(where: (node: RootOperationNode, index: number) => boolean) {
    const owner = await createUser(t);
    const old = await seededWithOlderLayout(owner, 'INVOICE');
    const b = pausingAfter(t.app.ctx.db, where);
    const call = ensureSystemTemplates(b.db, owner.accountId, at);
    await untilPaused(call, b.paused);
    return { owner, old, b, call };
  }

  it('a call whose first read predates another upgrade does not upgrade the row again', async () => {
    // B reads the hashes (the old one), then A upgrades and commits, then B goes on: its
    // full read finds the upgraded row, unedited as well, with the current hash.
    const { owner, old, b, call: second } = await pausedCall((_node, i) => i === 0);
    const first = await ensureSystemTemplates(t.app.ctx.db, owner.accountId, at);
    expect(first.map((r) => [r.id, r.version])).toEqual([[old.id, old.version + 1]]);
    b.resume();
    expect(await second).toEqual([]);

    expect(await rowOf(owner, 'INVOICE')).toMatchObject({
      version: old.version + 1,
      system_source_hash: currentSystemSourceHash(system('INVOICE')),
    });
    expect(await upgradeEvents(old.id, b.db)).toBe(1);
  });

  it('a call that read the old row loses the compare-and-set to an upgrade committed since', async () => {
    // B has read the old row in full (statement 2) and is about to write it.
    const { owner, old, b, call: second } = await pausedCall((_node, i) => i === 1);
    expect(await ensureSystemTemplates(t.app.ctx.db, owner.accountId, at)).toHaveLength(1);
    b.resume();
    expect(await second).toEqual([]);
    expect((await rowOf(owner, 'INVOICE')).version).toBe(old.version + 1);
    expect(await upgradeEvents(old.id, b.db)).toBe(1);
  });

  it('an edit saved between the read and the upgrade wins', async () => {
    const { owner, old, b, call: upgrade } = await pausedCall((_node, i) => i === 1);
    const mine = `${system('INVOICE').contentSource}<p>Unsere eigene Zeile</p>`;
    const edited = await put(owner, old.id, { version: old.version, contentSource: mine });
    expect(edited.statusCode, edited.body).toBe(200);
    b.resume();
    expect(await upgrade).toEqual([]);
    expect(await rowOf(owner, 'INVOICE')).toMatchObject({
      version: old.version + 1,
      content_source: mine,
      system_source_hash: old.system_source_hash,
    });
    expect(await upgradeEvents(old.id, b.db)).toBe(1);
  });

  it('of two upgrades of the same old row at once, the one that commits second writes nothing', async () => {
    // B has upgraded the row in its transaction, not yet committed. A reads the old row and
    // tries the same upgrade: on PostgreSQL its UPDATE waits for B's row lock, then re-checks
    // its WHERE against B's committed row; on SQLite it waits for B's transaction to end.
    const {
      owner,
      old,
      b,
      call: second,
    } = await pausedCall((node) => node.kind === 'UpdateQueryNode');
    const db = t.app.ctx.db;
    const first = ensureSystemTemplates(db, owner.accountId, at);
    if (isPostgres(db)) await untilUpgradeWaitsOnLock(db);
    b.resume();
    const written = [...(await second), ...(await first)];
    expect(written.map((r) => [r.id, r.version])).toEqual([[old.id, old.version + 1]]);
    expect((await rowOf(owner, 'INVOICE')).version).toBe(old.version + 1);
    expect(await upgradeEvents(old.id, b.db)).toBe(1);
  });
});

describe('migration 0034 backfill', () => {
  it('hashes never-edited system templates and leaves edited ones without a hash', async () => {
    const owner = await createUser(t);
    const db = t.app.ctx.db;
    // As before the migration: no hashes, an older layout on INVOICE.
    const invoice = await seededWithOlderLayout(owner, 'INVOICE');
    const termination = await rowOf(owner, 'TERMINATION');
    const edited = await put(owner, termination.id, {
      version: 1,
      contentSource: `${termination.content_source}<p>PS</p>`,
    });
    expect(edited.statusCode).toBe(200);
    // A CREDIT_NOTE renamed by migration 0023: version 2 without an audit event.
    await db
      .updateTable('document_templates')
      .set({ version: 2 })
      .where('account_id', '=', owner.accountId)
      .where('system_key', 'in', ['CREDIT_NOTE', 'QUOTE'])
      .execute();
    // An edit whose version was then reset is still known from the audit trail.
    const notice = await rowOf(owner, 'NOTICE');
    expect(
      (
        await put(owner, notice.id, {
          version: 1,
          contentSource: `${notice.content_source}<p>PS</p>`,
        })
      ).statusCode,
    ).toBe(200);
    await db
      .updateTable('document_templates')
      .set({ version: 1 })
      .where('id', '=', notice.id)
      .execute();
    await db
      .updateTable('document_templates')
      .set({ system_source_hash: null })
      .where('account_id', '=', owner.accountId)
      .execute();

    await backfillSystemSourceHashes(db as never);

    const inv = await rowOf(owner, 'INVOICE');
    expect(inv.version).toBe(1);
    expect(inv.system_source_hash).toBe(systemSourceHash(invoice));
    expect((await rowOf(owner, 'TERMINATION')).system_source_hash).toBeNull();
    expect((await rowOf(owner, 'NOTICE')).system_source_hash).toBeNull();
    const credit = await rowOf(owner, 'CREDIT_NOTE');
    expect(credit.system_source_hash).toBe(systemSourceHash(credit));
    // Any other version 2 counts as edited, audited or not; version 1 and unaudited is unedited.
    expect((await rowOf(owner, 'QUOTE')).system_source_hash).toBeNull();
    const dunning = await rowOf(owner, 'DUNNING');
    expect(dunning.system_source_hash).toBe(currentSystemSourceHash(system('DUNNING')));

    // The backfilled unedited INVOICE then follows the newest layout; the edited ones stay.
    const written = await ensureSystemTemplates(db, owner.accountId);
    expect(written.map((r) => r.system_key)).toEqual(['INVOICE']);
    expect((await rowOf(owner, 'INVOICE')).content_source).toBe(system('INVOICE').contentSource);
    expect((await rowOf(owner, 'TERMINATION')).content_source).toContain('<p>PS</p>');
  });
});
