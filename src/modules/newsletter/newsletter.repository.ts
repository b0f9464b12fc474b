import type { Kysely, Selectable, Transaction } from 'kysely';
import type { DB, NewsletterSubscriptionsTable } from '../../db/schema.js';

export type SubscriptionRow = Selectable<NewsletterSubscriptionsTable>;
export type SubscriptionStatus = 'PENDING' | 'SUBSCRIBED' | 'UNSUBSCRIBED';
type Executor = Kysely<DB> | Transaction<DB>;

/**
 * Newsletter subscription queries. Subscriptions belong to an email address, not to an
 * account (people sign up before they have one), so these are the one set of finders without
 * an account scope; the caller's own address comes from `findUserEmail`, which is scoped.
 */

export async function findByEmail(
  db: Executor,
  email: string,
): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('newsletter_subscriptions')
    .selectAll()
    .where('email', '=', email)
    .executeTakeFirst();
}

export async function findById(db: Executor, id: string): Promise<SubscriptionRow | undefined> {
  return db
    .selectFrom('newsletter_subscriptions')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

/** Inserts unless the email already has a row (a concurrent signup); answers whether it did. */
export async function insertIfAbsent(db: Executor, row: SubscriptionRow): Promise<boolean> {
  const inserted = await db
    .insertInto('newsletter_subscriptions')
    .values(row)
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Compare-and-set on the version read (STYLE rules 7–8): undefined when another write came
 * first, so the caller re-reads instead of overwriting what it did not see.
 */
export async function updateSubscription(
  db: Executor,
  id: string,
  version: number,
  values: Partial<SubscriptionRow>,
): Promise<SubscriptionRow | undefined> {
  return db
    .updateTable('newsletter_subscriptions')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** A state transition that applies only from one of `from` (compare-and-set on status). */
export async function transition(
  db: Executor,
  id: string,
  from: SubscriptionStatus[],
  values: Partial<SubscriptionRow>,
): Promise<SubscriptionRow | undefined> {
  return db
    .updateTable('newsletter_subscriptions')
    .set((eb) => ({ ...values, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();
}

/** One page of SUBSCRIBED rows after `afterId`, in id order (keyset, for mailing them all). */
export async function subscribedPage(
  db: Executor,
  afterId: string | undefined,
  limit: number,
): Promise<SubscriptionRow[]> {
  let query = db
    .selectFrom('newsletter_subscriptions')
    .selectAll()
    .where('status', '=', 'SUBSCRIBED');
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  return query.orderBy('id', 'asc').limit(limit).execute();
}

/** The email of a user of the account. */
export async function findUserEmail(
  db: Executor,
  accountId: string,
  userId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('email')
    .where('account_id', '=', accountId)
    .where('id', '=', userId)
    .executeTakeFirst();
  return row?.email;
}
