import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

/**
 * System templates follow the system's newest layout until the account edits them
 * (docs/rendering.md, "System templates and upgrades").
 *
 * `document_templates.system_source_hash`: on a system template, the SHA-256 (hex) of the
 * sources it was seeded or last upgraded from (`systemSourceHash`); null on the account's own
 * templates and on system templates whose edit state is unknown. While a row's sources still
 * hash to it, the account has not edited the row, and a newer system layout replaces it.
 *
 * Backfill: a system template gets the hash of its current sources when it was never edited,
 * known from two things together: no `document_template.updated` event for it in the audit
 * trail (every edit through the API writes one, in the edit's transaction), and its
 * `version` still the one its seed and the un-audited migration writes gave it (1; 2 for a
 * CREDIT_NOTE template renamed by migration 0023, which bumped the version without an audit
 * event). Every other system template keeps null: it counts as edited and is never replaced.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('document_templates')
    .addColumn('system_source_hash', 'text')
    .execute();
  await backfillSystemSourceHashes(db);
}

/** What a system template is seeded from: the columns an account can edit. */
export interface SystemSources {
  name: string;
  document_type: string;
  content_source: string;
  /** TemplateField[] as stored (JSON text). */
  fields: string;
  header_source: string | null;
  header_visibility: string;
  footer_source: string | null;
  footer_visibility: string;
  show_logo: number;
  logo_position: string;
  status: string;
}

/**
 * SHA-256 (hex) of a template's sources, in a fixed order. Stored hashes depend on it: it
 * must never change (a new source column would need a migration that rehashes).
 */
export function systemSourceHash(s: SystemSources): string {
  const canonical = JSON.stringify([
    s.name,
    s.document_type,
    s.content_source,
    s.fields,
    s.header_source,
    s.header_visibility,
    s.footer_source,
    s.footer_visibility,
    s.show_logo,
    s.logo_position,
    s.status,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** The CREDIT_NOTE name migration 0023 gave, with a version bump and no audit event. */
const RENAMED_CREDIT_NOTE = 'Rechnungskorrektur / Stornorechnung';

interface CandidateRow extends SystemSources {
  id: string;
  system_key: string;
  version: number;
}

/** Sets the hash on never-edited system templates without one (idempotent). */
export async function backfillSystemSourceHashes(db: Kysely<unknown>): Promise<number> {
  const candidates = (
    await sql<CandidateRow>`
      select id, system_key, version, name, document_type, content_source, fields,
        header_source, header_visibility, footer_source, footer_visibility, show_logo,
        logo_position, status
      from document_templates
      where system_key is not null and system_source_hash is null
        and (version = 1 or (system_key = 'CREDIT_NOTE' and version = 2 and name = ${RENAMED_CREDIT_NOTE}))`.execute(
      db,
    )
  ).rows;
  if (candidates.length === 0) return 0;
  const edited = new Set<string>();
  for (const table of ['audit_events', 'audit_pending']) {
    const rows = (
      await sql<{ resource_id: string }>`
        select distinct resource_id from ${sql.table(table)}
        where resource_type = 'document_template' and action = 'document_template.updated'`.execute(
        db,
      )
    ).rows;
    for (const r of rows) edited.add(r.resource_id);
  }
  let n = 0;
  for (const row of candidates) {
    if (edited.has(row.id)) continue;
    await sql`
      update document_templates set system_source_hash = ${systemSourceHash(row)}
      where id = ${row.id} and version = ${row.version} and system_source_hash is null`.execute(db);
    n += 1;
  }
  return n;
}
