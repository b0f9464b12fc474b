import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { appendAudits, systemActor, type Actor } from '../../shared/audit.js';
import { addDays, isoDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import { toMajor, toMinor } from '../../shared/money.js';
import { ensureSystemTemplate, type TemplateRow } from '../document-templates/index.js';
import {
  dunnableInvoices,
  insertFinalDocuments,
  lockForDunning,
  openMinor,
  prepareFinalDocuments,
  recordDunnings,
  withPaymentFigures,
  type CreateDocument,
  type DunnableInvoiceRow,
  type LockedForDunning,
  type PreparedDocument,
} from '../documents/index.js';
import { emitEvents } from '../webhook-endpoints/index.js';
import { baseRates, type BaseRates } from './base-rates.js';
import { daysBetween, nextClaim, type Claim, type Level } from './claim.js';
import * as repo from './dunning.repository.js';
import type { DunningRunResult, LetterView } from './dunning.schemas.js';
import { settingsOf, type Settings } from './dunning-settings.service.js';

/**
 * Invoices read, re-checked and written per transaction: a few statements per chunk instead of
 * a transaction of a dozen per letter, with the chunk's rows locked for less than a second.
 */
const CHUNK = 500;
export const SEND_JOB = 'dunning.letter.send';

interface Run {
  accountId: string;
  asOf: string;
  dryRun: boolean;
  actor: Actor;
  /** Only these invoices (the letters chosen from a dry run); every invoice when left out. */
  invoiceIds?: readonly string[];
}

/** A letter prepared outside the transaction, ready to be written if still due. */
interface Ready {
  invoice: DunnableInvoiceRow;
  claim: Claim;
  letter: LetterView;
  doc: PreparedDocument;
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
  private readonly chunk: number;

  constructor(
    private readonly ctx: AppContext,
    private readonly opts: {
      /** Invoices read, re-checked and written per transaction (default CHUNK). */
      chunk?: number;
      /** Tests: called with a chunk's invoice ids after they were read, before their transaction. */
      beforeWrite?: (invoiceIds: string[]) => Promise<void>;
    } = {},
  ) {
    this.rates = baseRates(ctx.config.dunningBaseRates);
    this.chunk = opts.chunk ?? CHUNK;
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
        limit: this.chunk,
        ids: run.invoiceIds,
      });
      if (page.length === 0) return result;
      const due = await this.claims(run, prepared.settings, page);
      if (due.length > 0) await this.dunChunk(run, prepared, due, result);
      if (page.length < this.chunk) return result;
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
   * A chunk's letters: proposed (dry run), or made in ONE transaction that first locks the
   * chunk's invoices and re-checks each (`stillDue`), then writes the letters that are still
   * due — FINAL documents, levels, notices, audit events, webhook events and send jobs — in a
   * few multi-row statements. An invoice paid, credited, blocked, put under a SEPA collection
   * or dunned by someone else since it was read is left out (the next run sees it anew).
   */
  private async dunChunk(
    run: Run,
    prepared: Prepared,
    due: { invoice: DunnableInvoiceRow; claim: Claim }[],
    result: DunningRunResult,
  ): Promise<void> {
    const payBy = addDays(run.asOf, prepared.settings.paymentDays);
    const letters = due.map((d) => ({
      ...d,
      letter: letterView(d.invoice, d.claim, run.asOf, payBy),
    }));
    if (run.dryRun) {
      for (const l of letters) result.letters.push(l.letter);
      return;
    }
    const docs = await prepareFinalDocuments(
      this.ctx,
      run.actor,
      letters.map((l) =>
        letterInput(l.invoice, l.claim, prepared.templates[l.claim.kind]!, run.asOf, payBy),
      ),
    );
    const ready: ((typeof letters)[number] & Ready)[] = [];
    letters.forEach((l, i) => {
      const doc = docs[i]!;
      if (doc instanceof AppError)
        result.problems.push({ invoiceId: l.invoice.id, code: doc.code, detail: doc.message });
      else ready.push({ ...l, doc });
    });
    if (ready.length === 0) return;
    await this.opts.beforeWrite?.(ready.map((r) => r.invoice.id));
    const made = await this.ctx.db
      .transaction()
      .execute((trx) => this.writeLetters(trx, run, ready));
    for (const r of made)
      result.letters.push({ ...r.letter, documentId: r.doc.id, sendQueued: true });
    if (made.length > 0) this.ctx.jobs.kick();
  }

  /**
   * The write of a chunk, in its transaction: locks and re-checks the invoices, then the
   * levels' compare-and-set, the letters, notices, audit events, webhook events and send jobs
   * of those still due. Answers the letters made.
   */
  private async writeLetters<T extends Ready>(
    trx: Transaction<DB>,
    run: Run,
    ready: readonly T[],
  ): Promise<T[]> {
    const { accountId } = run;
    const locked = new Map(
      (
        await lockForDunning(
          trx,
          accountId,
          ready.map((r) => r.invoice.id),
        )
      ).map((row) => [row.id, row]),
    );
    const still = ready.filter((r) => stillDue(locked.get(r.invoice.id), r.claim));
    if (still.length === 0) return [];
    const now = this.ctx.clock.now();
    const at = now.toISOString();
    // The level's compare-and-set, per previous level (one statement for a usual chunk).
    const moved = new Set<string>();
    for (const from of new Set(still.map((r) => r.claim.level - 1)))
      for (const id of await recordDunnings(
        trx,
        accountId,
        still.filter((r) => r.claim.level - 1 === from).map((r) => r.invoice.id),
        { from, to: from + 1, on: run.asOf, at },
      ))
        moved.add(id);
    const kept = still.filter((r) => moved.has(r.invoice.id));
    await insertFinalDocuments(
      this.ctx,
      trx,
      run.actor,
      kept.map((r) => r.doc),
    );
    const claimed = await repo.claimNotices(
      trx,
      kept.map((r) => ({
        invoice_id: r.invoice.id,
        level: r.claim.level,
        account_id: accountId,
        document_id: r.doc.id,
        kind: r.claim.kind,
        as_of: run.asOf,
        currency: r.invoice.currency,
        open_minor: r.claim.openMinor,
        fee_minor: r.claim.feeMinor,
        interest_minor: r.claim.interestMinor,
        flat_fee_minor: r.claim.flatFeeMinor,
        created_at: at,
      })),
    );
    // The invoice's level was free under its lock, so its notice is: anything else is a
    // broken record, and the chunk rolls back rather than send a letter twice.
    if (claimed.size !== kept.length)
      throw new Error('dunning: a notice exists for a level the invoice had not reached');
    await appendAudits(
      trx,
      run.actor,
      kept.map((r) => ({
        action: 'document.dunned',
        resourceType: 'document',
        resourceId: r.invoice.id,
        changes: {
          dunningLevel: { from: r.claim.level - 1, to: r.claim.level },
          letterId: r.doc.id,
        },
      })),
      now,
    );
    await emitEvents(this.ctx, trx, accountId, 'dunning.sent', kept, (r) => ({
      ...r.letter,
      documentId: r.doc.id,
      sendQueued: true,
    }));
    await this.ctx.jobs.enqueueMany(
      trx,
      SEND_JOB,
      kept.map((r) => ({ payload: { documentId: r.doc.id, accountId }, accountId })),
    );
    return kept;
  }
}

/**
 * The re-check under lock: the invoice is still due for exactly this letter — FINAL, at the
 * level before it, neither it nor its partner blocked, not cancelled, no SEPA collection under
 * way, and the same open amount (the same level, fees and history: the same letter).
 */
function stillDue(locked: LockedForDunning | undefined, claim: Claim): boolean {
  return (
    locked !== undefined &&
    locked.dunning_level === claim.level - 1 &&
    locked.dunning_blocked === 0 &&
    locked.cancelled_by_document_id === null &&
    !locked.partner_blocked &&
    !locked.collecting &&
    openMinor(locked) === claim.openMinor
  );
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
