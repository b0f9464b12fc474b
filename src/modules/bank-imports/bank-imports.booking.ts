import type { Insertable, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { insertBudgetEntries } from '../budgets/index.js';
import {
  findPayment,
  insertImportedPayments,
  markPaymentImported,
  newPaymentRow,
  type PaymentRow,
} from '../payments/index.js';
import type { EventContext } from '../documents/index.js';
import { findSepaBatches, returnSepaPayment } from '../sepa/index.js';
import * as repo from './bank-imports.repository.js';
import type { Suggestion } from './bank-imports.schemas.js';
import { USE_SCORE } from './suggestions.js';

/**
 * The booking half of finalize (decisions §11), run inside its transaction: every ACCEPTED
 * line becomes a MARKED payment or marks the payment it matched (score ≥ 70, still PENDING, or
 * recorded by hand as settled and not yet on a statement: then it is only linked; a SEPA batch
 * booking marks the payments of all its items), categorised debits become budget entries, and
 * every line enters the ledger of imported lines. Suggested records deleted since staging are
 * not used.
 */

type AcceptedLine = Awaited<ReturnType<typeof repo.acceptedLines>>[number];

const best = (suggestions: Suggestion[], type: Suggestion['type']) =>
  suggestions.find((s) => s.type === type && s.score >= USE_SCORE);

export async function bookAcceptedLines(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  imp: repo.ImportRow,
  at: string,
): Promise<{ paymentsCreated: number; paymentsMarked: number; budgetEntries: number }> {
  const lines = await repo.acceptedLines(trx, imp.id);
  const parsed = lines.map((l) => ({
    line: l,
    suggestions: JSON.parse(l.suggestions) as Suggestion[],
  }));
  const exists = await existing(
    trx,
    actor.accountId,
    parsed.flatMap((p) => p.suggestions),
  );

  const bookedAt = new Date(at);
  const payments: PaymentRow[] = [];
  const entries: Insertable<DB['budget_entries']>[] = [];
  const ledger: Insertable<DB['imported_transactions']>[] = [];
  const usedPayments = new Set<string>();
  const markedDocuments: (string | null)[] = [];
  let marked = 0;
  const settle = { trx, actor, importId: imp.id, at, exists, used: usedPayments, markedDocuments };
  for (const { line, suggestions } of parsed) {
    const partner = partnerOf(suggestions, exists);
    let paymentId = await returnedPayment(ctx, trx, actor, imp.id, line, suggestions, exists);
    const batch = paymentId === undefined ? await confirmBatch(settle, line, suggestions) : [];
    marked += batch.length;
    paymentId ??= batch[0];
    const open = paymentId === undefined ? best(suggestions, 'PAYMENT') : undefined;
    if (open && exists.has(open.id) && !usedPayments.has(open.id)) {
      const paid = await markPaymentImported(trx, actor.accountId, open.id, imp.id, at);
      if (paid) {
        markedDocuments.push(paid.documentId);
        paymentId = open.id;
        usedPayments.add(open.id);
        marked++;
      }
    }
    if (paymentId === undefined) {
      const row = importedPayment(
        actor.accountId,
        imp.id,
        line,
        partner,
        suggestions,
        exists,
        bookedAt,
      );
      paymentId = row.id;
      payments.push(row);
    }
    const entry =
      line.amount < 0
        ? budgetEntry(actor.accountId, imp.id, line, suggestions, exists, at)
        : undefined;
    if (entry) entries.push(entry);
    ledger.push({
      account_id: actor.accountId,
      identity: line.identity,
      import_id: imp.id,
      idx: line.idx,
      payment_id: paymentId,
      partner_id: partner?.id ?? null,
      counterparty_iban: line.counterparty_iban?.replace(/\s+/g, '').toUpperCase() ?? null,
      created_at: at,
    });
  }
  await insertImportedPayments(ctx, trx, actor.accountId, payments, markedDocuments);
  await insertBudgetEntries(trx, entries);
  await repo.insertLedger(trx, ledger);
  return {
    paymentsCreated: payments.length,
    paymentsMarked: marked,
    budgetEntries: entries.length,
  };
}

/**
 * A returned SEPA collection or transfer (a `SEPA_RETURN` suggestion): the sepa module marks
 * its payment RETURNED and undoes the run item; the line books nothing anew. Answers the
 * payment's id, or undefined when the line is no such return.
 */
async function returnedPayment(
  ctx: EventContext,
  trx: Transaction<DB>,
  actor: Actor,
  importId: string,
  line: AcceptedLine,
  suggestions: Suggestion[],
  exists: Set<string>,
): Promise<string | undefined> {
  const returned = best(suggestions, 'SEPA_RETURN');
  if (!returned || !exists.has(returned.id) || !line.end_to_end_id) return undefined;
  const done = await returnSepaPayment(ctx, trx, actor, {
    endToEndId: line.end_to_end_id,
    reason: line.return_reason === null || line.return_reason === '' ? null : line.return_reason,
    returnedOn: line.booking_date,
    importId,
    text: [line.booking_text, line.purpose].filter((t) => t !== null && t !== '').join(': '),
  });
  return done ? returned.id : undefined;
}

/**
 * A SEPA batch booking (a `SEPA_BATCH` suggestion) confirms the payments of the run block's
 * items not returned, read again now: all of them (MARKED, their invoices judged with the
 * import's), and only when they still add up to the line's amount and every one still awaits a
 * statement — else none, and the line is booked like any other. Answers the payments marked.
 */
async function confirmBatch(
  settle: {
    trx: Transaction<DB>;
    actor: Actor;
    importId: string;
    at: string;
    exists: Set<string>;
    used: Set<string>;
    markedDocuments: (string | null)[];
  },
  line: AcceptedLine,
  suggestions: Suggestion[],
): Promise<string[]> {
  const { trx, actor, exists, used } = settle;
  const accountId = actor.accountId;
  const suggested = best(suggestions, 'SEPA_BATCH');
  if (!suggested || !exists.has(suggested.id)) return [];
  const batch = (await findSepaBatches(trx, accountId, [suggested.label])).get(suggested.label);
  if (!batch || batch.runId !== suggested.id) return [];
  const standing = batch.items.filter((i) => i.returnedOn === null && i.paymentId !== null);
  const total = standing.reduce((sum, i) => sum + i.amountMinor, 0);
  if (standing.length === 0 || total !== Math.abs(line.amount)) return [];
  const ids = standing.map((i) => i.paymentId!);
  for (const id of ids) {
    const payment = used.has(id) ? undefined : await findPayment(trx, accountId, id);
    const awaits =
      payment?.status === 'PENDING' ||
      (payment?.status === 'MARKED' && payment.source === 'MANUAL' && payment.import_id === null);
    if (!awaits) return [];
  }
  const marked: string[] = [];
  for (const id of ids) {
    const paid = await markPaymentImported(trx, accountId, id, settle.importId, settle.at);
    if (!paid) continue;
    settle.markedDocuments.push(paid.documentId);
    used.add(id);
    marked.push(id);
  }
  return marked;
}

/** The partner a line names, when its suggestion is sure enough and the partner still exists. */
function partnerOf(suggestions: Suggestion[], exists: Set<string>): Suggestion | undefined {
  const partner = best(suggestions, 'PARTNER');
  return partner && exists.has(partner.id) ? partner : undefined;
}

/** A MARKED payment for a line that matched no open payment, linked to what it suggests. */
function importedPayment(
  accountId: string,
  importId: string,
  line: AcceptedLine,
  partner: Suggestion | undefined,
  suggestions: Suggestion[],
  exists: Set<string>,
  bookedAt: Date,
): PaymentRow {
  const invoice = line.amount > 0 ? best(suggestions, 'INVOICE') : undefined;
  const document = invoice && exists.has(invoice.id) ? invoice : undefined;
  return newPaymentRow(
    {
      accountId,
      direction: line.amount >= 0 ? 'INCOMING' : 'OUTGOING',
      links: {
        document_id: document?.id ?? null,
        document_number: document?.label ?? null,
        contract_id: null,
        contract_name: null,
        partner_id: partner?.id ?? null,
        partner_name: partner ? partner.label : line.counterparty_name,
      },
      amountMinor: Math.abs(line.amount),
      currency: line.currency,
      paymentDate: line.booking_date,
      status: 'MARKED',
      paymentMethod: 'BANK_TRANSFER',
      providerPaymentIntentId: null,
      failureReason: null,
      source: 'IMPORT',
      importId,
    },
    bookedAt,
  );
}

/** The budget entry of a debit whose category suggestion still exists, if any. */
function budgetEntry(
  accountId: string,
  importId: string,
  line: AcceptedLine,
  suggestions: Suggestion[],
  exists: Set<string>,
  at: string,
): Insertable<DB['budget_entries']> | undefined {
  const category = best(suggestions, 'BUDGET_CATEGORY');
  if (!category || !exists.has(category.id)) return undefined;
  return {
    id: newId('budgetEntry'),
    account_id: accountId,
    category_id: category.id,
    amount: Math.abs(line.amount),
    currency: line.currency,
    entry_date: line.booking_date,
    document_id: null,
    vendor_name: line.counterparty_name,
    source: 'IMPORT',
    import_id: importId,
    version: 1,
    created_at: at,
    updated_at: at,
  };
}

/** Which suggested records still exist in the account (one query per kind). */
async function existing(
  trx: Transaction<DB>,
  accountId: string,
  suggestions: Suggestion[],
): Promise<Set<string>> {
  const byType = new Map<Suggestion['type'], Set<string>>();
  for (const s of suggestions)
    if (s.score >= USE_SCORE) byType.set(s.type, (byType.get(s.type) ?? new Set()).add(s.id));
  const tables = {
    PARTNER: 'partners',
    PAYMENT: 'payments',
    INVOICE: 'documents',
    BUDGET_CATEGORY: 'budget_categories',
    SEPA_RETURN: 'payments',
    SEPA_BATCH: 'sepa_runs',
  } as const;
  const found = new Set<string>();
  for (const [type, ids] of byType)
    for (const id of await repo.existingIds(trx, tables[type], accountId, [...ids])) found.add(id);
  return found;
}
