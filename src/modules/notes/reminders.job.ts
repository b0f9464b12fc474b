import type { AppContext } from '../../context.js';
import { MINUTE } from '../../shared/clock.js';
import { formatDate, isoDate } from '../../shared/dates.js';
import { formatMoney, type NumberFormat } from '../../shared/money.js';
import { monthRange } from '../budgets/index.js';
import { findAccount } from '../account/index.js';
import { addDays, computeTerms, type ContractAdvanced } from '../contracts/index.js';
import { activeAdminEmails } from '../users/index.js';
import * as repo from './reminders.repository.js';

/**
 * Reminder mails (decisions §14): REMINDER notes when due and contract cancellation
 * deadlines ahead of time, each mailed once, whichever of many schedulers (replicas, or a
 * replica and the CLI) runs first.
 *
 * Budget overruns, the third kind: an active category whose entries of the current month
 * (UTC) sum to more than its monthly limit is mailed once per category and month, unless the
 * account has suppressed budgets.
 *
 * Exactly once: a delivery is claimed by inserting its row into `reminder_deliveries`
 * (primary key kind + subject + due key), the mail is sent after that insert has committed,
 * and then the row is marked sent. A scheduler that dies between claim and send leaves a
 * claim without `sent_at`; after CLAIM_TIMEOUT_MS another scheduler takes it over. A crash
 * after the send but before the mark can therefore repeat that one mail: at-least-once for
 * a crash in that instant, exactly-once otherwise, never none.
 */

/** How long a claim without `sent_at` is respected before another scheduler takes it over. */
export const CLAIM_TIMEOUT_MS = 10 * MINUTE;

/** Days before a cancellation deadline the reminder goes out when the contract does not say. */
export const DEFAULT_REMINDER_DAYS_BEFORE = 14;

/** The largest `reminderDaysBefore` the contract schema accepts: how far ahead to look. */
const MAX_REMINDER_DAYS_BEFORE = 365;

type DateFormat = 'DD.MM.YYYY' | 'DD/MM/YYYY';

interface AccountMailSettings {
  dateFormat: DateFormat;
  numberFormat: NumberFormat;
  allowOverride: boolean;
  /** The account's reminderEmail, else every ACTIVE admin; empty when there is no one. */
  recipients: string[];
}

/** One line for a mail header: no line breaks from user text. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Every row of a keyset-paged query, page by page (ids ascending). */
async function* pages<T extends { id: string }>(
  page: (afterId: string) => Promise<T[]>,
): AsyncGenerator<T> {
  let after = '';
  for (;;) {
    const rows = await page(after);
    yield* rows;
    if (rows.length < repo.BATCH) return;
    after = rows[rows.length - 1]!.id;
  }
}

/**
 * Mails every due reminder once. Safe to run concurrently on any number of processes sharing
 * the database. Answers how many mails this call sent.
 */
export async function runReminders(
  ctx: AppContext,
  now: Date = ctx.clock.now(),
): Promise<{ sent: number }> {
  const run = new ReminderRun(ctx, now);
  await run.notes();
  await run.contractDeadlines();
  await run.budgetOverruns();
  return { sent: run.sent };
}

/** One pass over the three kinds of reminders, with the accounts' mail settings read once. */
class ReminderRun {
  sent = 0;
  private readonly today: string;
  private readonly claimedAt: string;
  private readonly staleBefore: string;
  private readonly accounts = new Map<string, AccountMailSettings | undefined>();

  constructor(
    private readonly ctx: AppContext,
    now: Date,
  ) {
    this.today = isoDate(now);
    this.claimedAt = now.toISOString();
    this.staleBefore = new Date(now.getTime() - CLAIM_TIMEOUT_MS).toISOString();
  }

  /** REMINDER notes due today or earlier. */
  async notes(): Promise<void> {
    const { ctx, today, staleBefore } = this;
    for await (const note of pages((after) => repo.dueNotes(ctx.db, today, staleBefore, after))) {
      const account = await this.settingsOf(note.account_id);
      if (!account) continue;
      const due = formatDate(note.due_date, account.dateFormat);
      await this.deliver(
        { kind: 'NOTE', subjectId: note.id, dueKey: note.due_date },
        note.account_id,
        account.recipients,
        `Reminder: ${note.title} (due ${due})`,
        `Your reminder "${note.title}" is due on ${due}.\n\n${note.content}\n`,
      );
    }
  }

  /** Contracts whose cancellation deadline is within their reminder days from today. */
  async contractDeadlines(): Promise<void> {
    const { ctx, today, staleBefore } = this;
    const horizon = addDays(today, MAX_REMINDER_DAYS_BEFORE);
    for await (const contract of pages((after) =>
      repo.contractCandidates(ctx.db, today, horizon, staleBefore, after),
    )) {
      const advanced: ContractAdvanced =
        contract.advanced === null ? {} : (JSON.parse(contract.advanced) as ContractAdvanced);
      // The stored deadline dates from the last write; an auto-renewing contract may have
      // rolled into a new term since, so the deadline is recomputed for today.
      const deadline = computeTerms(
        { endDate: contract.end_date, ...advanced },
        today,
      ).cancellationDeadline;
      if (deadline === null || deadline < today) continue;
      const daysBefore = advanced.reminderDaysBefore ?? DEFAULT_REMINDER_DAYS_BEFORE;
      if (deadline > addDays(today, daysBefore)) continue;
      const account = await this.settingsOf(contract.account_id);
      if (!account) continue;
      const to =
        account.allowOverride && advanced.reminderEmail
          ? [advanced.reminderEmail]
          : account.recipients;
      const date = formatDate(deadline, account.dateFormat);
      await this.deliver(
        { kind: 'CONTRACT_DEADLINE', subjectId: contract.id, dueKey: deadline },
        contract.account_id,
        to,
        `Cancellation deadline ${date}: ${contract.name}`,
        `The contract "${contract.name}" with ${contract.partner_name} can be cancelled until ${date}.\n` +
          'After that day it continues under its current terms.\n',
      );
    }
  }

  /** Budget categories over their monthly limit in the current month (UTC). */
  async budgetOverruns(): Promise<void> {
    const { ctx, staleBefore } = this;
    const monthKey = this.today.slice(0, 7);
    const month = { key: monthKey, ...monthRange(monthKey) };
    for await (const category of pages((after) =>
      repo.budgetOverruns(ctx.db, month, staleBefore, after),
    )) {
      const account = await this.settingsOf(category.account_id);
      if (!account) continue;
      const money = (minor: number) => formatMoney(minor, category.currency, account.numberFormat);
      await this.deliver(
        { kind: 'BUDGET_OVERRUN', subjectId: category.id, dueKey: monthKey },
        category.account_id,
        account.recipients,
        `Budget exceeded: ${category.name} (${monthKey})`,
        `The budget "${category.name}" is exceeded for ${monthKey}: ` +
          `${money(category.spent)} spent of ${money(category.monthly_limit)} ` +
          `(${money(category.spent - category.monthly_limit)} over).\n`,
      );
    }
  }

  /** The account's mail settings, read once per run; undefined when the account is gone. */
  private async settingsOf(accountId: string): Promise<AccountMailSettings | undefined> {
    if (!this.accounts.has(accountId)) {
      const account = await findAccount(this.ctx.db, accountId);
      this.accounts.set(
        accountId,
        account && {
          dateFormat: account.date_format as DateFormat,
          numberFormat: account.number_format as NumberFormat,
          allowOverride: account.allow_contract_reminder_override === 1,
          recipients: account.reminder_email
            ? [account.reminder_email]
            : await activeAdminEmails(this.ctx.db, accountId),
        },
      );
    }
    return this.accounts.get(accountId);
  }

  /** Claims the delivery, mails it, marks it sent; a failed mail gives the claim back. */
  private async deliver(
    key: repo.DeliveryKey,
    accountId: string,
    to: string[],
    subject: string,
    text: string,
  ): Promise<void> {
    const { ctx, claimedAt, staleBefore } = this;
    if (to.length === 0) {
      ctx.logger.warn({ ...key, accountId }, 'reminder has no recipient; skipped');
      return;
    }
    const recipient = to.join(', ');
    if (!(await repo.claimDelivery(ctx.db, key, accountId, recipient, claimedAt, staleBefore)))
      return;
    try {
      await ctx.mailer.send({ to: recipient, subject: oneLine(subject), text });
    } catch (err) {
      ctx.logger.error({ err, ...key, accountId }, 'reminder mail failed; will retry');
      await repo.releaseClaim(ctx.db, key, claimedAt);
      return;
    }
    await repo.markSent(ctx.db, key, claimedAt, ctx.clock.now().toISOString());
    this.sent++;
  }
}

/** `runReminders` every `intervalMs` (see `JobQueue.every`: once per period across replicas). */
export function startReminderScheduler(ctx: AppContext, intervalMs: number): () => Promise<void> {
  return ctx.jobs.every('reminders', intervalMs, async () => {
    const { sent } = await runReminders(ctx);
    if (sent > 0) ctx.logger.info({ sent }, 'reminders sent');
  });
}
