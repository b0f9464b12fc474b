import { sql, type Kysely } from 'kysely';

/**
 * Credit notes are titled as German tax law has it: "Gutschrift" is what § 14 (2) Satz 2 UStG
 * calls an invoice the recipient issues for itself (self-billing), so a credit note that
 * corrects an invoice is a "Rechnungskorrektur", and one that cancels an invoice in full a
 * "Stornorechnung".
 *
 * `documents.storno`: 1 on a credit note that cancels its invoice in full (what
 * `POST /v1/documents/{id}/cancel` issues), so its PDF, file name, e-invoice and DATEV text
 * say so without asking the invoice. Existing ones are found by the invoice's
 * `cancelled_by_document_id`.
 *
 * The account's system template CREDIT_NOTE is renamed where its name is still the one it was
 * seeded with (an account's own name stays).
 */
export const OLD_CREDIT_NOTE_TEMPLATE = 'Gutschrift / Rechnungskorrektur';
export const CREDIT_NOTE_TEMPLATE = 'Rechnungskorrektur / Stornorechnung';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('documents')
    .addColumn('storno', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await markStornos(db);
  await renameCreditNoteTemplates(db, new Date());
}

/** Marks the credit notes that cancelled an invoice in full (idempotent). */
export async function markStornos(db: Kysely<unknown>): Promise<void> {
  await sql`
    update documents set storno = 1
    where invoice_type = 'CREDIT_NOTE' and storno = 0 and id in (
      select cancelled_by_document_id from documents where cancelled_by_document_id is not null
    )`.execute(db);
}

/**
 * Renames the CREDIT_NOTE system templates still named as seeded, as a write of its own
 * (`version` + 1, so a client holding the old version gets 409 rather than undoing it).
 */
export async function renameCreditNoteTemplates(db: Kysely<unknown>, now: Date): Promise<void> {
  await sql`
    update document_templates
    set name = ${CREDIT_NOTE_TEMPLATE}, search_name = ${CREDIT_NOTE_TEMPLATE.toLowerCase()},
      version = version + 1, updated_at = ${now.toISOString()}
    where system_key = 'CREDIT_NOTE' and name = ${OLD_CREDIT_NOTE_TEMPLATE}`.execute(db);
}
