import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/dialect.js';
import type { Executor } from '../../db/records.js';
import type { Later } from '../../db/transactions.js';
import type { DB } from '../../db/schema.js';
import { isoDate } from '../../shared/dates.js';
import { compareAndSet, type IfMatch } from '../../shared/concurrency.js';
import { AppError, notFound } from '../../shared/errors.js';
import { assertIsoDate, minorAmount } from '../../http/field-rules.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import type { Actor } from '../../shared/audit.js';
import { deleteRecord } from '../../shared/delete-record.js';
import { toMajor } from '../../shared/money.js';
import { registerReference } from '../../shared/references.js';
import { emitEvent, prefetchEndpoints } from '../webhook-endpoints/index.js';
import { amountBounds } from './amount-filter.js';
import { createPaymentRecord, newPaymentRow, updatePaymentRecord } from './payments.api.js';
import { invoiceStandingsLater, recordSettlement } from '../documents/index.js';
import { presentPayment } from './payments.presenter.js';
import * as repo from './payments.repository.js';
import {
  assertDocumentCurrency,
  assertHasPartner,
  resolveLinks,
  type LinkInput,
} from './payments.rules.js';
import type {
  CreatePayment,
  ListPayments,
  Payment,
  PaymentStatus,
  UpdatePayment,
} from './payments.schemas.js';

// Records that payments point at cannot be deleted while they do: 409 in_use.
registerReference('document', { table: 'payments', column: 'document_id', label: 'payments' });
registerReference('contract', { table: 'payments', column: 'contract_id', label: 'payments' });
registerReference('partner', { table: 'payments', column: 'partner_id', label: 'payments' });

/**
 * A payment recorded by hand is money that moved: settled (MARKED) unless the client says
 * PENDING. One with a provider's id is expected until the provider's webhook reports success.
 */
function defaultStatus(input: CreatePayment): PaymentStatus {
  return input.providerPaymentIntentId === undefined ? 'MARKED' : 'PENDING';
}

function duplicateProviderId(): AppError {
  return new AppError('duplicate', 'Another payment already has this providerPaymentIntentId.', {
    errors: [
      {
        path: '/body/providerPaymentIntentId',
        message: 'is already used by another payment',
        code: 'duplicate',
      },
    ],
  });
}

/**
 * Payments (decisions §6, §7, §10): money received or paid, linked to a document, contract and
 * partner of the account; PENDING ↔ MARKED with `markedAt`. Each write runs in one transaction
 * with its version bump and audit event.
 */
export class PaymentsService {
  constructor(private readonly ctx: AppContext) {}

  async create(actor: Actor, input: CreatePayment): Promise<Payment> {
    const now = this.ctx.clock.now();
    assertIsoDate(input.paymentDate, '/body/paymentDate');
    const amountMinor = minorAmount(input.amount, input.currency, '/body/amount');
    return this.guarded(actor.accountId, input, async () => {
      const answer = await this.ctx.db.transaction().execute(async (trx) => {
        // On PostgreSQL the endpoints' read goes out with the first statement (the invoice's),
        // the insert with the settlement's read and the invoice's standing with the COMMIT.
        await prefetchEndpoints(trx, actor.accountId);
        const links = await resolveLinks(trx, actor.accountId, input);
        assertDocumentCurrency(links, input.currency);
        assertHasPartner(links);
        const row = newPaymentRow(
          {
            accountId: actor.accountId,
            // A payment of a credit note is a refund: money paid back.
            direction: input.direction ?? (links.documentRefund ? 'OUTGOING' : 'INCOMING'),
            links,
            amountMinor,
            currency: input.currency,
            paymentDate: input.paymentDate,
            status: input.status ?? defaultStatus(input),
            paymentMethod: input.paymentMethod ?? null,
            providerPaymentIntentId: input.providerPaymentIntentId ?? null,
            failureReason: input.failureReason ?? null,
            source: 'MANUAL',
            importId: null,
          },
          now,
        );
        const payment = await createPaymentRecord(this.ctx, trx, actor, row, now);
        await emitEvent(this.ctx, trx, actor.accountId, 'payment.created', payment);
        return this.withInvoicesLater(trx, actor.accountId, [payment], now);
      });
      return (await answer())[0]!;
    });
  }

  async get(accountId: string, id: string): Promise<Payment> {
    const row = await repo.findPayment(this.ctx.db, accountId, id);
    if (!row) throw notFound('Payment');
    const [payment] = await this.withInvoices(this.ctx.db, accountId, [presentPayment(row)]);
    return payment!;
  }

  async list(
    accountId: string,
    query: ListPayments,
  ): Promise<{ data: Payment[]; nextCursor: string | null }> {
    assertIsoDate(query.from, '/querystring/from');
    assertIsoDate(query.to, '/querystring/to');
    const limit = query.limit ?? 25;
    const rows = await repo.listPayments(this.ctx.db, accountId, {
      limit,
      afterId: decodeCursor(query.cursor),
      direction: query.direction,
      status: query.status,
      source: query.source,
      currency: query.currency,
      partnerId: query.partnerId,
      contractId: query.contractId,
      documentId: query.documentId,
      from: query.from,
      to: query.to,
      amounts: amountBounds(query.minAmount, query.maxAmount),
      q: query.q,
    });
    const page = toPage(rows, limit);
    const data = await this.withInvoices(this.ctx.db, accountId, page.rows.map(presentPayment));
    return { data, nextCursor: page.nextCursor };
  }

  async update(actor: Actor, id: string, input: UpdatePayment, ifMatch: IfMatch): Promise<Payment> {
    const now = this.ctx.clock.now();
    assertIsoDate(input.paymentDate, '/body/paymentDate');
    return this.guarded(actor.accountId, input, () =>
      this.ctx.db.transaction().execute(async (trx) => {
        const updated = await compareAndSet({
          expected: input.version,
          ifMatch,
          what: 'Payment',
          run: async (version) => {
            const before = await repo.findPayment(trx, actor.accountId, id);
            if (!before || version === undefined || before.version !== version) return undefined;
            const values = await this.changes(trx, before, input);
            return updatePaymentRecord(this.ctx, trx, actor, before, values, now);
          },
          current: () => repo.paymentVersion(trx, actor.accountId, id),
        });
        const payment = presentPayment(updated.after);
        await emitEvent(this.ctx, trx, actor.accountId, 'payment.updated', payment);
        return (await this.withInvoices(trx, actor.accountId, [payment], now))[0]!;
      }),
    );
  }

  remove(actor: Actor, id: string, ifMatch: IfMatch): Promise<void> {
    return deleteRecord(this.ctx, actor, {
      resource: 'payment',
      what: 'Payment',
      id,
      ifMatch,
      run: async (trx, version) => {
        const removed = await repo.deletePayment(trx, actor.accountId, id, version);
        // A settled payment gone: its invoice may no longer be paid.
        if (removed?.status === 'MARKED')
          await recordSettlement(this.ctx, trx, actor.accountId, [removed.document_id]);
        return removed;
      },
      current: (trx) => repo.paymentVersion(trx, actor.accountId, id),
      present: presentPayment,
    });
  }

  /**
   * The payments with `document`: where each one's linked invoice stands (one batch of queries
   * for a whole page), read through `db` — in a write, its transaction, so the answer includes
   * the settlement the write just caused.
   */
  private async withInvoices(
    db: Executor,
    accountId: string,
    payments: Payment[],
    now: Date = this.ctx.clock.now(),
  ): Promise<Payment[]> {
    return (await this.withInvoicesLater(db, accountId, payments, now))();
  }

  /** `withInvoices`, the read started now and answered later (`invoiceStandingsLater`). */
  private async withInvoicesLater(
    db: Executor,
    accountId: string,
    payments: Payment[],
    now: Date,
  ): Promise<Later<Payment[]>> {
    const standingsLater = await invoiceStandingsLater(
      db,
      accountId,
      payments.map((p) => p.documentId),
      isoDate(now),
    );
    return async () => {
      const standings = await standingsLater();
      return payments.map((p) => {
        const invoice = p.documentId ? standings.get(p.documentId) : undefined;
        if (!invoice) return p;
        return {
          ...p,
          document: {
            id: invoice.id,
            documentNumber: invoice.documentNumber,
            paymentStatus: invoice.paymentStatus,
            openAmount: toMajor(invoice.openMinor, invoice.currency),
            paidAt: invoice.paidAt,
          },
        };
      });
    };
  }

  /** The stored values a PUT changes, checked against the references and currency rules. */
  private async changes(
    trx: Transaction<DB>,
    before: repo.PaymentRow,
    input: UpdatePayment,
  ): Promise<Partial<repo.PaymentRow>> {
    const values: Partial<repo.PaymentRow> = {};
    const currency = input.currency ?? before.currency;
    if (input.amount !== undefined)
      values.amount = minorAmount(input.amount, currency, '/body/amount');
    else if (currency !== before.currency)
      // A new currency without a new amount keeps the amount in major units.
      values.amount = minorAmount(
        toMajor(Number(before.amount), before.currency),
        currency,
        '/body/amount',
      );
    values.currency = currency;
    if (input.direction !== undefined) values.direction = input.direction;
    if (input.paymentDate !== undefined) values.payment_date = input.paymentDate;
    if (input.status !== undefined) values.status = input.status;
    if (input.paymentMethod !== undefined) values.payment_method = input.paymentMethod;
    if (input.providerPaymentIntentId !== undefined)
      values.provider_payment_intent_id = input.providerPaymentIntentId;
    if (input.failureReason !== undefined) values.failure_reason = input.failureReason;

    const linksChanged =
      input.documentId !== undefined ||
      input.documentNumber !== undefined ||
      input.contractId !== undefined ||
      input.contractName !== undefined ||
      input.partnerId !== undefined ||
      input.partnerName !== undefined;
    if (!linksChanged && currency === before.currency) return values;

    // Given values win; kept ids stay; an empty link may take its default from the document.
    const pick = <T>(given: T | undefined, kept: T | null) => (given === undefined ? kept : given);
    const links = await resolveLinks(trx, before.account_id, {
      documentId: pick(input.documentId, before.document_id),
      documentNumber: pick(input.documentNumber, before.document_number),
      contractId:
        input.contractId === undefined ? (before.contract_id ?? undefined) : input.contractId,
      contractName: pick(input.contractName, before.contract_name),
      partnerId: input.partnerId === undefined ? (before.partner_id ?? undefined) : input.partnerId,
      partnerName: pick(input.partnerName, before.partner_name),
    });
    assertDocumentCurrency(links, currency);
    assertHasPartner(links);
    const { documentCurrency: _c, documentRefund: _r, ...stored } = links;
    return { ...values, ...stored };
  }

  /**
   * Maps the database's backstops: a provider id taken meanwhile (unique index) is 409
   * `duplicate`; a referenced record deleted meanwhile (foreign key) is found missing again.
   */
  private async guarded<T>(
    accountId: string,
    input: LinkInput,
    write: () => Promise<T>,
  ): Promise<T> {
    try {
      return await write();
    } catch (err) {
      if (isUniqueViolation(err)) throw duplicateProviderId();
      if (isForeignKeyViolation(err)) {
        await resolveLinks(this.ctx.db, accountId, {
          documentId: input.documentId,
          contractId: input.contractId,
          partnerId: input.partnerId,
        });
        throw new AppError('reference_not_found', 'A referenced record no longer exists.');
      }
      throw err;
    }
  }
}
