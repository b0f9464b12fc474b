import type { Kysely } from 'kysely';

/**
 * The customer link printed on a FINAL document's PDF (docs/customer-page.md, "On the PDF"):
 * `url_sealed` keeps that one link's URL sealed (AES-256-GCM under a key derived from the app
 * secret) so the PDF can be rendered again and a later send can reuse it; null on every other
 * link, whose token stays known only by its SHA-256.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('customer_links').addColumn('url_sealed', 'text').execute();
}
