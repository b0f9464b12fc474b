import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import { isoDate } from '../../shared/dates.js';
import { findAccount, readCompany, type Company } from '../account/index.js';
import { findPartner } from '../partners/index.js';
import type { EInvoiceFile } from './documents.einvoice.js';
import { DocumentOutput } from './documents.output.js';
import { openMinor, presentDocument } from './documents.presenter.js';
import * as repo from './documents.repository.js';
import type { DocumentView } from './documents.schemas.js';
import { DocumentsService } from './documents.service.js';
import type { FrozenParties } from './invoice-rules.js';

/**
 * What other modules (the customer's page) may read of one FINAL document: the presented
 * document with its payment figures, what is still open, the seller as the document names it
 * (frozen at finalization for invoices, else today's company data), the buyer's language and
 * which e-invoice it can be downloaded as. Nothing here writes.
 */
export interface CustomerDocument {
  document: DocumentView;
  /** What the invoice still asks for, in minor units; null for anything but a FINAL invoice. */
  openMinor: number | null;
  seller: Omit<Company, 'version' | 'updatedAt'>;
  /** The buyer's language (`de`, `en`, …), German when unknown. */
  language: string;
  /** The XRechnung the buyer asked for when the invoice became FINAL, if any. */
  xrechnung: 'xrechnung-cii' | 'xrechnung-ubl' | null;
  /** Whether the document has (or renders) a PDF. */
  hasPdf: boolean;
}

/** A FINAL document of the account for its customer's page; undefined when there is none. */
export async function customerDocument(
  ctx: AppContext,
  db: Executor,
  accountId: string,
  documentId: string,
): Promise<CustomerDocument | undefined> {
  const row = await repo.findDocument(db, accountId, documentId, isoDate(ctx.clock.now()));
  if (!row || row.status !== 'FINAL') return undefined;
  const frozen = row.einvoice_parties
    ? (JSON.parse(row.einvoice_parties) as FrozenParties)
    : undefined;
  let seller = frozen?.seller;
  if (!seller) {
    const account = await findAccount(db, accountId);
    if (!account) return undefined;
    const { version: _v, updatedAt: _u, ...company } = readCompany(account);
    seller = company;
  }
  let language = frozen?.buyer.language;
  if (!language && row.partner_id)
    language = (await findPartner(db, accountId, row.partner_id))?.language ?? undefined;
  const format = frozen?.buyer.einvoiceFormat;
  return {
    document: presentDocument(row),
    openMinor: openMinor(row),
    seller,
    language: language ?? 'de',
    xrechnung:
      row.document_type === 'INVOICE' && format === 'XRECHNUNG_CII'
        ? 'xrechnung-cii'
        : row.document_type === 'INVOICE' && format === 'XRECHNUNG_UBL'
          ? 'xrechnung-ubl'
          : null,
    hasPdf: row.file_id !== null || row.source === 'GENERATED',
  };
}

/** The stored file of a FINAL document (its PDF, rendered now if the job has not run yet). */
export async function customerDocumentFile(
  ctx: AppContext,
  accountId: string,
  documentId: string,
): Promise<EInvoiceFile | undefined> {
  const row = await repo.findDocument(ctx.db, accountId, documentId);
  if (!row || row.status !== 'FINAL') return undefined;
  const file = await new DocumentOutput(ctx).attachment(row);
  return { filename: file.filename, contentType: file.contentType, bytes: file.content };
}

/** The XRechnung of a FINAL invoice, as `GET /v1/documents/{id}/einvoice` answers it. */
export function customerDocumentXRechnung(
  ctx: AppContext,
  accountId: string,
  documentId: string,
  format: 'xrechnung-cii' | 'xrechnung-ubl',
): Promise<EInvoiceFile> {
  return new DocumentsService(ctx).einvoice(accountId, documentId, format);
}
