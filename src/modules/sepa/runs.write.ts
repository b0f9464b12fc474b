import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import type { AppContext } from '../../context.js';
import type { DB } from '../../db/schema.js';
import { appendAudit, type Actor } from '../../shared/audit.js';
import { AppError, type FieldError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import {
  buildPain001,
  buildPain008,
  SepaFileError,
  sepaId,
  type CreditTransferFile,
  type DirectDebitFile,
} from '../../shared/sepa/index.js';
import type { findInvoices } from '../documents/index.js';
import { createPaymentRecord, newPaymentRow } from '../payments/index.js';
import { emitEvent } from '../webhook-endpoints/index.js';
import { presentRun, type PlannedItem } from './runs.presenter.js';
import * as repo from './sepa.repository.js';
import type { Refusal, SepaRun } from './sepa.schemas.js';

type InvoiceRow = Awaited<ReturnType<typeof findInvoices>>[number];

/** An invoice planned into a run: the stored item, the invoice, and the file's entry. */
export interface Planned<T> {
  item: PlannedItem;
  invoice: InvoiceRow;
  entry: T;
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * A new EndToEndId: `KTR` and 20 random Crockford base32 characters (100 bits), unique in
 * practice and by the database's unique index per account; a bank statement line names it.
 */
export function endToEndId(): string {
  const bytes = randomBytes(20);
  let out = 'KTR';
  for (const b of bytes) out += CROCKFORD[b & 31]!;
  return out;
}

/** 422 when nothing of a run can be done, each refused invoice named at its index. */
export function refusalsProblem(
  verb: string,
  invoiceIds: string[] | undefined,
  refused: Refusal[],
): AppError {
  const errors: FieldError[] = refused.map((r) => {
    const index = invoiceIds?.indexOf(r.invoiceId) ?? -1;
    return {
      path: index >= 0 ? `/body/invoiceIds/${index}` : '/body/contractInvoices',
      message: r.message,
      code: r.reason,
    };
  });
  return new AppError('business_rule_violated', `No invoice can be ${verb}.`, {
    errors:
      errors.length > 0
        ? errors
        : [
            {
              path: '/body/contractInvoices',
              message: 'found no invoice to collect',
              code: 'empty',
            },
          ],
  });
}

/** A PENDING payment per item (in the caller's transaction); the items with their payment ids. */
async function recordPayments(
  ctx: AppContext,
  trx: Transaction<DB>,
  actor: Actor,
  run: {
    items: Planned<unknown>[];
    direction: 'INCOMING' | 'OUTGOING';
    paymentMethod: 'DIRECT_DEBIT' | 'BANK_TRANSFER';
  },
  runId: string,
  now: Date,
): Promise<PlannedItem[]> {
  const items: PlannedItem[] = [];
  for (const { item, invoice } of run.items) {
    const payment = newPaymentRow(
      {
        accountId: actor.accountId,
        direction: run.direction,
        links: {
          document_id: invoice.id,
          document_number: invoice.document_number,
          contract_id: invoice.contract_id,
          contract_name: invoice.contract_name,
          partner_id: invoice.partner_id,
          partner_name: invoice.partner_name,
        },
        amountMinor: Number(item.amount_minor),
        currency: 'EUR',
        paymentDate: item.execution_date,
        status: 'PENDING',
        paymentMethod: run.paymentMethod,
        providerPaymentIntentId: null,
        failureReason: null,
        source: 'MANUAL',
        importId: null,
      },
      now,
    );
    await createPaymentRecord(ctx, trx, actor, payment, now, {
      sepaRunId: runId,
      endToEndId: item.end_to_end_id,
    });
    items.push({ ...item, payment_id: payment.id });
  }
  return items;
}

/** The XML of a run's file; a SepaFileError becomes 422 naming the file's field. */
function buildFile(spec: FileSpec): string {
  try {
    return spec.format === 'pain.008' ? buildPain008(spec.build) : buildPain001(spec.build);
  } catch (err) {
    if (!(err instanceof SepaFileError)) throw err;
    throw new AppError(
      'business_rule_violated',
      `The SEPA file cannot be written: ${err.problem}.`,
      {
        errors: [{ path: `/file${err.path}`, message: err.problem, code: 'sepa_file' }],
      },
    );
  }
}

type FileSpec =
  | { format: 'pain.008'; build: DirectDebitFile }
  | { format: 'pain.001'; build: CreditTransferFile };

/**
 * Stores a run in the caller's transaction: the file, the run and its items, a PENDING
 * payment per invoice (incoming for collections, outgoing for transfers; a bank statement
 * line confirms it), the audit event and the webhook event.
 */
export async function writeRun(
  ctx: AppContext,
  trx: Transaction<DB>,
  actor: Actor,
  run: {
    kind: 'COLLECTION' | 'TRANSFER';
    items: Planned<unknown>[];
    direction: 'INCOMING' | 'OUTGOING';
    paymentMethod: 'DIRECT_DEBIT' | 'BANK_TRANSFER';
    file: (messageId: string, createdAt: Date) => FileSpec;
    refused: Refusal[];
    /** A collection's local instrument. */
    scheme?: 'CORE' | 'B2B';
  },
): Promise<SepaRun> {
  const now = ctx.clock.now();
  const at = now.toISOString();
  const id = newId('sepaRun');
  const messageId = sepaId([id]);
  const xml = buildFile(run.file(messageId, now));
  const items = await recordPayments(ctx, trx, actor, run, id, now);
  const total = items.reduce((sum, i) => sum + Number(i.amount_minor), 0);
  const dates = items.map((i) => i.execution_date).sort();
  await repo.insertRun(
    trx,
    {
      id,
      account_id: actor.accountId,
      kind: run.kind,
      message_id: messageId,
      execution_date: dates[0]!,
      currency: 'EUR',
      total_minor: total,
      item_count: items.length,
      file_xml: xml,
      scheme: run.scheme ?? 'CORE',
      version: 1,
      created_at: at,
      updated_at: at,
    },
    items.map((item) => ({
      ...item,
      id: newId('sepaRunItem'),
      account_id: actor.accountId,
      run_id: id,
      skonto: item.skonto ? 1 : 0,
      created_at: at,
    })),
  );
  const answer = presentRun(
    run.kind,
    { id, message_id: messageId, created_at: at },
    items,
    run.refused,
    run.scheme ?? null,
  );
  const kind = run.kind === 'COLLECTION' ? 'collection' : 'transfer';
  await appendAudit(
    trx,
    actor,
    {
      action: `sepa_${kind}.created`,
      resourceType: `sepa_${kind}`,
      resourceId: id,
      changes: {
        messageId,
        total: answer.total,
        invoices: items.map((i) => i.document_id),
        endToEndIds: items.map((i) => i.end_to_end_id),
        refused: run.refused.length,
      },
    },
    now,
  );
  await emitEvent(ctx, trx, actor.accountId, `${kind}.created`, answer);
  return answer;
}
