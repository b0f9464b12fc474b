import type { Executor } from '../../db/records.js';
import { AppError } from '../../shared/errors.js';
import { invalidField } from '../../http/field-rules.js';
import { findContract, type ContractRow } from '../contracts/index.js';
import { findDocument } from '../documents/index.js';
import { findPartner } from '../partners/index.js';

/**
 * A payment's links as the client (or the provider) names them. `undefined` leaves a link open
 * for its default (partner and contract from the document, partner from the contract); `null`
 * says there is none.
 */
export interface LinkInput {
  documentId?: string | null;
  documentNumber?: string | null;
  contractId?: string | null;
  contractName?: string | null;
  partnerId?: string | null;
  partnerName?: string | null;
}

/** The resolved links as stored, plus the linked document's currency. */
export interface Links {
  document_id: string | null;
  document_number: string | null;
  contract_id: string | null;
  contract_name: string | null;
  partner_id: string | null;
  partner_name: string | null;
  documentCurrency: string | null;
  /** The document is a credit note: a payment of it is a refund (OUTGOING by default). */
  documentRefund: boolean;
}

/** Where a field sits in the request, for problem paths (`/body/partnerId`). */
export type FieldPath = (field: string) => string;
export const bodyPath: FieldPath = (field) => `/body/${field}`;

function missing(path: string, what: string, id: string): AppError {
  return new AppError('reference_not_found', `${what} ${id} does not exist in this account.`, {
    errors: [{ path, message: `${what} not found`, code: 'reference_not_found' }],
  });
}

/**
 * Checks every referenced record in the account (422 `reference_not_found` at the field) and
 * fills the names from them; the client's names count only where there is no id (decisions §6).
 */
export async function resolveLinks(
  db: Executor,
  accountId: string,
  input: LinkInput,
  path: FieldPath = bodyPath,
): Promise<Links> {
  const document = input.documentId
    ? await findDocument(db, accountId, input.documentId)
    : undefined;
  if (input.documentId && !document)
    throw missing(path('documentId'), 'Document', input.documentId);

  let contractId = input.contractId;
  if (contractId === undefined) contractId = document?.contract_id ?? null;
  let contract: ContractRow | undefined;
  if (contractId) {
    contract = await findContract(db, accountId, contractId);
    if (!contract) throw missing(path('contractId'), 'Contract', contractId);
  }

  let partnerId = input.partnerId;
  if (partnerId === undefined) partnerId = document?.partner_id ?? contract?.partner_id ?? null;
  let partnerName: string | null;
  if (partnerId) {
    const partner = await findPartner(db, accountId, partnerId);
    if (!partner) throw missing(path('partnerId'), 'Partner', partnerId);
    partnerName = partner.name;
  } else {
    // A partner without a record: the client's name, else the document's.
    partnerName =
      input.partnerName ?? (input.partnerId === undefined ? document?.partner_name : null) ?? null;
  }

  return {
    document_id: document?.id ?? null,
    document_number: document ? document.document_number : (input.documentNumber ?? null),
    contract_id: contract?.id ?? null,
    contract_name: contract ? contract.name : (input.contractName ?? null),
    partner_id: partnerId || null,
    partner_name: partnerName,
    documentCurrency: document?.currency ?? null,
    documentRefund: document?.invoice_type === 'CREDIT_NOTE',
  };
}

/** A payment of a document is in the document's currency (422 otherwise). */
export function assertDocumentCurrency(
  links: Pick<Links, 'documentCurrency' | 'document_id'>,
  currency: string,
  path: FieldPath = bodyPath,
): void {
  if (links.documentCurrency !== null && links.documentCurrency !== currency)
    throw new AppError(
      'business_rule_violated',
      `Document ${links.document_id ?? ''} is in ${links.documentCurrency}; a payment of it must be too.`,
      {
        errors: [
          {
            path: path('currency'),
            message: `must be the document's currency ${links.documentCurrency}`,
            code: 'currency_mismatch',
          },
        ],
      },
    );
}

/** Every payment names who paid or was paid: a partner record or at least a name. */
export function assertHasPartner(
  links: Pick<Links, 'partner_id' | 'partner_name'>,
  path: FieldPath = bodyPath,
): void {
  if (links.partner_id === null && links.partner_name === null)
    throw invalidField(
      path('partnerId'),
      'is required: send partnerId or partnerName, or link a document or contract with a partner',
      'required',
    );
}
