import type { AppContext } from '../../context.js';
import type { Executor } from '../../db/records.js';
import type { Later } from '../../db/transactions.js';
import { bodyFieldError } from '../../http/field-rules.js';
import type { Actor } from '../../shared/audit.js';
import { AppError, referenceNotFound } from '../../shared/errors.js';
import { findContractLater, type ContractRow } from '../contracts/index.js';
import {
  currentSystemTemplateLater,
  findTemplate,
  findTemplateLater,
  type TemplateRow,
} from '../document-templates/index.js';
import { requireUploadedFile } from '../files/index.js';
import { findPartner, findPartnerLater, type PartnerRow } from '../partners/index.js';
import { DOCUMENT_FILE_TYPES } from './documents.output.js';
import type { Links, NewDocumentFile } from './documents.rows.js';
import type { CreateDocument } from './documents.schemas.js';
import { isSalesType } from './invoice-rules.js';

/**
 * The records a document refers to (its template or uploaded file, its contract and partner),
 * read in two steps: the reads started now (`deferFirst`; on the executor `readAhead` gives,
 * they go out together in one round trip on PostgreSQL), the checked answer made when the
 * answered function is called, after the read-ahead connection went back to the pool.
 */

/** A document's links as a request names them. */
export interface LinkInput {
  contractId?: string;
  contractName?: string;
  partnerId?: string;
  partnerName?: string;
}

/** A system layout a sales document is made from when it names no template. */
export type SalesKey = 'INVOICE' | 'QUOTE' | 'ORDER_CONFIRMATION';

/** The template a document names, when it is PUBLISHED; else 422 naming `templateId`. */
function publishedOrRefused(template: TemplateRow | undefined, templateId: string): TemplateRow {
  if (!template) throw referenceNotFound('templateId', 'Template');
  if (template.status !== 'PUBLISHED')
    throw new AppError(
      'business_rule_violated',
      `Template ${templateId} is ${template.status}; only PUBLISHED templates generate documents.`,
      bodyFieldError('templateId', 'must be a PUBLISHED template', 'not_published'),
    );
  return template;
}

/** The PUBLISHED template `templateId` of the account (422 naming `templateId` otherwise). */
export async function publishedTemplate(
  db: Executor,
  accountId: string,
  templateId: string,
): Promise<TemplateRow> {
  return publishedOrRefused(await findTemplate(db, accountId, templateId), templateId);
}

/**
 * What a new document is made of: its template (GENERATED) or its uploaded file, the template's
 * read started now; `ensure` seeds or upgrades a system template not of the current layout.
 */
export async function contentLater(
  ctx: AppContext,
  db: Executor,
  actor: Actor,
  input: CreateDocument,
  source: 'GENERATED' | 'UPLOADED',
  ensure: (key: SalesKey) => Promise<TemplateRow>,
): Promise<Later<{ template?: TemplateRow; file?: NewDocumentFile }>> {
  const { accountId } = actor;
  const { templateId, documentType } = input;
  if (source === 'UPLOADED') return () => uploadedContent(ctx, actor, input);
  if (templateId !== undefined) {
    const found = await findTemplateLater(db, accountId, templateId);
    return async () => ({ template: publishedOrRefused(await found(), templateId) });
  }
  if (!isSalesType(documentType))
    return () =>
      Promise.reject(
        new AppError(
          'business_rule_violated',
          'A GENERATED document needs templateId.',
          bodyFieldError('templateId', 'is required for GENERATED documents', 'required'),
        ),
      );
  const key = documentType as SalesKey;
  const current = await currentSystemTemplateLater(db, accountId, key);
  return async () => ({ template: (await current()) ?? (await ensure(key)) });
}

/** An UPLOADED document's file, checked as `requireUploadedFile` checks it. */
async function uploadedContent(
  ctx: AppContext,
  actor: Actor,
  input: CreateDocument,
): Promise<{ file: NewDocumentFile }> {
  if (input.fileId === undefined)
    throw new AppError(
      'business_rule_violated',
      'An UPLOADED document needs fileId.',
      bodyFieldError('fileId', 'is required for UPLOADED documents', 'required'),
    );
  const uploaded = await requireUploadedFile(ctx, actor.accountId, input.fileId, {
    field: 'fileId',
    accept: DOCUMENT_FILE_TYPES,
    actor,
  });
  return {
    file: {
      id: uploaded.file.id,
      contentType: uploaded.file.contentType,
      sha256: uploaded.file.sha256 ?? null,
    },
  };
}

/** Contract and partner of the account; names come from them, the client's only without ids. */
export async function resolveLinks(
  db: Executor,
  accountId: string,
  input: LinkInput,
): Promise<Links> {
  return (await (await linkRowsLater(db, db, accountId, input))()).links;
}

/**
 * `resolveLinks` in two steps, with the partner and contract rows it read: their reads started
 * on `ahead` now, the links made when the answered function is called (a partner only the
 * contract names is read then, through `db`).
 */
export async function linkRowsLater(
  ahead: Executor,
  db: Executor,
  accountId: string,
  input: LinkInput,
): Promise<Later<{ links: Links; partner?: PartnerRow; contract?: ContractRow }>> {
  const contractRow =
    input.contractId === undefined
      ? undefined
      : await findContractLater(ahead, accountId, input.contractId);
  const partnerRow =
    input.partnerId === undefined
      ? undefined
      : await findPartnerLater(ahead, accountId, input.partnerId);
  return async () => {
    const links: Links = {
      contract_id: null,
      contract_name: input.contractName ?? null,
      partner_id: null,
      partner_name: input.partnerName ?? null,
    };
    let partnerId = input.partnerId;
    let contract: ContractRow | undefined;
    let partner: PartnerRow | undefined;
    if (contractRow) {
      contract = await contractRow();
      if (!contract) throw referenceNotFound('contractId', 'Contract');
      links.contract_id = contract.id;
      links.contract_name = contract.name;
      partnerId ??= contract.partner_id;
    }
    if (partnerId !== undefined) {
      partner = await (partnerRow ? partnerRow() : findPartner(db, accountId, partnerId));
      if (!partner) throw referenceNotFound('partnerId', 'Partner');
      links.partner_id = partner.id;
      links.partner_name = partner.name;
    }
    return { links, partner, contract };
  };
}
