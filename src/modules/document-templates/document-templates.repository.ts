import type { Selectable } from 'kysely';
import { containsText } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import { deferFirst, type Later } from '../../db/transactions.js';
import type { DocumentTemplatesTable } from '../../db/tables/document-templates.js';
import { searchText } from '../../http/pagination.js';

export type TemplateRow = Selectable<DocumentTemplatesTable>;

/** Document template queries; every one is scoped by account (STYLE rule 3). */

export async function insertTemplates(db: Executor, rows: TemplateRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('document_templates').values(rows).execute();
}

/**
 * Inserts a system template unless the account already has one with its key (the unique
 * (account_id, system_key) index decides); true when this insert won.
 */
export async function insertSystemTemplate(db: Executor, row: TemplateRow): Promise<boolean> {
  const inserted = await db
    .insertInto('document_templates')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'system_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** What `ensureSystemTemplates` needs to know of an account's system template. */
export interface SystemTemplateState {
  id: string;
  system_key: string;
  version: number;
  system_source_hash: string | null;
}

/** The account's system templates, key, version and source hash only (one indexed read). */
export async function systemTemplateStates(
  db: Executor,
  accountId: string,
): Promise<SystemTemplateState[]> {
  const rows = await db
    .selectFrom('document_templates')
    .select(['id', 'system_key', 'version', 'system_source_hash'])
    .where('account_id', '=', accountId)
    .where('system_key', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.system_key === null ? [] : [{ ...r, system_key: r.system_key }]));
}

/** The account's templates with these ids. */
export function findTemplates(
  db: Executor,
  accountId: string,
  ids: string[],
): Promise<TemplateRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('document_templates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .execute();
}

/**
 * Replaces a system template's sources with a newer system layout: applied only while the
 * row still has the version and source hash it was read with (compare-and-set, so of two
 * processes one upgrades and an edit in between wins), and never to a row that already has
 * the new layout's hash. On PostgreSQL a concurrent UPDATE of the row waits for this one's
 * transaction and then re-checks the WHERE against the committed row (READ COMMITTED).
 */
export function upgradeSystemTemplate(
  db: Executor,
  accountId: string,
  id: string,
  expected: { version: number; systemSourceHash: string },
  values: Partial<TemplateRow> & { system_source_hash: string },
): Promise<TemplateRow | undefined> {
  if (expected.systemSourceHash === values.system_source_hash) return Promise.resolve(undefined);
  return db
    .updateTable('document_templates')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('system_key', 'is not', null)
    .where('version', '=', expected.version)
    .where('system_source_hash', '=', expected.systemSourceHash)
    .returningAll()
    .executeTakeFirst();
}

export function findSystemTemplate(
  db: Executor,
  accountId: string,
  systemKey: string,
): Promise<TemplateRow | undefined> {
  return systemTemplateByKey(db, accountId, systemKey).executeTakeFirst();
}

/** `findSystemTemplate` started now, answered later (`deferFirst`). */
export function findSystemTemplateLater(
  db: Executor,
  accountId: string,
  systemKey: string,
): Promise<Later<TemplateRow | undefined>> {
  return deferFirst(db, systemTemplateByKey(db, accountId, systemKey));
}

function systemTemplateByKey(db: Executor, accountId: string, systemKey: string) {
  return db
    .selectFrom('document_templates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('system_key', '=', systemKey);
}

export function findTemplate(
  db: Executor,
  accountId: string,
  id: string,
): Promise<TemplateRow | undefined> {
  return templateById(db, accountId, id).executeTakeFirst();
}

/** `findTemplate` started now, answered later (`deferFirst`). */
export function findTemplateLater(
  db: Executor,
  accountId: string,
  id: string,
): Promise<Later<TemplateRow | undefined>> {
  return deferFirst(db, templateById(db, accountId, id));
}

function templateById(db: Executor, accountId: string, id: string) {
  return db
    .selectFrom('document_templates')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', '=', id);
}

export async function templateVersion(
  db: Executor,
  accountId: string,
  id: string,
): Promise<number | undefined> {
  const row = await db
    .selectFrom('document_templates')
    .select('version')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.version;
}

export interface TemplateFilter {
  limit: number;
  afterId?: string;
  documentType?: string;
  status?: string;
  systemKey?: string;
  q?: string;
}

/** Newest first; fetches `limit + 1` rows so the caller can tell whether a next page exists. */
export function listTemplates(
  db: Executor,
  accountId: string,
  f: TemplateFilter,
): Promise<TemplateRow[]> {
  let query = db.selectFrom('document_templates').selectAll().where('account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('id', '<', f.afterId);
  if (f.documentType !== undefined) query = query.where('document_type', '=', f.documentType);
  if (f.status !== undefined) query = query.where('status', '=', f.status);
  if (f.systemKey !== undefined) query = query.where('system_key', '=', f.systemKey);
  if (f.q !== undefined) query = query.where(containsText('search_name', searchText(f.q)));
  return query
    .orderBy('id', 'desc')
    .limit(f.limit + 1)
    .execute();
}

/** The compare-and-set update: applied only where the stored version equals `version`. */
export function updateTemplate(
  db: Executor,
  accountId: string,
  id: string,
  version: number,
  values: Partial<TemplateRow>,
): Promise<TemplateRow | undefined> {
  return db
    .updateTable('document_templates')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Deletes a user template when the version matches (any when undefined). System templates
 * are never deleted: the `system_key IS NULL` guard is part of the statement.
 */
export function deleteTemplate(
  db: Executor,
  accountId: string,
  id: string,
  version: number | undefined,
): Promise<TemplateRow | undefined> {
  let query = db
    .deleteFrom('document_templates')
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('system_key', 'is', null);
  if (version !== undefined) query = query.where('version', '=', version);
  return query.returningAll().executeTakeFirst();
}
