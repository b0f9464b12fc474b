import type { Transaction } from 'kysely';
import type { Executor } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import type { EventContext } from '../documents/index.js';
import { findPayment, updatePaymentRecord } from '../payments/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { creditTransferPaymentInfoId, directDebitPaymentInfoId } from '../../shared/sepa/index.js';
import { presentMandate } from './mandates.service.js';
import * as repo from './sepa.repository.js';

/**
 * The bank's side of a run (docs/sepa-domain.md, "Round trip"): what a statement line finds by
 * its EndToEndId, and what a returned collection or transfer (an R-transaction) undoes. Bank
 * statement imports call these inside their finalize transaction; the sepa module alone
 * writes its tables, the payments module its payments.
 */

/** A run item as a statement line sees it. */
export interface SepaRunMatch {
  itemId: string;
  runId: string;
  kind: 'COLLECTION' | 'TRANSFER';
  /** The run's pain message id (MsgId, also the PmtInfId prefix). */
  messageId: string;
  documentId: string;
  documentNumber: string | null;
  /** The PENDING payment the run recorded (MARKED once a statement booked it). */
  paymentId: string | null;
  amountMinor: number;
  endToEndId: string;
  /** The date a statement returned the item, or null. */
  returnedOn: string | null;
  /** The `PmtInfId` of the item's batch in the run's file. */
  paymentInfoId: string;
}

/** A run item as a statement line sees it (`SepaRunMatch`). */
function runMatch(r: repo.ItemWithRun): SepaRunMatch {
  const kind = r.kind as SepaRunMatch['kind'];
  return {
    itemId: r.id,
    runId: r.run_id,
    kind,
    messageId: r.message_id,
    documentId: r.document_id,
    documentNumber: r.document_number,
    paymentId: r.payment_id,
    amountMinor: Number(r.amount_minor),
    endToEndId: r.end_to_end_id,
    returnedOn: r.returned_on,
    paymentInfoId:
      kind === 'COLLECTION'
        ? directDebitPaymentInfoId(r.message_id, r.sequence_type ?? 'RCUR', r.execution_date)
        : creditTransferPaymentInfoId(r.message_id, r.execution_date),
  };
}

/** The run items of the account with these EndToEndIds, by EndToEndId. */
export async function findRunItemsByEndToEndId(
  db: Executor,
  accountId: string,
  endToEndIds: string[],
): Promise<Map<string, SepaRunMatch>> {
  const rows = await repo.itemsByEndToEndId(db, accountId, endToEndIds);
  return new Map(rows.map((r) => [r.end_to_end_id, runMatch(r)]));
}

/**
 * A run, or one `PmtInf` block of its file, as a batch booking sees it (docs/sepa-domain.md,
 * "Batch booking"): a bank that honours `BtchBookg` books the block (or the whole file) as one
 * statement line with the total, naming the `PmtInfId` (or the `MsgId`).
 */
export interface SepaBatchMatch {
  runId: string;
  kind: SepaRunMatch['kind'];
  messageId: string;
  /** The block's `PmtInfId`; null when the reference names the whole run (its `MsgId`). */
  paymentInfoId: string | null;
  /** The block's (or run's) items, returned ones included. */
  items: SepaRunMatch[];
}

/** `sep-01jd…` (a MsgId) or `sep-01jd…-FRST-20260714` / `sep-01jd…-20260714` (a PmtInfId). */
const RUN_REFERENCE = /^(SEP-[0-9A-Z]{8,26})(?:-(?:FRST|RCUR|FNAL|OOFF))?(?:-\d{8})?$/i;

/**
 * The runs or run blocks these statement references name, by reference as given: a `MsgId`
 * names its run, a `PmtInfId` the run's block with that id (compared without regard to case:
 * some banks write statements in capitals). References that are no run's are left out.
 */
export async function findSepaBatches(
  db: Executor,
  accountId: string,
  references: string[],
): Promise<Map<string, SepaBatchMatch>> {
  const wanted = new Map<string, string>();
  for (const reference of references) {
    const compact = reference.replace(/\s+/g, '');
    const match = RUN_REFERENCE.exec(compact);
    if (match) wanted.set(reference, compact.toLowerCase());
  }
  const out = new Map<string, SepaBatchMatch>();
  if (wanted.size === 0) return out;
  const prefixes = [...wanted.values()].map((ref) => RUN_REFERENCE.exec(ref)![1]!);
  const runs = await repo.runsByMessageIdPrefix(db, accountId, prefixes);
  if (runs.length === 0) return out;
  const items = await repo.runItems(
    db,
    accountId,
    runs.map((r) => r.id),
  );
  const byRun = new Map(runs.map((r) => [r.id, { run: r, items: [] as SepaRunMatch[] }]));
  for (const item of items) {
    const entry = byRun.get(item.run_id);
    entry?.items.push(
      runMatch({ ...item, kind: entry.run.kind, message_id: entry.run.message_id }),
    );
  }
  for (const [reference, ref] of wanted)
    for (const { run, items: runItems } of byRun.values()) {
      const base = {
        runId: run.id,
        kind: run.kind as SepaRunMatch['kind'],
        messageId: run.message_id,
      };
      if (run.message_id.toLowerCase() === ref) {
        out.set(reference, { ...base, paymentInfoId: null, items: runItems });
        break;
      }
      const block = runItems.filter((i) => i.paymentInfoId.toLowerCase() === ref);
      if (block.length > 0) {
        out.set(reference, { ...base, paymentInfoId: block[0]!.paymentInfoId, items: block });
        break;
      }
    }
  return out;
}

/**
 * Return reasons after which the mandate cannot be used again (EPC guidance on reason codes
 * for SDD R-transactions): AC04 account closed, MD01 no valid mandate, MD07 debtor deceased.
 */
export const MANDATE_ENDING_REASONS = new Set(['AC04', 'MD01', 'MD07']);

/**
 * The sequence state a mandate goes back to when a collection on it is returned: the
 * collection did not happen. While no collection on the mandate stands any more (every one was
 * returned), a RECURRING mandate is back at FIRST, so the next collection is FRST again (always
 * accepted: SDD Core rulebook 9.0 made FRST optional, never wrong); a returned FNAL or OOFF
 * opens the COMPLETED mandate again for that collection.
 */
const BACK: Record<string, { from: string; to: string }> = {
  FNAL: { from: 'COMPLETED', to: 'FINAL' },
  OOFF: { from: 'COMPLETED', to: 'ONE_OFF' },
};

export interface ReturnInput {
  endToEndId: string;
  /** ISO reason code (MD06, AC04 …), null when the statement names none. */
  reason: string | null;
  /** Booking date of the return line. */
  returnedOn: string;
  importId: string;
  /** The statement line's text (booking text, purpose), kept when the reason is no ISO code. */
  text?: string | null;
}

/** An ISO 20022 reason code (`AC04`, `FOCR`); a bank's own code (`999`) is none. */
const ISO_REASON = /^(?:[A-Z]{2}\d{2}|[A-Z]{4})$/;

/** The payment's failure reason: the date, and the ISO reason or the bank's code and text. */
function failureReasonOf(input: ReturnInput): string {
  const { reason } = input;
  if (reason === null) return `Returned by the bank on ${input.returnedOn}.`;
  if (ISO_REASON.test(reason))
    return `Returned by the bank on ${input.returnedOn} (reason ${reason}).`;
  const text = input.text ? `: ${input.text.slice(0, 200)}` : '';
  return `Returned by the bank on ${input.returnedOn} (bank return code ${reason}, no SEPA reason known${text}).`;
}

/**
 * A returned collection or transfer, in the caller's transaction: its payment becomes RETURNED
 * with the reason (never deleted; its invoice is judged again, so a paid invoice is open once
 * more and dunning sees it), the item is marked returned (so the invoice may be collected
 * again), a collection's mandate moves back as `BACK` says or is revoked for a
 * mandate-ending reason, and the audit event and `collection.returned` / `transfer.returned`
 * are written. Answers the payment's id; undefined when the item is unknown or returned already.
 */
export async function returnSepaPayment(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  input: ReturnInput,
): Promise<{ paymentId: string | null } | undefined> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const [item] = await repo.itemsByEndToEndId(trx, actor.accountId, [input.endToEndId]);
  if (!item) return undefined;
  const marked = await repo.markItemReturned(trx, actor.accountId, item.id, {
    returnedOn: input.returnedOn,
    reason: input.reason,
  });
  if (!marked) return undefined;
  const reasonText = failureReasonOf(input);
  const payment = item.payment_id
    ? await findPayment(trx, actor.accountId, item.payment_id)
    : undefined;
  if (payment && payment.status !== 'RETURNED')
    await updatePaymentRecord(
      ctx,
      trx,
      actor,
      payment,
      { status: 'RETURNED', failure_reason: reasonText },
      now,
      { sepaRunId: item.run_id, endToEndId: item.end_to_end_id, returnReason: input.reason },
    );
  const mandate =
    item.kind === 'COLLECTION' ? await moveMandateBack(ctx, trx, actor, item, input, at) : null;
  const kind = item.kind === 'COLLECTION' ? 'collection' : 'transfer';
  const data = {
    runId: item.run_id,
    messageId: item.message_id,
    invoiceId: item.document_id,
    invoiceNumber: item.document_number,
    endToEndId: item.end_to_end_id,
    amount: Number(item.amount_minor) / 100,
    paymentId: item.payment_id,
    returnReason: input.reason,
    returnedOn: input.returnedOn,
    importId: input.importId,
    mandate,
  };
  await appendAudit(
    trx,
    actor,
    {
      action: `sepa_${kind}.returned`,
      resourceType: `sepa_${kind}`,
      resourceId: item.run_id,
      changes: data,
    },
    now,
  );
  await emitEvent(ctx, trx, actor.accountId, `${kind}.returned`, data);
  return { paymentId: item.payment_id };
}

/** The returned collection's mandate: revoked, moved back, or left; what happened to it. */
async function moveMandateBack(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  item: repo.ItemWithRun,
  input: ReturnInput,
  at: string,
): Promise<{ id: string; sequenceState: string; revoked: boolean } | null> {
  if (!item.mandate_id) return null;
  // The debtor's bank never took the collection: a change it carried is to be carried again.
  await repo.reopenAmendments(trx, actor.accountId, item.end_to_end_id);
  const mandate = await repo.findMandate(trx, actor.accountId, item.mandate_id);
  if (!mandate || mandate.revoked_at !== null)
    return mandate
      ? { id: mandate.id, sequenceState: mandate.sequence_state, revoked: true }
      : null;
  if (input.reason !== null && MANDATE_ENDING_REASONS.has(input.reason)) {
    const after = await repo.updateMandate(trx, actor.accountId, mandate.id, mandate.version, {
      revoked_at: at,
      updated_at: at,
    });
    if (after) await emitEvent(ctx, trx, actor.accountId, 'mandate.revoked', presentMandate(after));
    return { id: mandate.id, sequenceState: mandate.sequence_state, revoked: after !== undefined };
  }
  const back =
    (item.sequence_type ? BACK[item.sequence_type] : undefined) ??
    ({ from: 'RECURRING', to: 'FIRST' } as const);
  // Only while no other collection stands on the mandate: then nothing moved it since.
  if (
    mandate.sequence_state === back.from &&
    (await repo.standingItemsOfMandate(trx, actor.accountId, mandate.id, item.id)) === 0
  ) {
    const after = await repo.updateMandate(trx, actor.accountId, mandate.id, mandate.version, {
      sequence_state: back.to,
      updated_at: at,
    });
    if (after) return { id: mandate.id, sequenceState: after.sequence_state, revoked: false };
  }
  return { id: mandate.id, sequenceState: mandate.sequence_state, revoked: false };
}
