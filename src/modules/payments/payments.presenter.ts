import { toMajor } from '../../shared/money.js';
import type { PaymentRow } from './payments.repository.js';
import type { Payment } from './payments.schemas.js';

/** Row → response, field by field: nothing reaches the client that is not listed here. */
export function presentPayment(row: PaymentRow): Payment {
  return {
    id: row.id,
    version: row.version,
    direction: row.direction as Payment['direction'],
    documentId: row.document_id,
    documentNumber: row.document_number,
    contractId: row.contract_id,
    contractName: row.contract_name,
    partnerId: row.partner_id,
    partnerName: row.partner_name,
    amount: toMajor(Number(row.amount), row.currency),
    currency: row.currency,
    paymentDate: row.payment_date,
    status: row.status as Payment['status'],
    paymentMethod: row.payment_method as Payment['paymentMethod'],
    providerPaymentIntentId: row.provider_payment_intent_id,
    failureReason: row.failure_reason,
    markedAt: row.marked_at,
    source: row.source as Payment['source'],
    importId: row.import_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
