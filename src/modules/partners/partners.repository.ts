import { isDeepStrictEqual } from 'node:util';
import { CompiledQuery, type Selectable, type Transaction } from 'kysely';
import {
  recordQueries,
  deferInsertRows,
  insertTags,
  replaceTags as replaceTagsOf,
  type AuditedWrite,
  type TagTable,
  type Executor,
} from '../../db/records.js';
import type { DB, PartnersTable } from '../../db/schema.js';
import { containsText, isPostgres, startsWithText } from '../../db/dialect.js';
import { answerWrites } from '../../db/json-object.js';
// The partner as presented: the shape of its stored answer, as the latest migration wrote it.
import { PARTNER_ANSWER } from '../../db/migrations/0024_partner_numbers.js';
import { searchText } from '../../http/pagination.js';
import { normalizeVatId } from '../../shared/vat-id.js';

/** A partner's columns; its stored answer (`answer_json`) is the database's to write and read. */
export type PartnerRow = Omit<Selectable<PartnersTable>, 'answer_json'>;

/**
 * The columns the record queries read back (every one but the stored answer, which only the
 * reads of answers need): on PostgreSQL a PUT answered it twice, as the row and in the row
 * before, 1,765 → 1,697 req/s. The type check below fails when a column is added and not listed.
 */
const COLUMNS = [
  'id',
  'account_id',
  'name',
  'search_name',
  'type',
  'description',
  'website',
  'logo_file_id',
  'addresses',
  'tags',
  'vat_id',
  'buyer_reference',
  'electronic_address',
  'einvoice_format',
  'language',
  'dunning_blocked',
  'consumer',
  'partner_number',
  'version',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof PartnerRow)[];
const listed: Exclude<keyof PartnerRow, (typeof COLUMNS)[number]> extends never ? true : false =
  true;
void listed;

const records = recordQueries('partners', COLUMNS);
const TAGS: TagTable = { table: 'partner_tags', owner: 'partner_id' };
/** The partner's stored answer and its writes in one round trip (src/db/json-object.ts). */
const answers = answerWrites<'partners', PartnerRow>({
  table: 'partners',
  shape: PARTNER_ANSWER,
  read: COLUMNS,
  tags: TAGS,
});

/** Partner queries; every one is scoped by account (STYLE rule 3). */

/**
 * PostgreSQL: the partner, its tags and its audit event as one deferred statement, where the
 * guard holds (`insertAudited`); answers a function telling whether it wrote.
 */
export const insertPartnerAudited = (
  trx: Transaction<DB>,
  row: PartnerRow,
  tags: readonly string[],
  write: AuditedWrite & { changes: string },
) => answers.insert(trx, row, tags, write);

export async function insertPartner(trx: Executor, row: PartnerRow, tags: string[]): Promise<void> {
  // Deferred: on PostgreSQL the partner, its tags and its audit event go out as one statement.
  await deferInsertRows(trx, 'partners', [row]);
  await insertTags(trx, TAGS, row.account_id, row.id, tags);
}

export const findPartner = records.find;

/** `findPartner` started now, answered later (`deferFirst`). */
export const findPartnerLater = records.findLater;

export const partnerVersion = records.version;

export interface PartnerFilter {
  limit: number;
  afterId?: string;
  type?: string;
  tag?: string;
  q?: string;
  partnerNumber?: string;
}

/** A partner's version and its answer as the database keeps it (migration 0023). */
export const findPartnerJson = answers.find;

/** The account's partners matching `f` as their stored answers, newest first, `limit + 1` of them. */
function partnerPage(db: Executor, accountId: string, f: PartnerFilter) {
  let query = db.selectFrom('partners').where('partners.account_id', '=', accountId);
  if (f.afterId !== undefined) query = query.where('partners.id', '<', f.afterId);
  if (f.type !== undefined) query = query.where('partners.type', '=', f.type);
  if (f.q !== undefined) {
    const q = f.q;
    // The name contains it, or the number starts with it (a customer number typed in part).
    query = query.where((eb) =>
      eb.or([
        containsText('partners.search_name', searchText(q)),
        startsWithText('partners.partner_number', q.trim()),
      ]),
    );
  }
  if (f.partnerNumber !== undefined)
    query = query.where('partners.partner_number', '=', f.partnerNumber);
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
  return query
    .select(['partners.id', 'partners.answer_json as json'])
    .orderBy('partners.id', 'desc')
    .limit(f.limit + 1);
}

/** SQL of the pages without a search or tag, by dialect, cursor, type and size (see below). */
const plainPages = new Map<string, { text: string; limitParameter: boolean }>();

/**
 * A page of partners as their stored JSON answers (migration 0023), newest first; `limit + 1`
 * rows so the caller can tell whether a next page exists. A page without a search or a tag
 * filter (most of them) runs SQL built once per dialect, cursor, type and page size: building
 * it through the query builder took 9 % of a list's CPU. Its first build checks that the
 * parameters it will be given are in the order the builder put them (SQLite's compiler writes
 * the LIMIT into the text, PostgreSQL's binds it).
 */
export async function listPartnersJson(
  db: Executor,
  accountId: string,
  f: PartnerFilter,
): Promise<{ id: string; json: string }[]> {
  if (f.q !== undefined || f.tag !== undefined || f.partnerNumber !== undefined)
    return partnerPage(db, accountId, f).execute();
  const parameters: unknown[] = [
    accountId,
    ...(f.afterId === undefined ? [] : [f.afterId]),
    ...(f.type === undefined ? [] : [f.type]),
  ];
  const key = `${isPostgres(db)}|${f.afterId !== undefined}|${f.type !== undefined}|${f.limit}`;
  let page = plainPages.get(key);
  if (page === undefined) {
    const compiled = partnerPage(db, accountId, f).compile();
    const limitParameter = compiled.parameters.length > parameters.length;
    if (
      !isDeepStrictEqual(compiled.parameters, [
        ...parameters,
        ...(limitParameter ? [f.limit + 1] : []),
      ])
    )
      throw new Error("listPartnersJson: parameters out of the builder's order");
    page = { text: compiled.sql, limitParameter };
    plainPages.set(key, page);
  }
  if (page.limitParameter) parameters.push(f.limit + 1);
  const { rows } = await db.executeQuery<{ id: string; json: string }>(
    CompiledQuery.raw(page.text, parameters),
  );
  return rows;
}

/** The compare-and-set update answering the partner before and after (one statement on PostgreSQL). */
export const updatePartnerWithBefore = records.updateWithBefore;

/**
 * PostgreSQL: the compare-and-set update with its audit event, diffed from the stored answers,
 * in one deferred statement (`updateAudited`); answers a function giving the row after.
 */
export const updatePartnerAudited = (
  trx: Transaction<DB>,
  accountId: string,
  id: string,
  version: number,
  values: Partial<PartnerRow>,
  write: AuditedWrite,
) => answers.update(trx, { accountId, id, version }, values, write);

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
