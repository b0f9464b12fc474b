import type { Insertable, Transaction } from 'kysely';
import type { DB } from '../../db/schema.js';
import type { Actor } from '../../shared/audit.js';
import { newId } from '../../shared/ids.js';
import { insertBudgetEntries } from '../budgets/index.js';
import {
  findPayments,
  insertImportedPayments,
  markPaymentsImported,
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
  const booking = new Booking(actor.accountId, imp.id, exists, at);
  // Lines that may mark an open payment wait and are marked together (one UPDATE per 500
  // payments); a return (rare) books those before it, as it would see them one by one.
  let waiting: Waiting[] = [];
  for (const { line, suggestions } of parsed) {
    if (isReturn(line, suggestions, exists)) {
      await booking.markOpen(trx, waiting);
      waiting = [];
      const paymentId = await returnedPayment(ctx, trx, actor, imp.id, line, suggestions, exists);
      if (paymentId !== undefined) {
        booking.book(line, suggestions, paymentId);
        continue;
      }
    }
    if (best(suggestions, 'SEPA_BATCH')) {
      await booking.markOpen(trx, waiting);
      waiting = [];
      const paymentId = await booking.confirmBatch(trx, line, suggestions);
      if (paymentId !== undefined) {
        booking.book(line, suggestions, paymentId);
        continue;
      }
    }
    const open = best(suggestions, 'PAYMENT');
    waiting.push({ line, suggestions, open: open && exists.has(open.id) ? open : undefined });
  }
  await booking.markOpen(trx, waiting);
  await insertImportedPayments(
    ctx,
    trx,
    actor.accountId,
    booking.payments,
    booking.markedDocuments,
  );
  await insertBudgetEntries(trx, booking.entries);
  await repo.insertLedger(trx, booking.ledger);
  return {
    paymentsCreated: booking.payments.length,
    paymentsMarked: booking.markedDocuments.length,
    budgetEntries: booking.entries.length,
  };
}

/** A line that may mark the open payment it suggests (`open`, still existing). */
interface Waiting {
  line: AcceptedLine;
  suggestions: Suggestion[];
  open?: Suggestion;
}

/** What finalize writes, collected line by line in the statement's order. */
class Booking {
  readonly payments: PaymentRow[] = [];
  readonly entries: Insertable<DB['budget_entries']>[] = [];
  readonly ledger: Insertable<DB['imported_transactions']>[] = [];
  /** The invoices of the open payments marked (null: a payment of none), one per payment. */
  readonly markedDocuments: (string | null)[] = [];
  private readonly usedPayments = new Set<string>();
  private readonly bookedAt: Date;

  constructor(
    private readonly accountId: string,
    private readonly importId: string,
    private readonly exists: Set<string>,
    private readonly at: string,
  ) {
    this.bookedAt = new Date(at);
  }

  /**
   * Marks the open payments the waiting lines suggest, together, and books the lines: each
   * payment onto the first line suggesting it that is still open, every other line anew.
   */
  async markOpen(trx: Transaction<DB>, waiting: Waiting[]): Promise<void> {
    const offered = waiting.flatMap((w) =>
      w.open && !this.usedPayments.has(w.open.id) ? [w.open.id] : [],
    );
    const paid = await markPaymentsImported(trx, this.accountId, offered, this.importId, this.at);
    for (const { line, suggestions, open } of waiting) {
      let paymentId: string | undefined;
      if (open && paid.has(open.id) && !this.usedPayments.has(open.id)) {
        this.markedDocuments.push(paid.get(open.id)!);
        this.usedPayments.add(open.id);
        paymentId = open.id;
      }
      this.book(line, suggestions, paymentId);
    }
  }

  /**
   * A SEPA batch booking (a `SEPA_BATCH` suggestion) confirms the payments of the run block's
   * items not returned, read again now: all of them (MARKED, their invoices judged with the
   * import's), and only when they still add up to the line's amount and every one still awaits
   * a statement — else none, and the line is booked like any other. Answers the payment the
   * line is booked onto (the first of the block's), or undefined.
   */
  async confirmBatch(
    trx: Transaction<DB>,
    line: AcceptedLine,
    suggestions: Suggestion[],
  ): Promise<string | undefined> {
    const { accountId, exists, usedPayments } = this;
    const suggested = best(suggestions, 'SEPA_BATCH');
    if (!suggested || !exists.has(suggested.id)) return undefined;
    const batch = (await findSepaBatches(trx, accountId, [suggested.label])).get(suggested.label);
    if (!batch || batch.runId !== suggested.id) return undefined;
    const standing = batch.items.filter((i) => i.returnedOn === null && i.paymentId !== null);
    const total = standing.reduce((sum, i) => sum + i.amountMinor, 0);
    if (standing.length === 0 || total !== Math.abs(line.amount)) return undefined;
    const ids = standing.map((i) => i.paymentId!);
    if (ids.some((id) => usedPayments.has(id))) return undefined;
    const payments = await findPayments(trx, accountId, ids);
    for (const id of ids) {
      const payment = payments.get(id);
      const awaits =
        payment?.status === 'PENDING' ||
        (payment?.status === 'MARKED' && payment.source === 'MANUAL' && payment.import_id === null);
      if (!awaits) return undefined;
    }
    const paid = await markPaymentsImported(trx, accountId, ids, this.importId, this.at);
    for (const id of ids)
      if (paid.has(id)) {
        this.markedDocuments.push(paid.get(id)!);
        usedPayments.add(id);
      }
    return ids.find((id) => paid.has(id));
  }

  /** The line booked onto `paymentId`, or onto a new MARKED payment when that is undefined. */
  book(line: AcceptedLine, suggestions: Suggestion[], paymentId: string | undefined): void {
    const { accountId, importId, exists, at } = this;
    const partner = partnerOf(suggestions, exists);
    if (paymentId === undefined) {
      const row = importedPayment(
        accountId,
        importId,
        line,
        partner,
        suggestions,
        exists,
        this.bookedAt,
      );
      paymentId = row.id;
      this.payments.push(row);
    }
    const entry =
      line.amount < 0 ? budgetEntry(accountId, importId, line, suggestions, exists, at) : undefined;
    if (entry) this.entries.push(entry);
    this.ledger.push({
      account_id: accountId,
      identity: line.identity,
      import_id: importId,
      idx: line.idx,
      payment_id: paymentId,
      partner_id: partner?.id ?? null,
      counterparty_iban: line.counterparty_iban?.replace(/\s+/g, '').toUpperCase() ?? null,
      created_at: at,
    });
  }
}

/** Whether the line returns a SEPA collection or transfer (a usable `SEPA_RETURN` suggestion). */
function isReturn(line: AcceptedLine, suggestions: Suggestion[], exists: Set<string>): boolean {
  const returned = best(suggestions, 'SEPA_RETURN');
  return !!returned && exists.has(returned.id) && !!line.end_to_end_id;
}

/**
 * A returned SEPA collection or transfer (`isReturn`): the sepa module marks its payment
 * RETURNED and undoes the run item; the line books nothing anew. Answers the payment's id, or
 * undefined when the item is unknown or returned already.
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
