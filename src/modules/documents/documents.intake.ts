import type { Executor } from '../../db/records.js';
import { searchText } from '../../http/pagination.js';
import { normalizeVatId } from '../../shared/vat-id.js';
import type { EInvoice } from '../../shared/einvoice/index.js';
import { findAccount, readCompany } from '../account/index.js';
import { matchPartner } from '../partners/index.js';
import * as repo from './documents.repository.js';

/**
 * Uploaded invoices that carry an e-invoice (issue 11): the document takes its number, dates,
 * currency and totals from the e-invoice and its counterparty from the account's partners, and
 * a refused e-invoice says why (`eInvoiceProblems`).
 */

/** Why an embedded or uploaded e-invoice was refused, as the API answers it. */
export interface EInvoiceProblem {
  code: string;
  message: string;
  /** The EN 16931 / XRechnung / syntax rule ids the message names, e.g. `BR-CO-16`. */
  ruleIds: string[];
}

const RULE_ID = /\b(?:BR-(?:[A-Z]+-)*[A-Z0-9]+|(?:CII|UBL)-[A-Z]+-\d+|PEPPOL-EN16931-R\d+)\b/g;

/** The problem of a refused e-invoice, with the rule ids its message names. */
export function eInvoiceProblem(code: string, message: string): EInvoiceProblem {
  return { code, message, ruleIds: [...new Set(message.match(RULE_ID) ?? [])] };
}

/**
 * The values a DRAFT UPLOADED invoice takes from its e-invoice: number (unless the account
 * already uses it for another invoice), issue and due date, currency, totals, invoice type and
 * the partner. The counterparty is the seller, or the buyer when the seller is the account
 * itself (an own invoice uploaded).
 */
export async function intakeValues(
  db: Executor,
  row: repo.DocumentRow,
  e: EInvoice,
): Promise<Partial<repo.DocumentRow>> {
  if (row.document_type !== 'INVOICE' || row.source !== 'UPLOADED' || row.status !== 'DRAFT')
    return {};
  const account = await findAccount(db, row.account_id);
  const ownVat = account ? readCompany(account).vatId : null;
  const own =
    ownVat !== null && e.seller.vatId !== undefined && normalizeVatId(e.seller.vatId) === ownVat;
  const counterparty = own ? e.buyer : e.seller;
  const values: Partial<repo.DocumentRow> = {
    creation_date: e.issueDate,
    due_date: e.dueDate ?? row.due_date,
    currency: e.currency,
    net_total: e.totals.netMinor,
    tax_total: e.totals.taxMinor,
    gross_total: e.totals.grossMinor,
    invoice_type: e.kind,
  };
  const number = row.document_number ?? e.documentNumber;
  if (
    row.document_number === null &&
    !(await repo.numberTaken(db, row.account_id, row.document_type, number, row.id))
  )
    values.document_number = number;
  if (row.partner_id === null) {
    const partner = await matchPartner(db, row.account_id, {
      ...(counterparty.vatId ? { vatId: counterparty.vatId } : {}),
      ...(!own && e.paymentIban ? { iban: e.paymentIban } : {}),
      name: counterparty.name,
    });
    values.partner_id = partner?.id ?? null;
    values.partner_name = partner?.name ?? row.partner_name ?? counterparty.name;
  }
  values.search_name = searchText(
    `${row.name} ${values.document_number ?? row.document_number ?? ''}`.trim(),
  );
  return values;
}
