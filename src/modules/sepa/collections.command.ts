import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { DB } from '../../db/schema.js';
import type { Actor } from '../../shared/audit.js';
import { isoDate } from '../../shared/dates.js';
import { AppError } from '../../shared/errors.js';
import {
  debtorBankChanged,
  groupDirectDebits,
  type MandateAmendment,
  type PendingDirectDebit,
} from '../../shared/sepa/index.js';
import { findAccount, readCompany, type Company } from '../account/index.js';
import { directDebitContractIds } from '../contracts/index.js';
import { findInvoices, openMinor, unpaidInvoiceIdsOfContracts } from '../documents/index.js';
import { nextSequenceType, openIban, sepaKey } from './mandates.service.js';
import { presentRun, type PlannedItem } from './runs.presenter.js';
import { endToEndId, refusalsProblem, writeRun, type Planned } from './runs.write.js';
import { earliestCollectionDate, isBusinessDay } from './sepa-dates.js';
import { readSepaSettings } from './sepa-settings.service.js';
import * as repo from './sepa.repository.js';
import type { CreateCollection, Refusal, Scheme, SepaRun } from './sepa.schemas.js';

type InvoiceRow = Awaited<ReturnType<typeof findInvoices>>[number];

/** What a mandate's sequence state becomes after a collection with its next SeqTp. */
const AFTER: Record<string, string> = {
  FIRST: 'RECURRING',
  RECURRING: 'RECURRING',
  FINAL: 'COMPLETED',
  ONE_OFF: 'COMPLETED',
};

const MESSAGES: Record<Refusal['reason'], string> = {
  not_found: 'No invoice with this id in the account.',
  not_an_invoice:
    'Only invoices Kontor issued can be collected (not credit notes or uploaded bills).',
  not_final: 'The invoice is a DRAFT.',
  not_open: 'Nothing is open on the invoice (paid, credited or cancelled).',
  not_eur: 'SEPA collects euros only.',
  no_partner: 'The invoice has no partner record to hold a mandate.',
  no_mandate: 'The partner has no mandate.',
  mandate_revoked: 'The partner’s mandate is revoked.',
  mandate_completed: 'The partner’s mandate was used for its final or one-off collection.',
  already_in_run: 'The invoice is in a collection already.',
  date_too_early:
    'The requested date is before the earliest allowed collection date of the invoice.',
  no_creditor_id: 'The company data has no SEPA creditor identifier.',
  no_bank_account: 'No bank account.',
  not_a_supplier_invoice: 'Only uploaded supplier invoices can be paid by transfer.',
  not_direct_debit: 'The invoice is not paid by direct debit.',
  other_scheme: 'The partner’s mandate is of the other scheme; collect it in a run of that scheme.',
};

export const refusal = (
  invoiceId: string,
  reason: Refusal['reason'],
  message?: string,
): Refusal => ({
  invoiceId,
  reason,
  message: message ?? MESSAGES[reason],
});

/** The creditor: 422 when the company data has no creditor id or no bank account. */
function creditorOf(company: Company): {
  name: string;
  iban: string;
  bic: string | null;
  creditorId: string;
} {
  const bank = company.bankAccounts[0];
  const errors = [
    ...(company.creditorId === null
      ? [
          {
            path: '/company/creditorId',
            message: 'is not set (PUT /v1/account/company)',
            code: 'missing',
          },
        ]
      : []),
    ...(bank === undefined
      ? [
          {
            path: '/company/bankAccounts/0',
            message: 'no bank account to collect into',
            code: 'missing',
          },
        ]
      : []),
  ];
  if (errors.length > 0 || !bank || company.creditorId === null)
    throw new AppError(
      'business_rule_violated',
      'A collection needs the creditor identifier and a bank account in the company data.',
      { errors },
    );
  return {
    name: bank.accountHolder ?? company.legalName,
    iban: bank.iban,
    bic: bank.bic,
    creditorId: company.creditorId,
  };
}

/**
 * `POST /v1/sepa/collections` (docs/sepa.md, "Collections"): the chosen open FINAL invoices
 * (and, with `contractInvoices`, those of direct-debit contracts) are collected on their
 * partners' active mandates. A dry run answers what would be collected and what is refused;
 * a real run, in one transaction, stores the run with its pain.008 file and one item per
 * invoice, records a PENDING incoming payment per invoice, moves each mandate's sequence
 * state, and writes the audit event and `collection.created`.
 */
export async function createCollection(
  ctx: AppContext,
  actor: Actor,
  input: CreateCollection,
): Promise<SepaRun> {
  if (!input.invoiceIds && !input.contractInvoices)
    throw new AppError('validation_failed', 'Name invoices or set contractInvoices.', {
      errors: [
        {
          path: '/body/invoiceIds',
          message: 'is required without contractInvoices',
          code: 'required',
        },
      ],
    });
  const today = isoDate(ctx.clock.now());
  if (input.collectionDate !== undefined) {
    const path = '/body/collectionDate';
    if (!isBusinessDay(input.collectionDate))
      throw new AppError(
        'validation_failed',
        'The collection date is not a TARGET2 business day.',
        {
          errors: [{ path, message: 'is not a TARGET2 business day', code: 'invalid_value' }],
        },
      );
    if (input.collectionDate <= today)
      throw new AppError('validation_failed', 'The collection date must be after today.', {
        errors: [{ path, message: 'must be after today', code: 'invalid_value' }],
      });
  }
  const plan = (db: Executor) => planCollection(ctx, db, actor.accountId, input, today);
  if (input.dryRun) {
    const { items, refused, scheme } = await plan(ctx.db);
    return presentRun(
      'COLLECTION',
      null,
      items.map((p) => p.item),
      refused,
      scheme,
    );
  }
  return ctx.db.transaction().execute(async (trx) => {
    const planned = await plan(trx);
    if (planned.items.length === 0)
      throw refusalsProblem('collected', input.invoiceIds, planned.refused);
    return writeCollection(ctx, trx, actor, planned);
  });
}

interface CollectionPlan {
  creditor: ReturnType<typeof creditorOf>;
  initiatingPartyName: string;
  items: Planned<PendingDirectDebit>[];
  refused: Refusal[];
  /** Mandate id → its state before the run and after it. */
  mandates: Map<string, { from: string; to: string; collectionDate: string }>;
  scheme: Scheme;
  /** The pending amendments each carrying item clears, by its EndToEndId. */
  carried: { endToEndId: string; amendmentIds: string[] }[];
}

/** The invoices, which of them are in a collection already, and the partners' mandates. */
async function loadCollection(db: Executor, accountId: string, ids: string[], today: string) {
  const invoices = new Map((await findInvoices(db, accountId, ids, today)).map((r) => [r.id, r]));
  const inRuns = await repo.documentsInRuns(db, accountId, 'COLLECTION', ids);
  const partnerIds = [...invoices.values()]
    .map((r) => r.partner_id)
    .filter((p): p is string => p !== null);
  const mandatesOf = new Map<string, repo.MandateRow[]>();
  for (const m of await repo.activeMandates(db, accountId, partnerIds))
    mandatesOf.set(m.partner_id, [...(mandatesOf.get(m.partner_id) ?? []), m]);
  return { invoices, inRuns, mandatesOf };
}

async function planCollection(
  ctx: AppContext,
  db: Executor,
  accountId: string,
  input: CreateCollection,
  today: string,
): Promise<CollectionPlan> {
  const account = await findAccount(db, accountId);
  if (!account) throw new AppError('not_found', 'Account not found.');
  const company = readCompany(account);
  const creditor = creditorOf(company);
  const settings = await readSepaSettings(db, accountId);
  const contractIds = await directDebitContractIds(db, accountId);
  const directDebitContracts = new Set(contractIds);
  const ids = [
    ...new Set([
      ...(input.invoiceIds ?? []),
      ...(input.contractInvoices
        ? await unpaidInvoiceIdsOfContracts(db, accountId, contractIds)
        : []),
    ]),
  ];
  const { invoices, inRuns, mandatesOf } = await loadCollection(db, accountId, ids, today);
  const key = sepaKey(ctx);
  const scheme = input.scheme ?? 'CORE';
  // Sequence states as the run moves them, mandate by mandate.
  const states = new Map<string, string>();
  const mandates = new Map<string, { from: string; to: string; collectionDate: string }>();
  const items: Planned<PendingDirectDebit>[] = [];
  const refused: Refusal[] = [];

  for (const id of ids) {
    const row = invoices.get(id);
    const reason = collectable(row, inRuns);
    if (reason) {
      refused.push(refusal(id, reason));
      continue;
    }
    const invoice = row!;
    const mandate = mandateFor(mandatesOf.get(invoice.partner_id!) ?? [], states, scheme);
    if (typeof mandate === 'string') {
      refused.push(refusal(id, mandate));
      continue;
    }
    const state = states.get(mandate.id) ?? mandate.sequence_state;
    const sequenceType = nextSequenceType({ ...mandate, sequence_state: state })!;
    const earliest = earliestCollectionDate({
      today,
      dueDate: invoice.due_date,
      invoiceDate: invoice.creation_date,
      notifiedOn: notifiedOn(invoice, directDebitContracts, today),
      preNotificationDays: settings.preNotificationDays,
      scheme,
    });
    const collectionDate = input.collectionDate ?? earliest;
    if (collectionDate < earliest) {
      refused.push(
        refusal(id, 'date_too_early', `The earliest allowed collection date is ${earliest}.`),
      );
      continue;
    }
    states.set(mandate.id, AFTER[state]!);
    const before = mandates.get(mandate.id);
    const last = before && before.collectionDate > collectionDate ? before.collectionDate : null;
    mandates.set(mandate.id, {
      from: before?.from ?? mandate.sequence_state,
      to: AFTER[state]!,
      collectionDate: last ?? collectionDate,
    });
    items.push(plannedDebit(invoice, mandate, sequenceType, collectionDate, key));
  }
  const carried = await attachAmendments(db, accountId, items, mandatesOf, key);
  return {
    creditor,
    initiatingPartyName: company.legalName,
    items,
    refused,
    mandates,
    scheme,
    carried,
  };
}

/**
 * The pending amendments of the run's mandates (docs/sepa-domain.md, "Amendments"): each
 * mandate's earliest item carries what changed since the bank last saw the mandate — the
 * reference before the oldest pending change as `OrgnlMndtId` when the reference differs now,
 * the IBAN before it as `OrgnlDbtrAcct` when the account moved within the bank, or `SMNDA`
 * when the debtor changed banks. The changes are cleared by that item (once written).
 */
async function attachAmendments(
  db: Executor,
  accountId: string,
  items: Planned<PendingDirectDebit>[],
  mandatesOf: Map<string, repo.MandateRow[]>,
  key: Buffer,
): Promise<CollectionPlan['carried']> {
  const first = new Map<string, Planned<PendingDirectDebit>>();
  for (const planned of items) {
    const id = planned.item.mandate_id!;
    const seen = first.get(id);
    if (!seen || planned.item.execution_date < seen.item.execution_date) first.set(id, planned);
  }
  const pending = await repo.pendingAmendments(db, accountId, [...first.keys()]);
  const mandates = new Map([...mandatesOf.values()].flat().map((m) => [m.id, m]));
  const carried: CollectionPlan['carried'] = [];
  for (const [mandateId, planned] of first) {
    const rows = pending.filter((a) => a.mandate_id === mandateId);
    if (rows.length === 0) continue;
    const amendment = amendmentOf(rows[0]!, mandates.get(mandateId)!, key);
    if (amendment) planned.entry.amendment = amendment;
    carried.push({ endToEndId: planned.item.end_to_end_id, amendmentIds: rows.map((r) => r.id) });
  }
  return carried;
}

/** What the bank has to learn of, from the oldest pending change; null when nothing differs. */
function amendmentOf(
  oldest: repo.AmendmentRow,
  mandate: repo.MandateRow,
  key: Buffer,
): MandateAmendment | null {
  const out: MandateAmendment = {};
  if (oldest.original_reference !== mandate.reference)
    out.originalMandateId = oldest.original_reference;
  const before = openIban(key, oldest.original_iban_sealed);
  const now = openIban(key, mandate.iban_sealed);
  if (before !== now) {
    if (
      debtorBankChanged({ iban: before, bic: oldest.original_bic }, { iban: now, bic: mandate.bic })
    )
      out.debtorBankChanged = true;
    else out.originalDebtorIban = before;
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** An invoice's item and its debit in the file. */
function plannedDebit(
  invoice: InvoiceRow,
  mandate: repo.MandateRow,
  sequenceType: NonNullable<ReturnType<typeof nextSequenceType>>,
  collectionDate: string,
  key: Buffer,
): Planned<PendingDirectDebit> {
  const amountMinor = openMinor(invoice)!;
  const e2e = endToEndId();
  const item: PlannedItem = {
    document_id: invoice.id,
    document_number: invoice.document_number,
    partner_id: invoice.partner_id,
    mandate_id: mandate.id,
    mandate_reference: mandate.reference,
    end_to_end_id: e2e,
    amount_minor: amountMinor,
    sequence_type: sequenceType,
    execution_date: collectionDate,
    iban_masked: mandate.iban_masked,
    payment_id: null,
    skonto: false,
  };
  return {
    item,
    invoice,
    entry: {
      endToEndId: e2e,
      amountMinor,
      mandateId: mandate.reference,
      mandateSignedOn: mandate.signed_on,
      debtor: {
        name: mandate.debtor_name,
        iban: openIban(key, mandate.iban_sealed),
        bic: mandate.bic,
      },
      remittance: remittanceOf(invoice),
      sequenceType,
      collectionDate,
    },
  };
}

/**
 * The partner's newest mandate the run can collect on (of the run's scheme, with a next
 * sequence type as the run has moved it so far), else the reason there is none.
 */
function mandateFor(
  candidates: repo.MandateRow[],
  states: Map<string, string>,
  scheme: Scheme,
): repo.MandateRow | Refusal['reason'] {
  const usable = candidates.filter(
    (m) =>
      nextSequenceType({ ...m, sequence_state: states.get(m.id) ?? m.sequence_state }) !== null,
  );
  const mandate = usable.find((m) => m.scheme === scheme);
  if (mandate) return mandate;
  return usable.length > 0 ? 'other_scheme' : mandateRefusal(candidates);
}

/** The reason an invoice's partner has no mandate to collect on. */
function mandateRefusal(candidates: repo.MandateRow[]): Refusal['reason'] {
  if (candidates.length === 0) return 'no_mandate';
  return candidates.some((m) => m.revoked_at === null) ? 'mandate_completed' : 'mandate_revoked';
}

/** Why an invoice cannot be collected (before its mandate is looked at), or undefined. */
function collectable(
  row: InvoiceRow | undefined,
  inRuns: Set<string>,
): Refusal['reason'] | undefined {
  if (!row) return 'not_found';
  if (row.invoice_type !== 'INVOICE' || row.source !== 'GENERATED') return 'not_an_invoice';
  if (row.status !== 'FINAL') return 'not_final';
  if (row.currency !== 'EUR') return 'not_eur';
  if (row.cancelled_by_document_id !== null || (openMinor(row) ?? 0) <= 0) return 'not_open';
  if (inRuns.has(row.id)) return 'already_in_run';
  if (row.partner_id === null) return 'no_partner';
  return undefined;
}

/**
 * When the debtor learnt of the collection: an invoice of a direct-debit contract carries the
 * pre-notification, so the day it became FINAL; any other invoice is notified by this run.
 */
function notifiedOn(invoice: InvoiceRow, directDebitContracts: Set<string>, today: string): string {
  if (
    invoice.contract_id !== null &&
    directDebitContracts.has(invoice.contract_id) &&
    invoice.finalized_at
  )
    return invoice.finalized_at.slice(0, 10);
  return today;
}

export function remittanceOf(invoice: Pick<InvoiceRow, 'document_number' | 'name'>): string {
  return invoice.document_number ? `Rechnung ${invoice.document_number}` : invoice.name;
}

async function writeCollection(
  ctx: AppContext,
  trx: Transaction<DB>,
  actor: Actor,
  plan: CollectionPlan,
): Promise<SepaRun> {
  for (const [id, step] of plan.mandates) {
    const moved = await repo.advanceMandate(trx, actor.accountId, id, {
      ...step,
      at: ctx.clock.now().toISOString(),
    });
    if (!moved)
      throw new AppError(
        'state_conflict',
        'A mandate of the run was changed meanwhile; run it again.',
      );
  }
  for (const { endToEndId, amendmentIds } of plan.carried) {
    const cleared = await repo.carryAmendments(trx, actor.accountId, amendmentIds, endToEndId);
    if (cleared !== amendmentIds.length)
      throw new AppError(
        'state_conflict',
        'A mandate amendment of the run was carried by another run meanwhile; run it again.',
      );
  }
  return writeRun(ctx, trx, actor, {
    kind: 'COLLECTION',
    items: plan.items,
    direction: 'INCOMING',
    paymentMethod: 'DIRECT_DEBIT',
    file: (messageId, createdAt) => ({
      format: 'pain.008',
      build: {
        messageId,
        createdAt,
        initiatingPartyName: plan.initiatingPartyName,
        creditor: plan.creditor,
        batches: groupDirectDebits(
          plan.items.map((p) => p.entry),
          messageId,
          plan.scheme,
        ),
      },
    }),
    refused: plan.refused,
    scheme: plan.scheme,
  });
}
