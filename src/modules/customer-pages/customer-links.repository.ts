import type { Selectable } from 'kysely';
import type { Executor } from '../../db/records.js';
import type {
  CustomerLinkSettingsTable,
  CustomerLinksTable,
} from '../../db/tables/customer-links.js';

export type CustomerLinkRow = Selectable<CustomerLinksTable>;
export type CustomerLinkSettingsRow = Selectable<CustomerLinkSettingsTable>;

/** The one writer of `customer_links` and `customer_link_settings`. */

export async function insertLink(db: Executor, row: CustomerLinkRow): Promise<void> {
  await db.insertInto('customer_links').values(row).execute();
}

/** The links of one document of the account, newest first. */
export function listLinks(
  db: Executor,
  accountId: string,
  documentId: string,
): Promise<CustomerLinkRow[]> {
  return db
    .selectFrom('customer_links')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .orderBy('id', 'desc')
    .limit(500)
    .execute();
}

export function findLink(
  db: Executor,
  accountId: string,
  documentId: string,
  id: string,
): Promise<CustomerLinkRow | undefined> {
  return db
    .selectFrom('customer_links')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/**
 * The link whose token has this hash, whatever its account: the token is the only thing a
 * customer holds, so this is the one lookup not scoped by account (the hash stands for it).
 */
export function findLinkByTokenHash(
  db: Executor,
  tokenHash: string,
): Promise<CustomerLinkRow | undefined> {
  return db
    .selectFrom('customer_links')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Revokes an open link (compare-and-set on `revoked_at`); the revoked row, else undefined. */
export function revokeLink(
  db: Executor,
  accountId: string,
  documentId: string,
  id: string,
  at: string,
): Promise<CustomerLinkRow | undefined> {
  return db
    .updateTable('customer_links')
    .set({ revoked_at: at })
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/**
 * Counts a view: `last_viewed_at` and `view_count` always, `first_viewed_at` only the first
 * time. Answers whether this was the first view (one statement decides it, so two first views
 * at once cannot both be first).
 */
export async function recordView(
  db: Executor,
  accountId: string,
  id: string,
  at: string,
): Promise<boolean> {
  const first = await db
    .updateTable('customer_links')
    .set((eb) => ({
      first_viewed_at: at,
      last_viewed_at: at,
      view_count: eb('view_count', '+', 1),
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('first_viewed_at', 'is', null)
    .executeTakeFirst();
  if (first.numUpdatedRows > 0n) return true;
  await countView(db, accountId, id, at);
  return false;
}

/** Counts a view of a link already viewed: `last_viewed_at` and `view_count`. */
export async function countView(
  db: Executor,
  accountId: string,
  id: string,
  at: string,
): Promise<void> {
  await db
    .updateTable('customer_links')
    .set((eb) => ({ last_viewed_at: at, view_count: eb('view_count', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** The link printed on the document's PDF (the one with a sealed URL), if it has one. */
export function findPrintedLink(
  db: Executor,
  accountId: string,
  documentId: string,
): Promise<CustomerLinkRow | undefined> {
  return db
    .selectFrom('customer_links')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .where('url_sealed', 'is not', null)
    .orderBy('id', 'asc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * The views of a document over all its links: first and last view, their count and how many
 * links it has.
 */
export async function documentViews(
  db: Executor,
  accountId: string,
  documentId: string,
): Promise<{
  firstViewedAt: string | null;
  lastViewedAt: string | null;
  viewCount: number;
  links: number;
}> {
  const row = await db
    .selectFrom('customer_links')
    .select((eb) => [
      eb.fn.min('first_viewed_at').as('first'),
      eb.fn.max('last_viewed_at').as('last'),
      eb.fn.sum<number | string | null>('view_count').as('count'),
      eb.fn.countAll<number | string>().as('links'),
    ])
    .where('account_id', '=', accountId)
    .where('document_id', '=', documentId)
    .executeTakeFirst();
  return {
    firstViewedAt: row?.first ?? null,
    lastViewedAt: row?.last ?? null,
    viewCount: Number(row?.count ?? 0),
    links: Number(row?.links ?? 0),
  };
}

export function findSettings(
  db: Executor,
  accountId: string,
): Promise<CustomerLinkSettingsRow | undefined> {
  return db
    .selectFrom('customer_link_settings')
    .selectAll()
    .where('account_id', '=', accountId)
    .executeTakeFirst();
}

/** The first save of an account's settings; undefined when a concurrent one won. */
export async function insertSettings(
  db: Executor,
  row: CustomerLinkSettingsRow,
): Promise<CustomerLinkSettingsRow | undefined> {
  return db
    .insertInto('customer_link_settings')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/** Saves the settings at `version` (compare-and-set), bumping it. */
export function updateSettings(
  db: Executor,
  accountId: string,
  version: number,
  values: Pick<CustomerLinkSettingsRow, 'enabled' | 'valid_days' | 'updated_at'>,
): Promise<CustomerLinkSettingsRow | undefined> {
  return db
    .updateTable('customer_link_settings')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('account_id', '=', accountId)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}
