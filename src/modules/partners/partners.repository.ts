import type { Selectable } from 'kysely';
import {
  recordQueries,
  insertTags,
  replaceTags as replaceTagsOf,
  type TagTable,
  type Executor,
} from '../../db/records.js';
import type { PartnersTable } from '../../db/schema.js';
import { deferInsert } from '../../db/transactions.js';
import { containsText } from '../../db/dialect.js';
import {
  flag,
  json,
  jsonFinder,
  jsonObject,
  number,
  text,
  type JsonShape,
} from '../../db/json-object.js';
import { searchText } from '../../http/pagination.js';
import { normalizeVatId } from '../../shared/vat-id.js';

export type PartnerRow = Selectable<PartnersTable>;
const records = recordQueries('partners');
const TAGS: TagTable = { table: 'partner_tags', owner: 'partner_id' };

/** Partner queries; every one is scoped by account (STYLE rule 3). */

export async function insertPartner(trx: Executor, row: PartnerRow, tags: string[]): Promise<void> {
  // Deferred: on PostgreSQL the partner, its tags and its audit event go out as one statement.
  await deferInsert(trx, trx.insertInto('partners').values(row));
  await insertTags(trx, TAGS, row.account_id, row.id, tags);
}

export const findPartner = records.find;

export const partnerVersion = records.version;

export interface PartnerFilter {
  limit: number;
  afterId?: string;
  type?: string;
  tag?: string;
  q?: string;
}

/**
 * `presentPartner` as the database builds it, for lists (src/db/json-object.ts): the same
 * fields from the same columns, with the same defaults. `partners.test.ts` holds the two
 * to the same answer on both databases.
 */
const PARTNER_JSON: JsonShape = {
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

/** A partner's version and its answer as the database writes it (`PARTNER_JSON`). */
export const findPartnerJson = jsonFinder('partners', PARTNER_JSON);

/** The account's partners matching `f`, newest first, `limit + 1` of them (is there a next page?). */
function filteredPartners(db: Executor, accountId: string, f: PartnerFilter) {
  let query = db.selectFrom('partners').where('partners.account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('partners.id', '<', f.afterId);
  if (f.type !== undefined) query = query.where('partners.type', '=', f.type);
  if (f.q !== undefined) query = query.where(containsText('partners.search_name', searchText(f.q)));
  if (f.tag !== undefined) {
    const tag = f.tag;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('partner_tags as t')
          .select('t.partner_id')
          .whereRef('t.partner_id', '=', 'partners.id')
          .where('t.account_id', '=', accountId)
          .where('t.tag', '=', tag),
      ),
    );
  }
  return query.orderBy('partners.id', 'desc').limit(f.limit + 1);
}

/**
 * A page of partners as their JSON answers, built by the database (`PARTNER_JSON`), newest
 * first; `limit + 1` rows so the caller can tell whether a next page exists.
 */
export function listPartnersJson(
  db: Executor,
  accountId: string,
  f: PartnerFilter,
): Promise<{ id: string; json: string }[]> {
  return filteredPartners(db, accountId, f)
    .select(['partners.id', jsonObject(db, 'partners', PARTNER_JSON).as('json')])
    .execute();
}

/** The compare-and-set update answering the partner before and after (one statement on PostgreSQL). */
export const updatePartnerWithBefore = records.updateWithBefore;

/** Deletes when the version matches (any version when `version` is undefined). */
export const deletePartner = records.remove;

export const replaceTags = (trx: Executor, accountId: string, partnerId: string, tags: string[]) =>
  replaceTagsOf(trx, TAGS, accountId, partnerId, tags);

/**
 * The partner an incoming e-invoice's counterparty is, by the strongest evidence first: the
 * VAT id, then the IBAN the account booked to a partner in a bank import (the newest), then
 * the exact (normalised) name. Undefined when nothing matches.
 */
export async function matchPartner(
  db: Executor,
  accountId: string,
  by: { vatId?: string; iban?: string; name?: string },
): Promise<{ id: string; name: string } | undefined> {
  if (by.vatId) {
    const byVat = await db
      .selectFrom('partners')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('vat_id', '=', normalizeVatId(by.vatId))
      .orderBy('id')
      .executeTakeFirst();
    if (byVat) return byVat;
  }
  if (by.iban) {
    const byIban = await db
      .selectFrom('imported_transactions as t')
      .innerJoin('partners as p', (join) =>
        join.onRef('p.id', '=', 't.partner_id').onRef('p.account_id', '=', 't.account_id'),
      )
      .select(['p.id', 'p.name'])
      .where('t.account_id', '=', accountId)
      .where('t.counterparty_iban', '=', by.iban)
      .orderBy('t.created_at', 'desc')
      .executeTakeFirst();
    if (byIban) return byIban;
  }
  if (by.name) {
    const byName = await db
      .selectFrom('partners')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('search_name', '=', searchText(by.name))
      .orderBy('id')
      .executeTakeFirst();
    if (byName) return byName;
  }
  return undefined;
}
