import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../db/dialect.js';
import type { DB } from '../../db/schema.js';

/**
 * Queries of the reminder job. The job serves every account, so the two candidate queries
 * below are the deliberate exceptions to "scoped by account" (STYLE rule 3): they only find
 * work, each row carries its `account_id`, and everything read for it afterwards is scoped.
 */

export type DeliveryKind = 'NOTE' | 'CONTRACT_DEADLINE' | 'BUDGET_OVERRUN';

export interface DeliveryKey {
  kind: DeliveryKind;
  subjectId: string;
  dueKey: string;
}

/** Candidates are read in pages of this size, by id, so a large backlog never loads at once. */
export const BATCH = 500;

export interface DueNoteRow {
  id: string;
  account_id: string;
  title: string;
  content: string;
  due_date: string;
}

/** Open REMINDER notes due on or before `today` without a finished or live delivery. */
export async function dueNotes(
  db: Kysely<DB>,
  today: string,
  staleBefore: string,
  afterId: string,
): Promise<DueNoteRow[]> {
  const rows = await db
    .selectFrom('notes')
    .select(['notes.id', 'notes.account_id', 'notes.title', 'notes.content', 'notes.due_date'])
    .where('notes.type', '=', 'REMINDER')
    .where('notes.done', '=', 0)
    .where('notes.due_date', 'is not', null)
    .where('notes.due_date', '<=', today)
    .where('notes.id', '>', afterId)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('reminder_deliveries as d')
            .select('d.subject_id')
            .where('d.kind', '=', 'NOTE')
            .whereRef('d.subject_id', '=', 'notes.id')
            .whereRef('d.due_key', '=', 'notes.due_date')
            .where((d) =>
              d.or([d('d.sent_at', 'is not', null), d('d.claimed_at', '>=', staleBefore)]),
            ),
        ),
      ),
    )
    .orderBy('notes.id')
    .limit(BATCH)
    .execute();
  return rows.map((r) => ({ ...r, due_date: r.due_date! }));
}

export interface ContractCandidateRow {
  id: string;
  account_id: string;
  name: string;
  partner_name: string;
  end_date: string | null;
  advanced: string | null;
  cancellation_deadline: string;
}

/**
 * ACTIVE contracts whose deadline may fall in a reminder window: the stored deadline (as of
 * the contract's last write) is at most `horizon` away and either still ahead or, for a
 * contract that renews automatically, possibly rolled forward since. The caller recomputes
 * the current deadline. Contracts whose stored deadline already has a finished or live
 * delivery are left out.
 */
export async function contractCandidates(
  db: Kysely<DB>,
  today: string,
  horizon: string,
  staleBefore: string,
  afterId: string,
): Promise<ContractCandidateRow[]> {
  const rows = await db
    .selectFrom('contracts')
    .select([
      'contracts.id',
      'contracts.account_id',
      'contracts.name',
      'contracts.partner_name',
      'contracts.end_date',
      'contracts.advanced',
      'contracts.cancellation_deadline',
    ])
    .where('contracts.status', '=', 'ACTIVE')
    .where('contracts.cancellation_deadline', 'is not', null)
    .where('contracts.cancellation_deadline', '<=', horizon)
    .where('contracts.id', '>', afterId)
    .where((eb) =>
      eb.or([
        eb('contracts.cancellation_deadline', '>=', today),
        eb('contracts.next_renewal_date', 'is not', null),
      ]),
    )
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('reminder_deliveries as d')
            .select('d.subject_id')
            .where('d.kind', '=', 'CONTRACT_DEADLINE')
            .whereRef('d.subject_id', '=', 'contracts.id')
            .whereRef('d.due_key', '=', 'contracts.cancellation_deadline')
            .where((d) =>
              d.or([d('d.sent_at', 'is not', null), d('d.claimed_at', '>=', staleBefore)]),
            ),
        ),
      ),
    )
    .orderBy('contracts.id')
    .limit(BATCH)
    .execute();
  return rows.map((r) => ({ ...r, cancellation_deadline: r.cancellation_deadline! }));
}

export interface BudgetOverrunRow {
  id: string;
  account_id: string;
  name: string;
  monthly_limit: number;
  currency: string;
  spent: number;
}

/**
 * Active budget categories whose entries dated in `from..to` (one month) sum to more than
 * their monthly limit, in accounts that have not suppressed budgets, without a finished or
 * live BUDGET_OVERRUN delivery for that month (`dueKey` = `YYYY-MM`).
 */
export async function budgetOverruns(
  db: Kysely<DB>,
  month: { key: string; from: string; to: string },
  staleBefore: string,
  afterId: string,
): Promise<BudgetOverrunRow[]> {
  const rows = await db
    .selectFrom('budget_categories as c')
    .innerJoin('accounts as a', 'a.id', 'c.account_id')
    .innerJoin('budget_entries as e', (join) =>
      join.onRef('e.account_id', '=', 'c.account_id').onRef('e.category_id', '=', 'c.id'),
    )
    .select(['c.id', 'c.account_id', 'c.name', 'c.monthly_limit', 'c.currency'])
    .select((eb) => eb.fn.sum<number | string>('e.amount').as('spent'))
    .where('c.active', '=', 1)
    .where('a.budgets_suppressed', '=', 0)
    .where('c.id', '>', afterId)
    .where('e.entry_date', '>=', month.from)
    .where('e.entry_date', '<=', month.to)
    .where((eb) =>
      eb.not(
        eb.exists(
          eb
            .selectFrom('reminder_deliveries as d')
            .select('d.subject_id')
            .where('d.kind', '=', 'BUDGET_OVERRUN')
            .whereRef('d.subject_id', '=', 'c.id')
            .where('d.due_key', '=', month.key)
            .where((d) =>
              d.or([d('d.sent_at', 'is not', null), d('d.claimed_at', '>=', staleBefore)]),
            ),
        ),
      ),
    )
    .groupBy(['c.id', 'c.account_id', 'c.name', 'c.monthly_limit', 'c.currency'])
    .having((eb) => eb(eb.fn.sum('e.amount'), '>', eb.ref('c.monthly_limit')))
    .orderBy('c.id')
    .limit(BATCH)
    .execute();
  // PostgreSQL answers sum(bigint) as numeric, which arrives as a string.
  return rows.map((r) => ({ ...r, spent: Number(r.spent) }));
}

function byKey(key: DeliveryKey) {
  return {
    kind: key.kind,
    subject_id: key.subjectId,
    due_key: key.dueKey,
  };
}

/**
 * Claims a delivery: the INSERT is the claim, and the primary key lets exactly one scheduler
 * win. A claim that was never marked sent and is older than `staleBefore` belongs to a
 * scheduler that died between claim and send; it is taken over by a compare-and-set on its
 * `claimed_at`, so of several schedulers noticing it at once only one wins again.
 */
export async function claimDelivery(
  db: Kysely<DB>,
  key: DeliveryKey,
  accountId: string,
  recipient: string,
  claimedAt: string,
  staleBefore: string,
): Promise<boolean> {
  try {
    await db
      .insertInto('reminder_deliveries')
      .values({
        ...byKey(key),
        account_id: accountId,
        recipient,
        claimed_at: claimedAt,
        sent_at: null,
      })
      .execute();
    return true;
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const existing = await db
    .selectFrom('reminder_deliveries')
    .select(['claimed_at', 'sent_at'])
    .where('kind', '=', key.kind)
    .where('subject_id', '=', key.subjectId)
    .where('due_key', '=', key.dueKey)
    .executeTakeFirst();
  if (!existing || existing.sent_at !== null || existing.claimed_at >= staleBefore) return false;
  const taken = await db
    .updateTable('reminder_deliveries')
    .set({ claimed_at: claimedAt, recipient })
    .where('kind', '=', key.kind)
    .where('subject_id', '=', key.subjectId)
    .where('due_key', '=', key.dueKey)
    .where('claimed_at', '=', existing.claimed_at)
    .where('sent_at', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** Records the mail as sent, for the claim this scheduler holds. */
export async function markSent(
  db: Kysely<DB>,
  key: DeliveryKey,
  claimedAt: string,
  sentAt: string,
): Promise<void> {
  await db
    .updateTable('reminder_deliveries')
    .set({ sent_at: sentAt })
    .where('kind', '=', key.kind)
    .where('subject_id', '=', key.subjectId)
    .where('due_key', '=', key.dueKey)
    .where('claimed_at', '=', claimedAt)
    .execute();
}

/** Gives a claim back after a failed send, so the next run tries again at once. */
export async function releaseClaim(
  db: Kysely<DB>,
  key: DeliveryKey,
  claimedAt: string,
): Promise<void> {
  await db
    .deleteFrom('reminder_deliveries')
    .where('kind', '=', key.kind)
    .where('subject_id', '=', key.subjectId)
    .where('due_key', '=', key.dueKey)
    .where('claimed_at', '=', claimedAt)
    .where('sent_at', 'is', null)
    .execute();
}
