import type { Kysely, Transaction } from 'kysely';
import { isPostgres } from '../db/dialect.js';
import type { AuditedWrite, SqlCondition } from '../db/records.js';
import type { DB } from '../db/schema.js';
import { auditChange, auditedValues, type Actor } from './audit.js';
import type { IfMatch } from './concurrency.js';

/**
 * Writes in one round trip (PostgreSQL): a record's create or plain update as one statement
 * holding the row, its tags and its audit event, on the condition that the account has no
 * webhook endpoint for the event (instead of reading them). Any service whose answer is its
 * own row calls these with its repository's audited writes (`answerWrites` of
 * src/db/json-object.ts: the table, its answer's shape, its tags) and the webhook module's
 * `withoutEndpoints`, or with `withoutWebhookEvent` where the write has no webhook event (a
 * draft document's create); where they answer that nothing was written, the service
 * goes the reading way. docs/scaling.md, "One round trip per update" and "… per create".
 */

/** The event of a one-round write: its audit action, which is also its webhook event. */
export interface OneRoundEvent<A extends string> {
  action: A;
  resourceType: string;
  resourceId: string;
  /**
   * The condition standing in for reading the account's webhook endpoints for `action`
   * (`withoutEndpoints` of the webhook-endpoints module, or one that always holds for a write
   * without a webhook event); undefined when the account had such an endpoint lately (then the
   * reading way writes the deliveries).
   */
  guard: (accountId: string, action: A) => SqlCondition | undefined;
}

/** The condition of a write that no webhook event follows: always true. */
const ALWAYS: SqlCondition = { key: 'always', sql: () => 'true', parameters: [] };

/** The guard of a one-round write without a webhook event (a draft document's create). */
export const withoutWebhookEvent = (): SqlCondition => ALWAYS;

/**
 * The frame of a one-round write: the event's guard, the audit event, and the write's one
 * deferred statement in a transaction of its own. Undefined where it does not apply (SQLite, an
 * account with endpoints for the event lately); else what the statement answered once committed.
 */
export async function inOneRound<A extends string, T>(
  db: Kysely<DB>,
  actor: Actor,
  event: OneRoundEvent<A>,
  now: Date,
  write: (trx: Transaction<DB>, parts: AuditedWrite) => Promise<() => Promise<T>>,
): Promise<T | undefined> {
  if (!isPostgres(db)) return undefined;
  const guard = event.guard(actor.accountId, event.action);
  if (!guard) return undefined;
  const { action, resourceType, resourceId } = event;
  const written = await db.transaction().execute(async (trx) => {
    const audit = auditChange(trx, actor, { action, resourceType, resourceId }, now);
    return audit && write(trx, { guard, audit });
  });
  return written && (await written());
}

/**
 * A create in one round: `insert` (the repository's audited insert) writes the row, its tags and
 * its event holding `record`, the new record as presented. False when it wrote nothing.
 */
export async function createInOneRound<A extends string>(
  db: Kysely<DB>,
  actor: Actor,
  event: OneRoundEvent<A>,
  now: Date,
  record: object,
  insert: (
    trx: Transaction<DB>,
    parts: AuditedWrite & { changes: string },
  ) => Promise<() => Promise<boolean>>,
): Promise<boolean> {
  if (!isPostgres(db)) return false;
  const changes = auditedValues(record as Record<string, unknown>);
  const wrote = await inOneRound(db, actor, event, now, (trx, parts) =>
    insert(trx, { ...parts, changes }),
  );
  return wrote === true;
}

/**
 * A plain update in one round: `update` (the repository's audited update) writes the change and
 * its event, diffed by the database. Undefined when it wrote nothing — on SQLite, when the
 * version or the record did not match (the reading way then answers 404, 409 or 412), or when
 * the account has an endpoint for the event.
 */
export function updateInOneRound<A extends string, R>(
  db: Kysely<DB>,
  actor: Actor,
  event: OneRoundEvent<A>,
  now: Date,
  update: (trx: Transaction<DB>, parts: AuditedWrite) => Promise<() => Promise<R | undefined>>,
): Promise<R | undefined> {
  return inOneRound(db, actor, event, now, update);
}

/**
 * The version a plain update may go in one round with: the body's, when the If-Match header
 * does not contradict it (else undefined, and the reading way answers 412 or 428).
 */
export function plainVersion(version: number | undefined, ifMatch: IfMatch): number | undefined {
  if (version === undefined) return undefined;
  return ifMatch === undefined || ifMatch === '*' || ifMatch === version ? version : undefined;
}
