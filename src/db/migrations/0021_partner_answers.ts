import type { Kysely } from 'kysely';
import { flag, json, number, storeJsonAnswer, text, type JsonShape } from '../json-object.js';

/**
 * `partners.answer_json`: each partner as the API answers it (`presentPartner`), kept by the
 * database (src/db/json-object.ts) so reads hand out stored text (docs/scaling.md, "Lists as
 * JSON from the database"). The shape as of this migration: a field added to the partner
 * later is a new migration calling `storeJsonAnswer` with the new shape (and exporting it as
 * the partner's answer from then on, for the audit's diff in SQL: partners.repository.ts).
 */
export const PARTNER_ANSWER: JsonShape = {
  id: text('id'),
  version: number('version'),
  name: text('name'),
  type: text('type'),
  description: text('description'),
  website: text('website'),
  logoFileId: text('logo_file_id'),
  addresses: json('addresses'),
  tags: json('tags'),
  vatId: text('vat_id'),
  buyerReference: text('buyer_reference'),
  electronicAddress: json('electronic_address'),
  einvoiceFormat: text('einvoice_format', 'ZUGFERD'),
  language: text('language', 'de'),
  dunningBlocked: flag('dunning_blocked'),
  consumer: flag('consumer', true),
  createdAt: text('created_at'),
  updatedAt: text('updated_at'),
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await storeJsonAnswer(db, 'partners', 'answer_json', PARTNER_ANSWER);
}
