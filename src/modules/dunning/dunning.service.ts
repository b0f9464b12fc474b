import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { appendAudit, systemActor, type Actor } from '../../shared/audit.js';
import { addDays, isoDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import { toMajor, toMinor } from '../../shared/money.js';
import { ensureSystemTemplate, type TemplateRow } from '../document-templates/index.js';
import {
  createDocument,
  dunnableInvoices,
  lockFinalDocument,
  openFigures,
  openMinor,
  recordDunning,
  withPaymentFigures,
  type CreateDocument,
  type DunnableInvoiceRow,
} from '../documents/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { baseRates, type BaseRates } from './base-rates.js';
import { daysBetween, nextClaim, type Claim, type Level } from './claim.js';
import * as repo from './dunning.repository.js';
import type { DunningRunResult, LetterView } from './dunning.schemas.js';
import { settingsOf, type Settings } from './dunning-settings.service.js';

/** Invoices read per page of a run. */
const PAGE = 200;
/** Letters made at the same time (their commits share SQLite's flush, or run side by side). */
const PARALLEL = 4;
export const SEND_JOB = 'dunning.letter.send';

/**
 * Thrown inside the creating transaction when the invoice is no longer due for the letter (the
 * level reached already, paid, credited or blocked meanwhile): rolls it back.
 */
class LevelTaken extends Error {}

interface Run {
  accountId: string;
  asOf: string;
  dryRun: boolean;
  actor: Actor;
  /** Only these invoices (the letters chosen from a dry run); every invoice when left out. */
  invoiceIds?: readonly string[];
}

/** What the run needs per account: its settings and the letters' templates. */
interface Prepared {
  settings: Settings;
  templates: Partial<Record<'PAYMENT_REMINDER' | 'DUNNING', TemplateRow>>;
}

/**
 * Dunning runs (issue 14, docs/dunning.md): each overdue invoice due for its next level gets
 * one letter — a FINAL DUNNING document from the PUBLISHED system template, its notice and the
 * invoice's new level written in one transaction, so a level reaches an invoice once however
 * many processes run at once and however often a run is repeated.
 */
export class DunningRuns {
  private readonly rates: BaseRates;

  constructor(private readonly ctx: AppContext) {
    this.rates = baseRates(ctx.config.dunningBaseRates);
  }

  /** `POST /v1/dunning/runs`: the caller's account, as of `date` (default today). */
  runFor(
    actor: Actor,
    input: { dryRun?: boolean; date?: string; invoiceIds?: readonly string[] },
  ): Promise<DunningRunResult> {
    const today = isoDate(this.ctx.clock.now());
    const asOf = input.date ?? today;
    const dryRun = input.dryRun ?? false;
    // A letter goes out today: dated otherwise, its deadline and interest would not match the
    // day it reaches the debtor. Other days are for dry runs.
    if (!dryRun && asOf !== today)
      throw new AppError(
        'business_rule_violated',
        'Dunning letters are made as of today: leave out date, or use dryRun to preview another day.',
        {
          errors: [
            {
              path: '/body/date',
              message: 'must be today unless dryRun is set',
              code: 'not_today',
            },
          ],
        },
      );
    return this.run({
      accountId: actor.accountId,
      asOf,
      dryRun,
      actor,
      // Read within the caller's account like every invoice: another account's id matches none.
      invoiceIds: input.invoiceIds,
    });
  }

  /** The schedule: every account that enabled it and has not run today, as the system. */
  async runScheduled(): Promise<{ accounts: number; letters: number; problems: number }> {
    const today = isoDate(this.ctx.clock.now());
    const accounts = await repo.claimScheduledRuns(this.ctx.db, today);
    let letters = 0;
    let problems = 0;
    for (const accountId of accounts) {
      try {
        const result = await this.run({
          accountId,
          asOf: today,
          dryRun: false,
          actor: systemActor(accountId),
        });
        letters += result.letters.length;
        problems += result.problems.length;
      } catch (err) {
        // One account's failure leaves the others' runs of today to go on.
        this.ctx.logger.error({ err, accountId }, 'dunning run failed');
        problems++;
      }
    }
    return { accounts: accounts.length, letters, problems };
  }

  async run(run: Run): Promise<DunningRunResult> {
    const result: DunningRunResult = {
      dryRun: run.dryRun,
      date: run.asOf,
      letters: [],
      problems: [],
    };
    const prepared = await this.prepare(run);
    let afterId: string | undefined;
    for (;;) {
      const page = await dunnableInvoices(this.ctx.db, run.accountId, {
        asOf: run.asOf,
        maxLevel: prepared.settings.levels.length,
        afterId,
        limit: PAGE,
        ids: run.invoiceIds,
      });
      if (page.length === 0) return result;
      const due = await this.claims(run, prepared.settings, page);
      let next = 0;
      const worker = async () => {
        while (next < due.length) {
          const item = due[next++]!;
          await this.dun(run, prepared, item.invoice, item.claim, result);
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      if (page.length < PAGE) return result;
      afterId = page[page.length - 1]!.id;
    }
  }

  private async prepare(run: Run): Promise<Prepared> {
    const settings = settingsOf(await repo.findSettings(this.ctx.db, run.accountId));
    const templates: Prepared['templates'] = {};
    if (!run.dryRun)
      for (const kind of new Set(settings.levels.map((l) => l.kind)))
        templates[kind] = await ensureSystemTemplate(this.ctx.db, run.accountId, kind);
    return { settings, templates };
  }

  /** The page's invoices that are due for a letter, with what each letter claims. */
  private async claims(
    run: Run,
    settings: Settings,
    page: DunnableInvoiceRow[],
  ): Promise<{ invoice: DunnableInvoiceRow; claim: Claim }[]> {
    const db = this.ctx.db;
    // Settled payments and FINAL credit notes of the whole page, in two grouped queries.
    const figures = await withPaymentFigures(db, run.accountId, page, run.asOf);
    const history = await repo.noticeHistory(
      db,
      run.accountId,
      page.filter((r) => r.dunning_level > 0).map((r) => r.id),
    );
    const out: { invoice: DunnableInvoiceRow; claim: Claim }[] = [];
    for (const row of figures) {
      const past = history.get(row.id);
      const claim = nextClaim(
        {
          dueDate: row.due_date!,
          currency: row.currency,
          openMinor: openMinor(row) ?? 0,
          creditedMinor: row.credited_minor,
          level: row.dunning_level,
          lastDunnedAt: row.last_dunned_at,
          firstDunnedAt: past?.first_as_of ?? null,
          priorFeesMinor: past?.fees ?? 0,
          priorFlatFeeMinor: past?.flat_fee ?? 0,
          business: row.partner_consumer === 0,
        },
        levelsIn(settings.levels, row.currency),
        run.asOf,
        { rates: this.rates, flatFee: settings.flatFee },
      );
      if (claim) out.push({ invoice: row, claim });
    }
    return out;
  }

  /**
   * In the letter's transaction, with the invoice's row locked: the invoice is still due for
   * exactly this letter (not paid, credited, blocked or dunned meanwhile by anyone).
   */
  private async stillDue(
    trx: Transaction<DB>,
    invoice: DunnableInvoiceRow,
    claim: Claim,
  ): Promise<boolean> {
    const locked = await lockFinalDocument(trx, invoice.account_id, invoice.id);
    if (
      !locked ||
      locked.dunning_level !== claim.level - 1 ||
      locked.dunning_blocked !== 0 ||
      locked.cancelled_by_document_id !== null
    )
      return false;
    const now = await openFigures(trx, locked);
    // The same level, fees and history: the same open amount means the same letter.
    const open = openMinor({
      ...locked,
      settled_minor: now.settledMinor,
      credited_minor: now.creditedMinor,
    });
    return !now.partnerBlocked && open === claim.openMinor;
  }

  /** One letter: proposed (dry run) or made, recorded and queued for mailing. */
  private async dun(
    run: Run,
    prepared: Prepared,
    invoice: DunnableInvoiceRow,
    claim: Claim,
    result: DunningRunResult,
  ): Promise<void> {
    const payBy = addDays(run.asOf, prepared.settings.paymentDays);
    const letter = letterView(invoice, claim, run.asOf, payBy);
    if (run.dryRun) {
      result.letters.push(letter);
      return;
    }
    const template = prepared.templates[claim.kind]!;
    const within = (trx: Transaction<DB>, documentId: string) =>
      this.recordLetter(trx, run, invoice, claim, letter, documentId);
    try {
      const doc = await createDocument(
        this.ctx,
        run.actor,
        letterInput(invoice, claim, template, run.asOf, payBy),
        { within, renderLater: true },
      );
      result.letters.push({ ...letter, documentId: doc.id, sendQueued: true });
      this.ctx.jobs.kick();
    } catch (err) {
      if (err instanceof LevelTaken) return;
      if (!(err instanceof AppError) || err.status >= 500) throw err;
      result.problems.push({ invoiceId: invoice.id, code: err.code, detail: err.message });
    }
  }
  /**
   * Inside the letter's own transaction: claims the level (or gives way with LevelTaken when
   * another run took it or the figures moved), records it on the invoice, and queues the mail.
   */
  private async recordLetter(
    trx: Transaction<DB>,
    run: Run,
    invoice: DunnableInvoiceRow,
    claim: Claim,
    letter: ReturnType<typeof letterView>,
    documentId: string,
  ): Promise<void> {
    if (!(await this.stillDue(trx, invoice, claim))) throw new LevelTaken();
    const now = this.ctx.clock.now();
    const claimed = await repo.claimNotice(trx, {
      invoice_id: invoice.id,
      level: claim.level,
      account_id: invoice.account_id,
      document_id: documentId,
      kind: claim.kind,
      as_of: run.asOf,
      currency: invoice.currency,
      open_minor: claim.openMinor,
      fee_minor: claim.feeMinor,
      interest_minor: claim.interestMinor,
      flat_fee_minor: claim.flatFeeMinor,
      created_at: now.toISOString(),
    });
    const recorded =
      claimed &&
      (await recordDunning(trx, invoice.account_id, invoice.id, {
        from: claim.level - 1,
        to: claim.level,
        on: run.asOf,
        at: now.toISOString(),
      }));
    if (!recorded) throw new LevelTaken();
    await appendAudit(
      trx,
      run.actor,
      {
        action: 'document.dunned',
        resourceType: 'document',
        resourceId: invoice.id,
        changes: {
          dunningLevel: { from: claim.level - 1, to: claim.level },
          letterId: documentId,
        },
      },
      now,
    );
    await emitEvent(this.ctx, trx, invoice.account_id, 'dunning.sent', {
      ...letter,
      documentId,
      sendQueued: true,
    });
    await this.ctx.jobs.enqueue(
      trx,
      SEND_JOB,
      { documentId, accountId: invoice.account_id },
      invoice.account_id,
    );
  }
}

/** The levels with their fees in minor units of `currency` (settings keep them in cents). */
function levelsIn(levels: readonly Level[], currency: string): readonly Level[] {
  if (currency === 'EUR') return levels;
  return levels.map((l) => ({
    ...l,
    feeMinor: toMinor(toMajor(l.feeMinor, 'EUR'), currency) ?? Math.round(l.feeMinor),
  }));
}

const LEVEL_NAMES = (claim: Claim) =>
  claim.kind === 'PAYMENT_REMINDER'
    ? 'Zahlungserinnerung'
    : claim.finalNotice
      ? 'Letzte Mahnung'
      : `${claim.dunningNumber}. Mahnung`;

/** The letter as `POST /v1/documents` would be asked for it (fields in major units). */
function letterInput(
  invoice: DunnableInvoiceRow,
  claim: Claim,
  template: TemplateRow,
  asOf: string,
  payBy: string,
): CreateDocument {
  const major = (minor: number) => toMajor(minor, invoice.currency);
  const number = invoice.document_number ?? invoice.name;
  return {
    documentType: 'DUNNING',
    name: `${LEVEL_NAMES(claim)} zur Rechnung ${number}`.slice(0, 200),
    ...(invoice.partner_id
      ? { partnerId: invoice.partner_id }
      : invoice.partner_name
        ? { partnerName: invoice.partner_name }
        : {}),
    ...(invoice.contract_id ? { contractId: invoice.contract_id } : {}),
    templateId: template.id,
    source: 'GENERATED',
    status: 'FINAL',
    creationDate: asOf,
    currency: invoice.currency,
    fields: {
      invoiceNumber: number,
      invoiceDate: invoice.creation_date,
      dueDate: invoice.due_date,
      currency: invoice.currency,
      invoiceTotal: major(Number(invoice.gross_total)),
      paid: major(Number(invoice.gross_total) - claim.openMinor - claim.creditedMinor),
      credited: major(claim.creditedMinor),
      asOf,
      openAmount: major(claim.openMinor),
      priorFees: major(claim.priorFeesMinor),
      fee: major(claim.feeMinor),
      interest: major(claim.interestMinor),
      interestRate: claim.interestRate ?? 0,
      ...(claim.interestFrom ? { interestFrom: claim.interestFrom } : {}),
      flatFee: major(claim.flatFeeMinor),
      total: major(claim.totalMinor),
      payBy,
      level: claim.level,
      dunningNumber: claim.dunningNumber,
      finalNotice: claim.finalNotice ? 1 : 0,
    },
  };
}

function letterView(
  invoice: DunnableInvoiceRow,
  claim: Claim,
  asOf: string,
  payBy: string,
): LetterView {
  const major = (minor: number) => toMajor(minor, invoice.currency);
  return {
    invoiceId: invoice.id,
    invoiceNumber: invoice.document_number,
    partnerId: invoice.partner_id,
    partnerName: invoice.partner_name,
    dueDate: invoice.due_date!,
    daysOverdue: daysBetween(invoice.due_date!, asOf),
    level: claim.level,
    kind: claim.kind,
    currency: invoice.currency,
    openAmount: major(claim.openMinor),
    fee: major(claim.feeMinor),
    priorFees: major(claim.priorFeesMinor),
    interest: major(claim.interestMinor),
    interestRate: claim.interestRate,
    flatFee: major(claim.flatFeeMinor),
    total: major(claim.totalMinor),
    payBy,
    documentId: null,
    sendQueued: false,
  };
}
