import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { addDays, isoDate } from '../../shared/dates.js';
import type { FieldError } from '../../shared/errors.js';
import { notFound } from '../../shared/errors.js';
import { findAccount, readCompany } from '../account/index.js';
import { findPartner } from '../partners/index.js';
import { hasTaxRates } from '../tax-rates/index.js';
import type {
  FinalizeCheck,
  InvoiceProblem,
  InvoiceReadiness,
} from './documents.checks.schemas.js';
import * as repo from './documents.repository.js';
import {
  bankAccountProblems,
  finalizeProblems,
  salesDocumentProblems,
  fixAtOf,
  freezeParties,
  sellerProblems,
  type FrozenParties,
} from './invoice-rules.js';
import { numberFormats, provisionalNumber } from './numbering.js';

/**
 * The checks a client may ask for before it writes (docs/invoicing.md §4): the finalize checks
 * of one draft and the account's setup checklist. Both run the rules of `invoice-rules.ts`
 * with the data finalizing would use, so what they answer is what finalizing would refuse.
 */

/**
 * What finalizing stores on a GENERATED invoice besides its number: the frozen seller and
 * buyer (a credit note keeps its invoice's), the buyer reference from the partner and the due
 * date from the payment term. The finalize checks judge the row with these values.
 */
export async function invoiceAtFinalize(
  db: Executor,
  row: repo.DocumentRow,
): Promise<{ values: Partial<repo.DocumentRow>; parties: FrozenParties }> {
  const account = await findAccount(db, row.account_id);
  if (!account) throw notFound('Account');
  const company = readCompany(account);
  const partner = row.partner_id
    ? await findPartner(db, row.account_id, row.partner_id)
    : undefined;
  const parties =
    row.invoice_type === 'CREDIT_NOTE' && row.einvoice_parties
      ? (JSON.parse(row.einvoice_parties) as FrozenParties)
      : freezeParties(company, partner, row.partner_name);
  const values: Partial<repo.DocumentRow> = {
    einvoice_parties: JSON.stringify(parties),
    buyer_reference: row.buyer_reference ?? partner?.buyer_reference ?? null,
  };
  if (row.due_date === null && row.invoice_type !== 'CREDIT_NOTE')
    values.due_date = addDays(row.creation_date, company.defaultPaymentTermDays ?? 14);
  return { values, parties };
}

/** A finalize problem with where the user fixes it. */
const located = (e: FieldError): InvoiceProblem => ({
  path: e.path,
  message: e.message,
  code: e.code,
  fixAt: fixAtOf(e.path),
});

/**
 * `GET /v1/documents/{documentId}/finalize-check`: the 422 `invoice_incomplete` finalizing
 * would answer now, as data. Only GENERATED invoices are checked (as finalizing does); a FINAL
 * document answers `finalizable: false` without problems.
 */
export async function finalizeCheck(
  ctx: AppContext,
  accountId: string,
  id: string,
): Promise<FinalizeCheck> {
  const row = await repo.findDocument(ctx.db, accountId, id);
  if (!row) throw notFound('Document');
  if (row.status === 'FINAL') return { status: 'FINAL', finalizable: false, problems: [] };
  // Quotes and order confirmations: the checks their finalize runs (seller, buyer, a line).
  if (row.document_type === 'QUOTE' || row.document_type === 'ORDER_CONFIRMATION') {
    const { parties } = await invoiceAtFinalize(ctx.db, row);
    const problems = salesDocumentProblems(row, parties).map(located);
    return { status: 'DRAFT', finalizable: problems.length === 0, problems };
  }
  if (row.document_type !== 'INVOICE' || row.source !== 'GENERATED')
    return { status: 'DRAFT', finalizable: true, problems: [] };
  const { values, parties } = await invoiceAtFinalize(ctx.db, row);
  const problems = finalizeProblems({ ...row, ...values }, parties).map(located);
  return { status: 'DRAFT', finalizable: problems.length === 0, problems };
}

/**
 * `GET /v1/account/invoice-readiness`: the account's part of the finalize checks (seller
 * data, bank account), whether it has tax rates, its logo (optional) and how invoices are
 * numbered (always set: the account's formats or the defaults), in a fixed order.
 */
export async function invoiceReadiness(
  ctx: AppContext,
  accountId: string,
): Promise<InvoiceReadiness> {
  const account = await findAccount(ctx.db, accountId);
  if (!account) throw notFound('Account');
  const { version: _v, updatedAt: _u, ...seller } = readCompany(account);
  const company = sellerProblems(seller);
  const bank = bankAccountProblems(seller);
  const rates = await hasTaxRates(ctx.db, accountId);
  const formats = await numberFormats(ctx.db, accountId);
  const next = await provisionalNumber(
    ctx.db,
    {
      account_id: accountId,
      document_type: 'INVOICE',
      invoice_type: 'INVOICE',
      creation_date: isoDate(ctx.clock.now()),
    },
    formats,
  );
  const items: InvoiceReadiness['items'] = [
    { key: 'company', ...step(company), required: true, fixAt: 'company', detail: null },
    { key: 'bankAccount', ...step(bank), required: true, fixAt: 'bankAccount', detail: null },
    {
      key: 'logo',
      done: account.logo_file_id !== null,
      required: false,
      fixAt: 'company',
      problems: [],
      detail: null,
    },
    {
      key: 'taxRates',
      ...step(
        rates
          ? []
          : [{ path: '/taxRates', message: 'needs at least one tax rate', code: 'required' }],
      ),
      required: true,
      fixAt: 'taxRates',
      detail: null,
    },
    {
      key: 'invoiceNumbering',
      done: true,
      required: true,
      fixAt: 'numbering',
      problems: [],
      detail: {
        invoiceFormat: formats.invoice,
        creditNoteFormat: formats.creditNote,
        nextInvoiceNumber: next,
      },
    },
  ];
  return { ready: items.every((i) => i.done || !i.required), items };
}

/** A step's `done` and `problems` from its problems. */
function step(problems: FieldError[]): { done: boolean; problems: InvoiceProblem[] } {
  return { done: problems.length === 0, problems: problems.map(located) };
}
