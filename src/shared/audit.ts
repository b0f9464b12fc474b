import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../db/schema.js';
import { newId } from './ids.js';
import { sha256 } from './secrets.js';

/** Who did it: the user and credential behind a request, or the system itself. */
export interface Actor {
  accountId: string;
  userId: string | null;
  tokenId: string | null;
  type: 'user' | 'system';
  requestId: string | null;
  ip: string | null;
}

export interface AuditInput {
  action: string;
  resourceType: string;
  resourceId: string;
  /** Created: the new values; updated: `{field: {from, to}}`; deleted: the last values. */
  changes: Record<string, unknown>;
}

const GENESIS = '0'.repeat(64);
// `code` alone is a one-time code; `postalCode`, `unitCode` or `exemptionCode` are not secret.
const SECRET_FIELDS = /pass(word)?|secret|token|hash|^code$|card|iban|cvc/i;

/** Drops fields that must never reach the audit trail (decisions §15). */
export function redact(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).filter(([k]) => !SECRET_FIELDS.test(k)));
}

/** `{field: {from, to}}` for every listed field whose value changed. */
export function diff<T extends object>(
  before: T,
  after: T,
): Record<string, { from: unknown; to: unknown }> {
  const out: Record<string, { from: unknown; to: unknown }> = {};
  for (const key of Object.keys(after) as (keyof T & string)[]) {
    if (SECRET_FIELDS.test(key) || ['version', 'updatedAt', 'createdAt'].includes(key)) continue;
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
      out[key] = { from: before[key] ?? null, to: after[key] ?? null };
  }
  return out;
}

interface HashedFields {
  id: string;
  account_id: string;
  seq: number;
  occurred_at: string;
  actor_type: string;
  actor_id: string | null;
  token_id: string | null;
  action: string;
  resource_type: string;
  resource_id: string;
  changes: string;
  request_id: string | null;
  ip: string | null;
}

/** The chain link: SHA-256 over the previous hash and the event's fields in a fixed order. */
export function eventHash(prevHash: string, e: HashedFields): string {
  return sha256(
    JSON.stringify([
      prevHash,
      e.id,
      e.account_id,
      e.seq,
      e.occurred_at,
      e.actor_type,
      e.actor_id,
      e.token_id,
      e.action,
      e.resource_type,
      e.resource_id,
      e.changes,
      e.request_id,
      e.ip,
    ]),
  );
}

/**
 * Appends an event to the account's hash chain inside the caller's transaction, so the write
 * and its event commit or roll back together. The head row is bumped with an UPDATE first,
 * which locks it on PostgreSQL: concurrent writers of one account queue here instead of
 * forking the chain (SQLite serialises writers anyway).
 */
export async function appendAudit(
  trx: Transaction<DB>,
  actor: Actor,
  input: AuditInput,
  at: Date,
): Promise<void> {
  await trx
    .insertInto('audit_heads')
    .values({ account_id: actor.accountId, seq: 0, hash: GENESIS })
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
  const head = await trx
    .updateTable('audit_heads')
    .set((eb) => ({ seq: eb('seq', '+', 1) }))
    .where('account_id', '=', actor.accountId)
    .returning(['seq', 'hash'])
    .executeTakeFirstOrThrow();
  const event: HashedFields = {
    id: newId('auditEvent'),
    account_id: actor.accountId,
    seq: head.seq,
    occurred_at: at.toISOString(),
    actor_type: actor.type,
    actor_id: actor.userId,
    token_id: actor.tokenId,
    action: input.action,
    resource_type: input.resourceType,
    resource_id: input.resourceId,
    changes: JSON.stringify(redact(input.changes)),
    request_id: actor.requestId,
    ip: actor.ip,
  };
  const hash = eventHash(head.hash, event);
  await trx
    .insertInto('audit_events')
    .values({ ...event, prev_hash: head.hash, hash })
    .execute();
  await trx
    .updateTable('audit_heads')
    .set({ hash })
    .where('account_id', '=', actor.accountId)
    .execute();
}

export interface ChainReport {
  accounts: number;
  events: number;
  broken: { accountId: string; seq: number; eventId: string; reason: string }[];
}

/**
 * Recomputes every account's chain: each event's hash, its link to the previous one, gapless
 * sequence numbers, and the head. Any edit, insertion or deletion shows up as a break.
 */
export async function verifyAuditChain(db: Kysely<DB>): Promise<ChainReport> {
  const report: ChainReport = { accounts: 0, events: 0, broken: [] };
  const heads = await db.selectFrom('audit_heads').selectAll().orderBy('account_id').execute();
  for (const head of heads) {
    report.accounts += 1;
    let prev = GENESIS;
    let expectedSeq = 1;
    let lastSeq = 0;
    for (;;) {
      const batch = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('account_id', '=', head.account_id)
        .where('seq', '>', lastSeq)
        .orderBy('seq')
        .limit(1000)
        .execute();
      if (batch.length === 0) break;
      for (const e of batch) {
        report.events += 1;
        const fail = (reason: string) =>
          report.broken.push({ accountId: e.account_id, seq: e.seq, eventId: e.id, reason });
        if (e.seq !== expectedSeq) fail(`sequence gap: expected ${expectedSeq}`);
        if (e.prev_hash !== prev) fail('link to the previous event does not match');
        if (eventHash(e.prev_hash, e) !== e.hash) fail('content does not match its hash');
        prev = e.hash;
        expectedSeq = e.seq + 1;
        lastSeq = e.seq;
      }
    }
    if (head.seq !== lastSeq || head.hash !== prev)
      report.broken.push({
        accountId: head.account_id,
        seq: head.seq,
        eventId: '-',
        reason: 'chain head does not match the last event',
      });
  }
  return report;
}
