import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { Actor } from '../../shared/audit.js';
import { addDays, isoDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import { ibanProblem, maskIban } from '../../shared/iban.js';
import { groupCreditTransfers, type PendingCreditTransfer } from '../../shared/sepa/index.js';
import { findAccount, readCompany, type Company } from '../account/index.js';
import { findInvoices, payeeIbanOf } from '../documents/index.js';
import { findPartner } from '../partners/index.js';
import { refusal } from './collections.command.js';
import { openIban, sepaKey } from './mandates.service.js';
import { presentRun, type PlannedItem } from './runs.presenter.js';
import { endToEndId, refusalsProblem, writeRun, type Planned } from './runs.write.js';
import { businessDayOnOrAfter, businessDayOnOrBefore } from './sepa-dates.js';
import * as repo from './sepa.repository.js';
import type { CreateTransfer, Refusal, SepaRun } from './sepa.schemas.js';

type InvoiceRow = Awaited<ReturnType<typeof findInvoices>>[number];

/** The debtor (the account's first bank account): 422 when the company data has none. */
function debtorOf(company: Company): { name: string; iban: string; bic: string | null } {
  const bank = company.bankAccounts[0];
  if (!bank)
    throw new AppError(
      'business_rule_violated',
      'A transfer needs a bank account in the company data.',
      {
        errors: [
          {
            path: '/company/bankAccounts/0',
            message: 'no bank account to pay from',
            code: 'missing',
          },
        ],
      },
    );
  return { name: bank.accountHolder ?? company.legalName, iban: bank.iban, bic: bank.bic };
}

/** `minor × bp / 10 000` rounded half away from zero, in integers. */
function basisPointsOf(minor: number, bp: number): number {
  return Number((BigInt(minor) * BigInt(bp) + 5_000n) / 10_000n);
}

/**
 * The Skonto a transfer may take (docs/sepa.md, "Transfers"): the invoice has `skontoPercent`
 * and `skontoDays`, its deadline (invoice date + days) is today or later, and nothing has been
 * paid or credited on it yet. Answers the discount in minor units and the deadline.
 */
export function skontoOf(
  invoice: Pick<
    InvoiceRow,
    | 'skonto_bp'
    | 'skonto_days'
    | 'creation_date'
    | 'gross_total'
    | 'settled_minor'
    | 'credited_minor'
  >,
  today: string,
): { discountMinor: number; deadline: string } | null {
  if (invoice.skonto_bp === null || invoice.skonto_days === null) return null;
  if (invoice.settled_minor !== 0 || invoice.credited_minor !== 0) return null;
  const deadline = addDays(invoice.creation_date, invoice.skonto_days);
  if (deadline < today) return null;
  return { discountMinor: basisPointsOf(Number(invoice.gross_total), invoice.skonto_bp), deadline };
}

/** What a supplier invoice still asks for: gross less what was paid and credited. */
function openOf(invoice: InvoiceRow): number {
  return Math.max(
    0,
    Number(invoice.gross_total) - Math.abs(invoice.settled_minor) - invoice.credited_minor,
  );
}

/**
 * `POST /v1/sepa/transfers` (docs/sepa.md, "Transfers"): the chosen open FINAL supplier
 * invoices (uploaded), paid to the partner's bank account or else to the e-invoice's payee
 * IBAN, from the account's first bank account, as a pain.001.001.09 file; with `useSkonto`
 * the Skonto amount on or before its deadline. A dry run writes nothing.
 */
export async function createTransfer(
  ctx: AppContext,
  actor: Actor,
  input: CreateTransfer,
): Promise<SepaRun> {
  const today = isoDate(ctx.clock.now());
  if (input.executionDate !== undefined && input.executionDate < today)
    throw new AppError('validation_failed', 'The execution date is in the past.', {
      errors: [
        { path: '/body/executionDate', message: 'must be today or later', code: 'invalid_value' },
      ],
    });
  const plan = (db: Executor) => planTransfer(ctx, db, actor.accountId, input, today);
  if (input.dryRun) {
    const { items, refused } = await plan(ctx.db);
    return presentRun(
      'TRANSFER',
      null,
      items.map((p) => p.item),
      refused,
    );
  }
  return ctx.db.transaction().execute(async (trx) => {
    const { items, refused, debtor, name } = await plan(trx);
    if (items.length === 0) throw refusalsProblem('paid', input.invoiceIds, refused);
    return writeRun(ctx, trx, actor, {
      kind: 'TRANSFER',
      items,
      direction: 'OUTGOING',
      paymentMethod: 'BANK_TRANSFER',
      file: (messageId, createdAt) => ({
        format: 'pain.001',
        build: {
          messageId,
          createdAt,
          initiatingPartyName: name,
          debtor,
          batches: groupCreditTransfers(
            items.map((p) => p.entry),
            messageId,
          ),
        },
      }),
      refused,
    });
  });
}

async function planTransfer(
  ctx: AppContext,
  db: Executor,
  accountId: string,
  input: CreateTransfer,
  today: string,
) {
  const account = await findAccount(db, accountId);
  if (!account) throw new AppError('not_found', 'Account not found.');
  const company = readCompany(account);
  const debtor = debtorOf(company);
  const ids = input.invoiceIds;
  const invoices = new Map((await findInvoices(db, accountId, ids, today)).map((r) => [r.id, r]));
  const inRuns = await repo.documentsInRuns(db, accountId, 'TRANSFER', ids);
  const partnerIds = [...invoices.values()]
    .map((r) => r.partner_id)
    .filter((p): p is string => p !== null);
  const accounts = new Map(
    (await repo.bankAccountsOf(db, accountId, partnerIds)).map((a) => [a.partner_id, a]),
  );
  const key = sepaKey(ctx);
  const standard = businessDayOnOrAfter(input.executionDate ?? today);
  const items: Planned<PendingCreditTransfer>[] = [];
  const refused: Refusal[] = [];

  for (const id of ids) {
    const invoice = invoices.get(id);
    const reason = payable(invoice, inRuns);
    if (reason) {
      refused.push(refusal(id, reason));
      continue;
    }
    const row = invoice!;
    const stored = row.partner_id === null ? undefined : accounts.get(row.partner_id);
    const payee = await payeeOf(db, accountId, row, stored, key);
    if (!payee) {
      refused.push(
        refusal(
          id,
          'no_bank_account',
          'Neither the partner nor the e-invoice names the payee’s IBAN.',
        ),
      );
      continue;
    }
    const skonto = input.useSkonto ? skontoOf(row, today) : null;
    const amountMinor = openOf(row) - (skonto?.discountMinor ?? 0);
    // With Skonto: on or before its deadline (the last business day before it, not before today).
    let executionDate = standard;
    if (skonto && executionDate > skonto.deadline) {
      const latest = businessDayOnOrBefore(skonto.deadline);
      executionDate = latest >= today ? latest : today;
    }
    const e2e = endToEndId();
    const item: PlannedItem = {
      document_id: row.id,
      document_number: row.document_number,
      partner_id: row.partner_id,
      mandate_id: null,
      mandate_reference: null,
      end_to_end_id: e2e,
      amount_minor: amountMinor,
      sequence_type: null,
      execution_date: executionDate,
      iban_masked: maskIban(payee.iban),
      payment_id: null,
      skonto: skonto !== null,
    };
    items.push({
      item,
      invoice: row,
      entry: {
        endToEndId: e2e,
        amountMinor,
        creditor: payee,
        remittance: row.document_number ?? row.name,
        executionDate,
      },
    });
  }
  return { items, refused, debtor, name: company.legalName };
}

/** Why a supplier invoice cannot be paid by transfer (before its payee is looked at). */
function payable(row: InvoiceRow | undefined, inRuns: Set<string>): Refusal['reason'] | undefined {
  if (!row) return 'not_found';
  if (row.invoice_type !== 'INVOICE') return 'not_an_invoice';
  if (row.source !== 'UPLOADED') return 'not_a_supplier_invoice';
  if (row.status !== 'FINAL') return 'not_final';
  if (row.currency !== 'EUR') return 'not_eur';
  if (row.cancelled_by_document_id !== null || openOf(row) <= 0) return 'not_open';
  if (inRuns.has(row.id)) return 'already_in_run';
  return undefined;
}

/**
 * Whom a supplier invoice is paid to: the partner's bank account, else the payee IBAN (BT-84)
 * its e-invoice named; null when neither is there.
 */
async function payeeOf(
  db: Executor,
  accountId: string,
  row: InvoiceRow,
  stored: repo.BankAccountRow | undefined,
  key: Buffer,
): Promise<{ iban: string; name: string; bic: string | null } | null> {
  if (stored)
    return { iban: openIban(key, stored.iban_sealed), name: stored.holder_name, bic: stored.bic };
  const fromEInvoice = payeeIbanOf(row);
  if (!fromEInvoice || ibanProblem(fromEInvoice)) return null;
  return { iban: fromEInvoice, name: await payeeName(db, accountId, row), bic: null };
}

async function payeeName(db: Executor, accountId: string, row: InvoiceRow): Promise<string> {
  const partner = row.partner_id ? await findPartner(db, accountId, row.partner_id) : undefined;
  return partner?.name ?? row.partner_name ?? row.name;
}
