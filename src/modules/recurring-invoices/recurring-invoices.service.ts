import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { systemActor, type Actor } from '../../shared/audit.js';
import { addDays, isoDate } from '../../shared/dates.js';
import { AppError, notFound } from '../../shared/errors.js';
import { decodeCursor, toPage } from '../../http/pagination.js';
import { toMajor } from '../../shared/money.js';
import {
  advanceBilling,
  advancedOf,
  billingOf,
  dueForBilling,
  duePeriod,
  findContract,
  isBillable,
  shiftDate,
  type BillingPeriod,
  type ContractRow,
  type StoredBilling,
} from '../contracts/index.js';
import { createDocument, type CreateDocument, type DocumentView } from '../documents/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import * as repo from './recurring-invoices.repository.js';
import type {
  BillingRunResult,
  ContractInvoice,
  ListContractInvoices,
  RunInvoiceView,
} from './recurring-invoices.schemas.js';

/** Contracts read per page of a run. */
const PAGE = 100;
/**
 * Contracts billed at the same time: their transactions share the commit's disk flush
 * (SQLite's group commit) or run side by side (PostgreSQL); one contract's periods stay in order.
 */
const PARALLEL = 4;
/** Periods one contract may catch up in one run (ten years of months). */
const MAX_PERIODS = 120;
/** Payment term of an invoice when the contract sets none (`advanced.paymentTermDays`). */
const DEFAULT_TERM_DAYS = 14;
export const SEND_JOB = 'contract.invoice.send';

/** Thrown inside the creating transaction when the period is billed already: rolls it back. */
class PeriodTaken extends Error {}

interface Run {
  until: string;
  dryRun: boolean;
  accountId?: string;
  contractId?: string;
  /** Who the audit trail names: the caller, or the system for the schedule. */
  actor: (accountId: string) => Actor;
}

const dayMonthYear = (date: string) =>
  `${date.slice(8, 10)}.${date.slice(5, 7)}.${date.slice(0, 4)}`;

/**
 * Recurring invoices (issue 14): each due period of a contract's billing plan becomes one
 * invoice. The period is claimed (`contract_invoices`), the invoice inserted and the plan moved
 * on in one transaction, so a period is billed exactly once however many processes run at once
 * and however often a run is repeated after a crash.
 */
export class RecurringInvoices {
  constructor(private readonly ctx: AppContext) {}

  /**
   * `POST /v1/contracts/billing-runs`: the caller's account, up to `until` (default today). A
   * `contractId` the account does not have is 404, as on every other route.
   */
  async runFor(actor: Actor, input: { until?: string; dryRun?: boolean; contractId?: string }) {
    const today = isoDate(this.ctx.clock.now());
    const until = input.until ?? today;
    const dryRun = input.dryRun ?? false;
    if (!dryRun && until > today)
      throw new AppError(
        'business_rule_violated',
        'An invoice cannot be dated in the future: run up to today, or use dryRun to preview.',
        {
          errors: [
            {
              path: '/body/until',
              message: 'must not be after today unless dryRun is set',
              code: 'in_future',
            },
          ],
        },
      );
    if (
      input.contractId !== undefined &&
      !(await findContract(this.ctx.db, actor.accountId, input.contractId))
    )
      throw notFound('Contract');
    return this.run({
      until,
      dryRun,
      accountId: actor.accountId,
      contractId: input.contractId,
      actor: () => actor,
    });
  }

  /** The schedule: every account, up to today, as the system. */
  runScheduled(): Promise<BillingRunResult> {
    return this.run({ until: isoDate(this.ctx.clock.now()), dryRun: false, actor: systemActor });
  }

  async run(run: Run): Promise<BillingRunResult> {
    const result: BillingRunResult = {
      dryRun: run.dryRun,
      until: run.until,
      invoices: [],
      problems: [],
    };
    let afterId: string | undefined;
    for (;;) {
      const page = await dueForBilling(this.ctx.db, {
        until: run.until,
        accountId: run.accountId,
        contractId: run.contractId,
        afterId,
        limit: PAGE,
      });
      let next = 0;
      const worker = async () => {
        while (next < page.length) await this.billContract(page[next++]!, run, result);
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (page.length < PAGE) return result;
      afterId = page[page.length - 1]!.id;
    }
  }

  /** Bills one contract's due periods in order, up to `run.until`. */
  private async billContract(
    first: ContractRow,
    run: Run,
    result: BillingRunResult,
  ): Promise<void> {
    let row: ContractRow | undefined = first;
    for (let i = 0; row && i < MAX_PERIODS; i++) {
      const billing = billingOf(row);
      if (!billing || billing.paused || billing.ended || row.status !== 'ACTIVE') return;
      const period = duePeriod(billing, row.start_date);
      if (period.invoiceDate > run.until) return;
      const next: StoredBilling = {
        ...billing,
        nextInvoiceDate: shiftDate(billing, period.invoiceDate, 1),
      };
      if (!isBillable(billing, { endDate: row.end_date, advanced: advancedOf(row) }, period)) {
        if (!run.dryRun) await this.endPlan(row, billing, run.actor(row.account_id));
        return;
      }
      if (run.dryRun) {
        result.invoices.push(view(row, billing, period, 'PROPOSED', null));
        row = { ...row, billing: JSON.stringify(next) };
        continue;
      }
      row = await this.billPeriod(row, billing, next, period, run.actor(row.account_id), result);
    }
  }

  /**
   * Makes one period's invoice; answers the contract as it is afterwards (undefined: stop).
   * An invoice that cannot be made FINAL (a §14 UStG field missing, say) is made as a DRAFT
   * and reported, so the period is billed and the plan goes on; any other refusal leaves the
   * period due and is reported.
   */
  private async billPeriod(
    row: ContractRow,
    billing: StoredBilling,
    next: StoredBilling,
    period: BillingPeriod,
    actor: Actor,
    result: BillingRunResult,
  ): Promise<ContractRow | undefined> {
    const input = invoiceInput(row, billing, period);
    let updated: ContractRow | undefined;
    const within = async (trx: Transaction<DB>, documentId: string, status: string) => {
      const now = this.ctx.clock.now();
      const claimed = await repo.claimPeriod(trx, {
        contract_id: row.id,
        period_start: period.from,
        period_end: period.to,
        account_id: row.account_id,
        invoice_date: period.invoiceDate,
        document_id: documentId,
        created_at: now.toISOString(),
      });
      updated = claimed ? await advanceBilling(trx, actor, row, next, now, documentId) : undefined;
      if (!updated) throw new PeriodTaken();
      await emitEvent(this.ctx, trx, row.account_id, 'contract.invoiced', {
        contractId: row.id,
        documentId,
        status,
        invoiceDate: period.invoiceDate,
        servicePeriod: { from: period.from, to: period.to },
      });
      if (billing.autoSend && status === 'FINAL')
        await this.ctx.jobs.enqueue(
          trx,
          SEND_JOB,
          { documentId, accountId: row.account_id },
          row.account_id,
        );
    };
    let doc: DocumentView;
    try {
      doc = await this.create(actor, input, within);
    } catch (err) {
      if (err instanceof PeriodTaken) return findContract(this.ctx.db, row.account_id, row.id);
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      const draft =
        input.status === 'FINAL' ? await this.draftInstead(actor, input, within) : undefined;
      result.problems.push({
        contractId: row.id,
        invoiceDate: period.invoiceDate,
        code: err.code,
        detail: err.message,
        outcome: draft ? 'DRAFT_MADE' : 'NOT_BILLED',
      });
      if (!draft) return undefined;
      doc = draft;
    }
    result.invoices.push(view(row, billing, period, doc.status, doc.id));
    this.ctx.jobs.kick();
    return updated;
  }

  private create(
    actor: Actor,
    input: CreateDocument,
    within: (trx: Transaction<DB>, documentId: string, status: string) => Promise<void>,
  ): Promise<DocumentView> {
    return createDocument(this.ctx, actor, input, {
      within: (trx, documentId) => within(trx, documentId, input.status ?? 'DRAFT'),
      renderLater: true,
    });
  }

  private async draftInstead(
    actor: Actor,
    input: CreateDocument,
    within: (trx: Transaction<DB>, documentId: string, status: string) => Promise<void>,
  ): Promise<DocumentView | undefined> {
    try {
      return await this.create(actor, { ...input, status: 'DRAFT' }, within);
    } catch (err) {
      if (err instanceof PeriodTaken || (err instanceof AppError && err.status < 500))
        return undefined;
      throw err;
    }
  }

  /** The plan reached its end: it stops (`ended`), recorded with its audit event. */
  private async endPlan(row: ContractRow, billing: StoredBilling, actor: Actor): Promise<void> {
    await this.ctx.db.transaction().execute(async (trx) => {
      await advanceBilling(
        trx,
        actor,
        row,
        { ...billing, ended: true },
        this.ctx.clock.now(),
        null,
      );
    });
  }

  /** `GET /v1/contracts/{id}/invoices`. */
  async list(
    accountId: string,
    contractId: string,
    query: ListContractInvoices,
  ): Promise<{ data: ContractInvoice[]; nextCursor: string | null }> {
    const contract = await findContract(this.ctx.db, accountId, contractId);
    if (!contract) throw notFound('Contract');
    const limit = query.limit ?? 25;
    const rows = await repo.listBilledPeriods(this.ctx.db, accountId, contractId, {
      limit,
      beforeDocumentId: decodeCursor(query.cursor),
    });
    const page = toPage(
      rows.map((r) => ({ ...r, id: r.document_id })),
      limit,
    );
    return {
      data: page.rows.map((r) => ({
        documentId: r.document_id,
        documentNumber: r.document_number,
        status: r.status,
        invoiceDate: r.invoice_date,
        servicePeriod: { from: r.period_start, to: r.period_end },
        grossTotal: toMajor(Number(r.gross_total), r.currency),
        currency: r.currency,
        createdAt: r.created_at,
      })),
      nextCursor: page.nextCursor,
    };
  }
}

/** The invoice of one period, as `POST /v1/documents` would be asked for it. */
function invoiceInput(
  row: ContractRow,
  billing: StoredBilling,
  period: BillingPeriod,
): CreateDocument {
  const termDays = advancedOf(row)?.paymentTermDays ?? DEFAULT_TERM_DAYS;
  return {
    documentType: 'INVOICE',
    name: `${row.name} ${dayMonthYear(period.from)}–${dayMonthYear(period.to)}`.slice(0, 200),
    contractId: row.id,
    partnerId: row.partner_id,
    creationDate: period.invoiceDate,
    dueDate: addDays(period.invoiceDate, termDays),
    currency: row.currency,
    lineItems: billing.lineItems,
    servicePeriod: { from: period.from, to: period.to },
    status: billing.autoFinalize ? 'FINAL' : 'DRAFT',
  };
}

function view(
  row: ContractRow,
  billing: StoredBilling,
  period: BillingPeriod,
  status: RunInvoiceView['status'],
  documentId: string | null,
): RunInvoiceView {
  return {
    contractId: row.id,
    contractName: row.name,
    partnerId: row.partner_id,
    invoiceDate: period.invoiceDate,
    servicePeriod: { from: period.from, to: period.to },
    status,
    documentId,
    sendQueued: status === 'FINAL' && billing.autoSend,
  };
}
