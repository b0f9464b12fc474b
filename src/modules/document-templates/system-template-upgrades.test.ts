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

    // Two renders at once: the compare-and-set on version and hash lets one upgrade win.
    const [a, b] = await Promise.all([
      ensureSystemTemplates(db, owner.accountId, new Date('2026-11-28T10:00:00Z')),
      ensureSystemTemplates(db, owner.accountId, new Date('2026-11-28T10:00:00Z')),
    ]);
    expect([...a, ...b].map((r) => r.id)).toEqual([old.id]);

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
