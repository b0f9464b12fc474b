import { toMajor } from '../../shared/money.js';
import type { RunItemRow, RunRow } from './sepa.repository.js';
import type { Refusal, RunItem, SepaRun } from './sepa.schemas.js';

/** A planned item: the stored row's fields before the run exists. */
export type PlannedItem = Omit<
  RunItemRow,
  'id' | 'account_id' | 'run_id' | 'created_at' | 'skonto' | 'returned_on' | 'return_reason'
> & {
  skonto: boolean;
};

/** A stored item as planned. */
export function plannedOf(row: RunItemRow): PlannedItem {
  const { id: _id, account_id: _a, run_id: _r, created_at: _c, ...rest } = row;
  return { ...rest, skonto: row.skonto === 1 };
}

export function presentItem(item: PlannedItem): RunItem {
  return {
    invoiceId: item.document_id,
    documentNumber: item.document_number,
    partnerId: item.partner_id,
    mandateId: item.mandate_id,
    mandateReference: item.mandate_reference,
    endToEndId: item.end_to_end_id,
    amount: toMajor(Number(item.amount_minor), 'EUR'),
    sequenceType: item.sequence_type as RunItem['sequenceType'],
    executionDate: item.execution_date,
    iban: item.iban_masked,
    skonto: item.skonto,
    paymentId: item.payment_id,
  };
}

/** A run as answered: a dry run has no id, message id or creation time. */
export function presentRun(
  kind: 'COLLECTION' | 'TRANSFER',
  run: Pick<RunRow, 'id' | 'message_id' | 'created_at'> | null,
  items: PlannedItem[],
  refused: Refusal[],
  scheme: SepaRun['scheme'] = null,
): SepaRun {
  const total = items.reduce((sum, i) => sum + Number(i.amount_minor), 0);
  return {
    id: run?.id ?? null,
    kind,
    dryRun: run === null,
    scheme: kind === 'COLLECTION' ? scheme : null,
    messageId: run?.message_id ?? null,
    currency: 'EUR',
    total: toMajor(total, 'EUR'),
    items: items.map(presentItem),
    refused,
    createdAt: run?.created_at ?? null,
  };
}
